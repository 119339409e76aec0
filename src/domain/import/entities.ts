// What every entity list of an export (PluralKit members and groups, Tupperbox tuppers and groups)
// goes through before its fields are read: an object, a usable id not seen before, a name. What
// fails is skipped with its reason, by the id and name the file gave it.
import type { SkippedEntity } from './model.js';
import { normaliseText, type Notes } from './normalise.js';
import { TagName } from '../tag.js';
import { NAME_MAX } from '../values.js';

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** An id of the file (a short id, or a number kept as its digits), or null. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string') return null;
  const id = value.trim();
  return id !== '' && id.length <= 64 && !/[\p{Cc}\s]/u.test(id) ? id : null;
}

/** How one kind of entity is named in skip reasons and warnings. */
export interface EntityKind {
  /** "member", "group", "tupper". */
  noun: string;
  /** The reason given for an entity without a usable id. */
  noId: string;
  /** The reason given for an entity without a name. */
  noName: string;
  /**
   * The rule its name must pass as it is stored (tags: TagName, the API's own), or none when the
   * name is only a starting point (an alter's username is derived from it, with a fallback).
   */
  name?: { safeParse(value: string): { success: true } | { success: false; error: { issues: Array<{ message: string }> } } };
}

export const MEMBER: EntityKind = { noun: 'member', noId: 'no usable id', noName: 'no name' };
export const TUPPER: EntityKind = { noun: 'tupper', noId: 'no usable id', noName: 'no name' };
export const GROUP: EntityKind = { noun: 'group', noId: 'no usable group id', noName: 'a group without a name', name: TagName };

/**
 * The usable entities of `list` in file order, with their id and name (text, at most NAME_MAX
 * characters); the rest go to `skip`. `seen` collects the ids taken (the first entity with an id
 * wins), for the references other lists make to them.
 */
export function* usableEntities(
  list: unknown,
  kind: EntityKind,
  notes: Notes,
  skip: (entity: Omit<SkippedEntity, 'source'>) => void,
  seen = new Set<string>(),
): Generator<{ entity: Json; id: string; name: string }> {
  for (const entity of arrayOf(list)) {
    if (!isObject(entity)) {
      skip({ id: '', name: '', reason: `not a ${kind.noun} object` });
      continue;
    }
    const rawName = typeof entity.name === 'string' ? entity.name : '';
    const id = idOf(entity.id);
    if (id === null) {
      skip({ id: String(entity.id ?? ''), name: rawName, reason: kind.noId });
      continue;
    }
    if (seen.has(id)) {
      skip({ id, name: rawName, reason: `the file has an earlier ${kind.noun} with the same id` });
      continue;
    }
    const name = normaliseText(entity.name, { max: NAME_MAX, what: `${kind.noun} name` }, notes, id);
    if (name === null) {
      skip({ id, name: rawName, reason: kind.noName });
      continue;
    }
    const refused = kind.name?.safeParse(name);
    if (refused?.success === false) {
      // What the API refuses, an import refuses too: the same schema decides.
      skip({ id, name: rawName, reason: `a name a ${kind.noun} cannot have here: it ${refused.error.issues[0]?.message ?? 'is not valid'}` });
      continue;
    }
    seen.add(id);
    yield { entity, id, name };
  }
}
