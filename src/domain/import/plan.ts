// The import plan: what applying a file to a system would create, update, leave and delete, and the
// report that describes it, computed in memory from the file and the system's current state. The
// repository applies a plan in one transaction; a dry run only returns its report.
//
// Modes:
// - merge (default): a file alter matches an existing alter by its import link (the same source
//   entity imported before), else by username (compared as the unique index compares them); a
//   match is updated with the fields the file carries, everything else is created.
// - add: every file alter and tag is created; names already taken get `-2`, `-3`, …
// - replace: as merge, then every alter and tag of the system that the file did not match is
//   deleted, matched alters' tag memberships are set to exactly the file's, and with history the
//   switches whose time is not in the file are deleted: the system becomes the file. Custom
//   profile fields the same way, when the file carries field definitions at all (a format that has
//   none, or our own key without them, says nothing about fields, and they are left as they are):
//   the system's fields the file does not have are deleted with their values, and matched alters'
//   values become exactly the file's.
import { ALTER_DEFAULTS, MAX_ALTERS_PER_SYSTEM, MAX_SYSTEM_ALTER_CHARS, pickAlterFields, storedAlterChars, systemTooLargeProblem } from '../alter.js';
import { SystemFlags } from '../privacy-bits.js';
import { Problem } from '../problems.js';
import { pickFields } from '../fields.js';
import { SYSTEM_FIELD_NAMES, type SystemFieldName, type SystemRecord } from '../system.js';
import { TAG_DEFAULTS, pickTagFields, type TagFieldName, type TagRecord } from '../tag.js';
import { usernameKey } from '../username-key.js';
import { MAX_PROFILE_FIELDS, parseProfileFieldValue, type ProfileFieldKind, type ProfileFieldRecord } from '../profile-fields.js';
import {
  MAX_TAGS_PER_SYSTEM,
  type ImportMode,
  type ImportReport,
  type ImportSource,
  type ImportSourceKind,
  type SourceAlter,
  type SourceProfileField,
  type SourceTag,
} from './model.js';
import { NameAllocator, Notes, plural } from './normalise.js';
import { NAME_MAX } from '../values.js';
import type { AlterRecord } from '../alter.js';

/** An alter as stored, as far as an import reads and writes it. */
/** An existing alter as the planner sees it: the stored record, without what an import never reads. */
export type TargetAlter = Omit<AlterRecord, 'systemId' | 'tags' | 'fields' | 'profileFields'>;

/** An existing tag as the planner sees it: the stored record's fields. */
export type TargetTag = Pick<TagRecord, 'id' | TagFieldName>;

/** The system as an import finds it. */
export interface ImportTarget {
  system: SystemRecord;
  alters: TargetAlter[];
  /** The system's stored size (systems.alter_chars), checked against MAX_SYSTEM_ALTER_CHARS; unknown: not checked. */
  alterChars?: number;
  tags: TargetTag[];
  /** Source entity id → alter id, for this file's source and source system. */
  alterLinks: ReadonlyMap<string, number>;
  /**
   * PluralKit member id → alter id, from the system's PluralKit links (a PluralKit import's, or
   * those an earlier file of another source recorded), for a file of another source whose alters
   * name PluralKit members (SourceAlter.pluralKitId). Absent for a PluralKit file: its own ids are
   * its links.
   */
  pluralKitLinks?: ReadonlyMap<string, number>;
  tagLinks: ReadonlyMap<string, number>;
  /** Times (ms) of the system's switches. */
  switchTimes: ReadonlySet<number>;
  /** The system's custom profile fields (none: a target read before they existed, or a test's). */
  profileFields?: ReadonlyArray<Pick<ProfileFieldRecord, 'id' | 'name' | 'kind'>>;
  /** The alters' values of those fields: alter id → field id → value (an alter absent: none). */
  profileValues?: ReadonlyMap<number, ReadonlyMap<number, string>>;
}

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  history: boolean;
  /** A fresh proxy tag id (random; passed in to keep the planner pure). */
  newProxyTagId: () => string;
  now: number;
}

export type AlterValues = Omit<TargetAlter, 'id' | 'tagIds'>;
export type TagValues = Omit<TargetTag, 'id'>;

/** The system fields an import writes (the record's; the creation time too, into a fresh system). */
export type SystemChanges = Partial<Pick<SystemRecord, SystemFieldName | 'createdAt'>>;

export interface ProfileFieldPlan {
  /** File fields the system has no field of that name for, in the file's order. */
  creates: SourceProfileField[];
  /** File field id → the system's field of the same name. */
  matched: Map<string, number>;
  /** The system's fields to delete with their values, before the creates (replace mode). */
  deletes: number[];
  /** Existing alters whose values are all removed before the file's are written (replace mode). */
  clearValues: number[];
  /** File alter id → (file field id → value, valid for the field's kind). */
  values: Map<string, Map<string, string>>;
  /**
   * Matched alters whose values the import changes: a value set, changed, or cleared (replace). Not
   * those a deleted field takes with it: the field's deletion announces them, as the API's does.
   */
  changedValues: Set<number>;
}

export interface ImportPlan {
  report: ImportReport;
  source: ImportSourceKind;
  sourceSystemId: string;
  system: SystemChanges;
  /** New alters, by their file id, with every column. */
  alterCreates: Array<{ sourceId: string; uuid: string | null; values: AlterValues }>;
  /** Matched alters: only the columns that change (possibly none, when only links or tags do). */
  alterUpdates: Array<{ sourceId: string; uuid: string | null; alterId: number; values: Partial<AlterValues> }>;
  alterDeletes: number[];
  /** `parentId`: the file id of the group it was nested in (Simply Plural), kept with its import link. */
  tagCreates: Array<{ sourceId: string; uuid: string | null; values: TagValues; createdAt: number; parentId: string | null }>;
  tagUpdates: Array<{ sourceId: string; uuid: string | null; tagId: number; values: Partial<TagValues>; parentId: string | null }>;
  tagDeletes: number[];
  /**
   * File alter id → the file ids of its tags, to add (existing pairs are left). A map, not pairs: a
   * file may name 800,000 memberships, and a preview needs none of them.
   */
  memberships: Map<string, string[]>;
  /** Existing alters whose tag memberships are cleared first (replace mode). */
  clearMemberships: number[];
  /**
   * Matched alters whose tag memberships the import changes: a tag joined (one the import creates
   * included) or, in replace mode, left. Not a tag the import deletes: its `tag.deleted` says so,
   * as the API's deletion does.
   */
  changedMemberships: Set<number>;
  /** New switches, oldest first, members by file id. */
  switches: Array<{ at: number; memberIds: string[] }>;
  /** Times of switches to delete (replace mode with history). */
  switchDeletes: number[];
  /** File alter id → existing alter id, for matched alters. */
  matchedAlters: Map<string, number>;
  matchedTags: Map<string, number>;
  /** Custom profile fields: those to create, those matched by name, and each alter's values (file ids). */
  profileFields: ProfileFieldPlan;
  /**
   * PluralKit member ids the file links its alters to (Simply Plural's `pkId`), by file alter id,
   * each id once: recorded as PluralKit import links of an unknown PluralKit system (source system
   * id ''), which a later PluralKit import matches by (PluralKit member ids are unique across systems).
   */
  pluralKitLinks: Array<{ sourceId: string; pluralKitId: string }>;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** Columns of `next` that differ from `current`. */
function changed<T extends object>(current: T, next: Partial<T>): Partial<T> {
  const diff: Partial<T> = {};
  for (const key of Object.keys(next) as Array<keyof T>) {
    if (next[key] !== undefined && !same(current[key], next[key])) diff[key] = next[key];
  }
  return diff;
}

/** Proxy tags with ids: a pair the alter already has keeps its id. */
function withIds(pairs: SourceAlter['proxyTags'], current: TargetAlter['proxyTags'], newId: () => string): TargetAlter['proxyTags'] {
  const byPair = new Map(current.map((tag) => [JSON.stringify([tag.prefix, tag.suffix]), tag.id]));
  const used = new Set<string>();
  return pairs.map((pair) => {
    let id = byPair.get(JSON.stringify([pair.prefix, pair.suffix]));
    if (id === undefined || used.has(id)) id = newId();
    used.add(id);
    return { id, prefix: pair.prefix, suffix: pair.suffix };
  });
}

/** The alter columns a file alter sets on a new alter: what the file carries, defaults for the rest. */
function newAlterValues(alter: SourceAlter, username: string, options: ImportOptions): AlterValues {
  return {
    ...ALTER_DEFAULTS,
    ...pickAlterFields(alter),
    username,
    proxyTags: withIds(alter.proxyTags, [], options.newProxyTagId),
    messageCount: alter.messageCount,
    lastMessageAt: alter.lastMessageAt,
    createdAt: alter.createdAt ?? options.now,
  };
}

/**
 * The columns a file alter sets on an existing one: what the file carries, message counts only
 * growing, the newest last-message time, the creation time kept.
 */
function updatedAlterValues(alter: SourceAlter, username: string, current: TargetAlter, options: ImportOptions): Partial<AlterValues> {
  const values: Partial<AlterValues> = {
    ...pickAlterFields(alter),
    username,
    proxyTags: withIds(alter.proxyTags, current.proxyTags, options.newProxyTagId),
    messageCount: Math.max(current.messageCount, alter.messageCount),
    lastMessageAt: alter.lastMessageAt === null ? current.lastMessageAt : Math.max(current.lastMessageAt ?? 0, alter.lastMessageAt),
  };
  return changed(current, values);
}

function tagValues(tag: SourceTag, name: string): Partial<TagValues> {
  return { ...pickTagFields(tag), name };
}

interface Matchable {
  id: number;
  key: string;
}

/**
 * Matches file entities to existing ones: by import link first, then by each further set of links
 * in turn (file id → existing id: an alter's PluralKit link), then by the folded name; each pass
 * over the whole file before the next. Each existing entity matches at most one file entity, the
 * first in file order of the earliest pass that names it.
 */
function match(
  fileItems: Array<{ id: string; key: string }>,
  existing: Matchable[],
  linkSets: ReadonlyArray<ReadonlyMap<string, number>>,
): Map<string, number> {
  const matches = new Map<string, number>();
  const claimed = new Set<number>();
  const ids = new Set(existing.map((item) => item.id));
  for (const links of linkSets) {
    for (const item of fileItems) {
      if (matches.has(item.id)) continue;
      const linked = links.get(item.id);
      if (linked !== undefined && ids.has(linked) && !claimed.has(linked)) {
        matches.set(item.id, linked);
        claimed.add(linked);
      }
    }
  }
  const byKey = new Map<string, number>();
  for (const item of existing) if (!byKey.has(item.key)) byKey.set(item.key, item.id);
  for (const item of fileItems) {
    if (matches.has(item.id)) continue;
    const found = byKey.get(item.key);
    if (found !== undefined && !claimed.has(found)) {
      matches.set(item.id, found);
      claimed.add(found);
    }
  }
  return matches;
}

/**
 * Names for file entities in file order, matched ones first (they keep their name when they can):
 * `taken` holds the keys of existing entities that stay under their own name.
 */
function assignNames<T extends { id: string; desired: string }>(
  items: T[],
  matched: ReadonlyMap<string, number>,
  currentName: (id: number) => string,
  taken: Set<string>,
  max: number,
): Map<string, string> {
  const names = new Map<string, string>();
  const allocator = new NameAllocator(taken, max);
  const ordered = [...items.filter((item) => matched.has(item.id)), ...items.filter((item) => !matched.has(item.id))];
  for (const item of ordered) {
    const matchedId = matched.get(item.id);
    let name = allocator.peek(item.desired);
    if (name !== item.desired && matchedId !== undefined && !taken.has(usernameKey(currentName(matchedId)))) name = currentName(matchedId);
    allocator.take(name);
    names.set(item.id, name);
  }
  return names;
}

/** One kind of entity an import brings (alters, tags): its cap and how going over it is refused. */
interface EntityKind {
  noun: 'alters' | 'tags';
  max: number;
  problem: 'too-many-alters' | 'too-many-tags';
}

/**
 * The file's entities of one kind against the system's: which existing one each matches (by link,
 * then by name, but in add mode), which existing ones go (replace mode), whether the result fits
 * the cap, and every file entity's name (taken names get `-2`, `-3`, …).
 */
function planEntities(
  fileItems: Array<{ id: string; name: string }>,
  existing: Array<{ id: number; name: string }>,
  links: ReadonlyArray<ReadonlyMap<string, number>>,
  mode: ImportMode,
  kind: EntityKind,
): { matches: Map<string, number>; deletes: number[]; names: Map<string, string> } {
  const matches = mode === 'add' ? new Map<string, number>() : match(
    fileItems.map((item) => ({ id: item.id, key: usernameKey(item.name) })),
    existing.map((item) => ({ id: item.id, key: usernameKey(item.name) })),
    links,
  );
  const matchedIds = new Set(matches.values());
  const deletes = mode === 'replace' ? existing.filter((item) => !matchedIds.has(item.id)).map((item) => item.id) : [];
  const kept = existing.length - deletes.length;
  const created = fileItems.length - matches.size;
  if (kept + created > kind.max) {
    throw new Problem(kind.problem, `the import would leave the system with ${kept + created} ${kind.noun} (${kept} kept, ${created} new); a system can have at most ${kind.max}. Nothing was imported`);
  }
  const deleted = new Set(deletes);
  const taken = new Set(existing.filter((item) => !matchedIds.has(item.id) && !deleted.has(item.id)).map((item) => usernameKey(item.name)));
  const nameOf = new Map(existing.map((item) => [item.id, item.name]));
  const names = assignNames(
    fileItems.map((item) => ({ id: item.id, desired: item.name })),
    matches,
    (id) => nameOf.get(id) ?? '',
    taken,
    NAME_MAX,
  );
  return { matches, deletes, names };
}

export function planImport(source: ImportSource, target: ImportTarget, options: ImportOptions): ImportPlan {
  const notes = new Notes();
  const { mode } = options;

  // Alters and tags are matched, counted against their cap and named the same way.
  const existingAlters = new Map(target.alters.map((alter) => [alter.id, alter]));
  const existingTags = new Map(target.tags.map((tag) => [tag.id, tag]));
  const pluralKitLinks = planPluralKitLinks(source, notes);
  const { matches: alterMatches, deletes: alterDeletes, names: alterNames } = planEntities(
    source.alters.map((alter) => ({ id: alter.id, name: alter.username })),
    target.alters.map((alter) => ({ id: alter.id, name: alter.username })),
    [target.alterLinks, pluralKitMatches(pluralKitLinks, target)],
    mode,
    { noun: 'alters', max: MAX_ALTERS_PER_SYSTEM, problem: 'too-many-alters' },
  );
  const { matches: tagMatches, deletes: tagDeletes, names: tagNames } = planEntities(
    source.tags.map((tag) => ({ id: tag.id, name: tag.name })),
    target.tags.map((tag) => ({ id: tag.id, name: tag.name })),
    [target.tagLinks],
    mode,
    { noun: 'tags', max: MAX_TAGS_PER_SYSTEM, problem: 'too-many-tags' },
  );

  const renames: ImportReport['renames'] = [];
  const counts: ImportReport['counts'] = {
    alters: { created: 0, updated: 0, unchanged: 0, deleted: alterDeletes.length },
    tags: { created: 0, updated: 0, unchanged: 0, deleted: tagDeletes.length },
    switches: { created: 0, unchanged: 0, deleted: 0 },
    profileFields: { created: 0, matched: 0, deleted: 0 },
  };

  // Memberships, by file alter id.
  const tagsOfAlter = new Map<string, string[]>();
  for (const tag of source.tags) {
    for (const alterId of tag.memberIds) {
      const list = tagsOfAlter.get(alterId);
      if (list) list.push(tag.id);
      else tagsOfAlter.set(alterId, [tag.id]);
    }
  }
  const memberships: ImportPlan['memberships'] = new Map();
  const clearMemberships: number[] = [];
  const changedMemberships = new Set<number>();
  const deletedTags = new Set(tagDeletes);

  const alterCreates: ImportPlan['alterCreates'] = [];
  const alterUpdates: ImportPlan['alterUpdates'] = [];
  // Matched alters whose columns or tags change; their values are compared once the fields are planned.
  const changedAlters = new Set<number>();
  for (const alter of source.alters) {
    const username = alterNames.get(alter.id) ?? alter.username;
    if (username !== alter.username) renames.push({ source: source.source, id: alter.id, name: alter.name, to: username });
    const fileTags = tagsOfAlter.get(alter.id) ?? [];
    if (fileTags.length > 0) memberships.set(alter.id, fileTags);
    const matchedId = alterMatches.get(alter.id);
    const current = matchedId === undefined ? undefined : existingAlters.get(matchedId);
    if (matchedId === undefined || !current) {
      alterCreates.push({ sourceId: alter.id, uuid: alter.uuid, values: newAlterValues(alter, username, options) });
      counts.alters.created++;
      continue;
    }
    const values = updatedAlterValues(alter, username, current, options);
    // Tag membership changes count as an update of the alter (and send its alter.updated, as an
    // edit of its tagIds does); leaving a tag the import deletes is the deletion's, not the alter's.
    const wantedTagIds = new Set(fileTags.map((tagId) => tagMatches.get(tagId)));
    const currentTagIds = new Set(current.tagIds);
    const tagsChange =
      [...wantedTagIds].some((id) => id === undefined || !currentTagIds.has(id)) ||
      (mode === 'replace' && current.tagIds.some((id) => !wantedTagIds.has(id) && !deletedTags.has(id)));
    if (mode === 'replace' && current.tagIds.length > 0) clearMemberships.push(current.id);
    alterUpdates.push({ sourceId: alter.id, uuid: alter.uuid, alterId: current.id, values });
    if (tagsChange) changedMemberships.add(current.id);
    if (Object.keys(values).length > 0 || tagsChange) changedAlters.add(current.id);
  }

  checkSize(target, alterCreates, alterUpdates, alterDeletes, existingAlters);

  const tagCreates: ImportPlan['tagCreates'] = [];
  const tagUpdates: ImportPlan['tagUpdates'] = [];
  for (const tag of source.tags) {
    const name = tagNames.get(tag.id) ?? tag.name;
    if (name !== tag.name) renames.push({ source: source.source, id: tag.id, name: tag.name, to: name });
    const matchedId = tagMatches.get(tag.id);
    const current = matchedId === undefined ? undefined : existingTags.get(matchedId);
    if (matchedId === undefined || !current) {
      tagCreates.push({
        sourceId: tag.id,
        uuid: tag.uuid,
        values: { ...TAG_DEFAULTS, ...tagValues(tag, name), name },
        createdAt: tag.createdAt ?? options.now,
        parentId: tag.parentId ?? null,
      });
      counts.tags.created++;
      continue;
    }
    const values = changed(current, tagValues(tag, name));
    tagUpdates.push({ sourceId: tag.id, uuid: tag.uuid, tagId: current.id, values, parentId: tag.parentId ?? null });
    if (Object.keys(values).length > 0) counts.tags.updated++;
    else counts.tags.unchanged++;
  }

  // Switches: one per time; a time the system already has is left as it is.
  const switches: ImportPlan['switches'] = [];
  const switchDeletes: number[] = [];
  if (options.history) {
    const fileTimes = new Set<number>();
    for (const entry of source.switches) {
      fileTimes.add(entry.at);
      if (target.switchTimes.has(entry.at)) counts.switches.unchanged++;
      else {
        switches.push(entry);
        counts.switches.created++;
      }
    }
    if (mode === 'replace') for (const time of target.switchTimes) if (!fileTimes.has(time)) switchDeletes.push(time);
    counts.switches.deleted = switchDeletes.length;
  } else if (source.switches.length > 0) {
    notes.once(`${plural(source.switches.length, 'switch', 'switches')} of front history ${source.switches.length === 1 ? 'was' : 'were'} not imported (import with history=true to include them)`);
  }

  const system = mode === 'add' ? {} : systemChanges(source, target, notes);
  if (mode === 'add' && Object.keys(source.system).length > 0) notes.once('the system profile was left as it is (add mode imports alters and tags only)');

  const notImported = { ...source.notImported };
  const profileFields = planProfileFields(source, target, mode, alterUpdates, notes);
  // A change of its custom profile field values is a change of the alter, as an API edit's is.
  for (const update of alterUpdates) {
    if (changedAlters.has(update.alterId) || profileFields.changedValues.has(update.alterId)) counts.alters.updated++;
    else counts.alters.unchanged++;
  }
  // Matched: the system's fields the file's took, each once (two file fields may name one).
  const matchedFields = new Set(profileFields.matched.values()).size;
  counts.profileFields = { created: profileFields.creates.length, matched: matchedFields, deleted: profileFields.deletes.length };

  const report: ImportReport = {
    format: source.format,
    mode,
    dryRun: options.dryRun,
    history: options.history,
    counts,
    renames,
    skipped: source.skipped,
    warnings: [...source.warnings, ...notes.list()],
    notImported,
  };
  return {
    report,
    source: source.source,
    sourceSystemId: source.sourceSystemId,
    system,
    alterCreates,
    alterUpdates,
    alterDeletes,
    tagCreates,
    tagUpdates,
    tagDeletes,
    memberships,
    clearMemberships,
    changedMemberships,
    switches,
    switchDeletes,
    matchedAlters: alterMatches,
    matchedTags: tagMatches,
    profileFields,
    pluralKitLinks,
  };
}

/**
 * The existing alters the file's alters are linked to by their PluralKit member id (file alter id →
 * alter id), through the system's PluralKit links: a file of another source matches by them after
 * its own links and before names. Only the alter that keeps the id (planPluralKitLinks: the first
 * in the file naming it) matches by it, so the link the import writes names the alter it matched.
 */
function pluralKitMatches(links: ImportPlan['pluralKitLinks'], target: ImportTarget): Map<string, number> {
  const matches = new Map<string, number>();
  if (!target.pluralKitLinks) return matches;
  for (const { sourceId, pluralKitId } of links) {
    const alterId = target.pluralKitLinks.get(pluralKitId);
    if (alterId !== undefined) matches.set(sourceId, alterId);
  }
  return matches;
}

/**
 * The PluralKit member ids a file of another source links its alters to, each id once (the first
 * alter naming it keeps it, and only it matches by it; the database holds one link per id). A
 * PluralKit file's own ids are its links already.
 */
function planPluralKitLinks(source: ImportSource, notes: Notes): ImportPlan['pluralKitLinks'] {
  if (source.source === 'pluralkit') return [];
  const links: ImportPlan['pluralKitLinks'] = [];
  const seen = new Set<string>();
  for (const alter of source.alters) {
    if (alter.pluralKitId === undefined) continue;
    if (seen.has(alter.pluralKitId)) {
      notes.add('pluralkit-id-repeated', alter.name, (n, names) => `${plural(n, 'member')} named a PluralKit member id an earlier member already had; only the first is linked to it and matched by it${names}`);
      continue;
    }
    seen.add(alter.pluralKitId);
    links.push({ sourceId: alter.id, pluralKitId: alter.pluralKitId });
  }
  return links;
}

/**
 * The file's custom profile fields matched to the system's by name (as tag names: usernameKey), the
 * others created; each alter's values checked against its field's kind (the system's kind for a
 * matched field), a value that is not one left out and counted. In replace mode, when the file
 * carries field definitions at all (`source.profileFields` defined, even empty), the system's
 * fields it does not have are deleted and matched alters' values cleared first. Refused whole, as
 * the repository would refuse it, when the fields kept and created would pass MAX_PROFILE_FIELDS.
 */
function planProfileFields(
  source: ImportSource,
  target: ImportTarget,
  mode: ImportMode,
  alterUpdates: ImportPlan['alterUpdates'],
  notes: Notes,
): ProfileFieldPlan {
  const plan: ProfileFieldPlan = { creates: [], matched: new Map(), deletes: [], clearValues: [], values: new Map(), changedValues: new Set() };
  const systemFields = target.profileFields ?? [];
  const replacing = mode === 'replace' && source.profileFields !== undefined;
  if (replacing) plan.clearValues = alterUpdates.map((update) => update.alterId);
  const fileFields = source.profileFields ?? [];
  if (fileFields.length === 0) {
    if (replacing) plan.deletes = systemFields.map((field) => field.id);
    noteDeletes(plan, systemFields, notes);
    return plan;
  }
  const existing = new Map(systemFields.map((field) => [usernameKey(field.name), field]));
  const kinds = new Map<string, ProfileFieldKind>();
  const seen = new Set<string>();
  for (const field of fileFields) {
    const key = usernameKey(field.name);
    const match = existing.get(key);
    if (match) {
      plan.matched.set(field.id, match.id);
      kinds.set(field.id, match.kind);
    } else if (!seen.has(key)) {
      plan.creates.push(field);
      kinds.set(field.id, field.kind);
    }
    seen.add(key);
  }
  if (replacing) {
    const kept = new Set(plan.matched.values());
    plan.deletes = systemFields.filter((field) => !kept.has(field.id)).map((field) => field.id);
  }
  const after = systemFields.length - plan.deletes.length + plan.creates.length;
  if (plan.creates.length > 0 && after > MAX_PROFILE_FIELDS) {
    throw new Problem(
      'too-many-profile-fields',
      `the import would leave the system with ${after} profile fields (${systemFields.length - plan.deletes.length} kept, ${plan.creates.length} new); a system can have at most ${MAX_PROFILE_FIELDS}. Nothing was imported`,
    );
  }
  noteDeletes(plan, systemFields, notes);
  if (plan.creates.length > 0) notes.once(`${plural(plan.creates.length, 'custom profile field')} will be created: ${plan.creates.slice(0, 5).map((field) => JSON.stringify(field.name)).join(', ')}${plan.creates.length > 5 ? ', …' : ''}`);
  for (const alter of source.alters) {
    const values = new Map<string, string>();
    for (const [fieldId, value] of Object.entries(alter.profileFields ?? {})) {
      const kind = kinds.get(fieldId);
      const parsed = kind === undefined ? undefined : parseProfileFieldValue(kind, value);
      if (parsed?.ok) values.set(fieldId, parsed.value);
      else notes.add('profile-value', alter.name, (n, names) => `${plural(n, 'custom profile field value')} did not fit ${n === 1 ? 'its' : 'their'} field and ${n === 1 ? 'was' : 'were'} left out${names}`);
    }
    if (values.size > 0) plan.values.set(alter.id, values);
  }
  plan.changedValues = changedValues(plan, alterUpdates, target.profileValues);
  return plan;
}

/**
 * The matched alters whose values the plan changes: the values each will hold (the file's on its
 * fields, the last for a field two file fields name, as the repository writes them; on top of the
 * current ones, or of none where replace clears them) against those it holds on the fields kept.
 * Linear in the file's values and, where replace clears, the alters' current ones.
 */
function changedValues(plan: ProfileFieldPlan, alterUpdates: ImportPlan['alterUpdates'], current: ImportTarget['profileValues']): Set<number> {
  const changed = new Set<number>();
  const deleted = new Set(plan.deletes);
  const cleared = new Set(plan.clearValues);
  const none: ReadonlyMap<number, string> = new Map();
  for (const { sourceId, alterId } of alterUpdates) {
    const held = current?.get(alterId) ?? none;
    const wanted = new Map<number, string>();
    let created = false;
    for (const [fileFieldId, value] of plan.values.get(sourceId) ?? []) {
      const fieldId = plan.matched.get(fileFieldId);
      // A field the import creates: the alter holds no value for it yet.
      if (fieldId === undefined) created = true;
      else wanted.set(fieldId, value);
    }
    let differs = created || [...wanted].some(([fieldId, value]) => held.get(fieldId) !== value);
    // Every wanted value held already: a clear changes the alter when it held more, on fields kept.
    if (!differs && cleared.has(alterId)) {
      let kept = 0;
      for (const fieldId of held.keys()) if (!deleted.has(fieldId)) kept++;
      differs = kept > wanted.size;
    }
    if (differs) changed.add(alterId);
  }
  return changed;
}

/** Names the fields a replace deletes, in a warning (the report counts them too). */
function noteDeletes(plan: ProfileFieldPlan, systemFields: NonNullable<ImportTarget['profileFields']>, notes: Notes): void {
  if (plan.deletes.length === 0) return;
  const doomed = new Set(plan.deletes);
  const names = systemFields.filter((field) => doomed.has(field.id)).slice(0, 5).map((field) => JSON.stringify(field.name));
  notes.once(`${plural(plan.deletes.length, 'custom profile field')} not in the file will be deleted with ${plan.deletes.length === 1 ? 'its' : 'their'} values (replace mode): ${names.join(', ')}${plan.deletes.length > 5 ? ', …' : ''}`);
}

/** The system fields the file sets (merge and replace), and the keep-proxy flag from the alters. */
function systemChanges(source: ImportSource, target: ImportTarget, notes: Notes): SystemChanges {
  const { system: file } = source;
  const current = target.system;
  const changes: SystemChanges = { ...pickFields(file, SYSTEM_FIELD_NAMES) };
  if (file.flags !== undefined) {
    changes.flags = file.flags;
  } else {
    // PluralKit keeps proxy tags per member, we per system: follow the file when its alters agree.
    const keep = source.alters.map((alter) => alter.keepProxy).filter((value): value is boolean => value !== null);
    const kept = keep.filter(Boolean).length;
    if (keep.length > 0 && kept === keep.length) changes.flags = current.flags | SystemFlags.keepProxy;
    else if (kept === 0 && keep.length > 0) changes.flags = current.flags & ~SystemFlags.keepProxy;
    else if (kept > 0) {
      notes.once(
        `${kept} of ${plural(keep.length, 'alter')} kept their proxy tags in sent messages (keep_proxy / show_brackets); here that is one setting for the whole system, which was left ${current.flags & SystemFlags.keepProxy ? 'on' : 'off'}`,
      );
    }
  }
  // A fresh system (nothing in it yet) takes the file's creation time.
  if (file.createdAt !== undefined && target.alters.length === 0 && target.tags.length === 0) changes.createdAt = file.createdAt;
  // Only what differs is written.
  const currentValues: SystemChanges = { ...pickFields(current, SYSTEM_FIELD_NAMES), createdAt: current.createdAt };
  return changed(currentValues, changes);
}

/**
 * Refuses the whole import, preview or not, when it would grow the system's alters past
 * MAX_SYSTEM_ALTER_CHARS (the database's triggers refuse it too; this says so before anything is
 * written, and in a dry run). An import that leaves the size as it is or shrinks it always passes.
 */
function checkSize(
  target: ImportTarget,
  creates: ImportPlan['alterCreates'],
  updates: ImportPlan['alterUpdates'],
  deletes: number[],
  existing: ReadonlyMap<number, TargetAlter>,
): void {
  if (target.alterChars === undefined) return;
  let change = 0;
  for (const create of creates) change += storedAlterChars(create.values);
  const changes = new Map<ImportPlan['alterUpdates'][number], number>();
  for (const update of updates) {
    const current = existing.get(update.alterId);
    const grows = current ? storedAlterChars({ ...current, ...update.values }) - storedAlterChars(current) : 0;
    changes.set(update, grows);
    change += grows;
  }
  // Applied in this order (after the deletes, before the creates), the updates that shrink first:
  // the system's size then only grows towards its final value, so a plan within the cap never
  // passes it half-way (the triggers check every statement).
  updates.sort((a, b) => (changes.get(a) ?? 0) - (changes.get(b) ?? 0));
  for (const id of deletes) {
    const current = existing.get(id);
    if (current) change -= storedAlterChars(current);
  }
  const after = target.alterChars + change;
  if (change > 0 && after > MAX_SYSTEM_ALTER_CHARS) {
    throw systemTooLargeProblem(` (the import would bring them to ${after.toLocaleString('en-US')}). Nothing was imported`);
  }
}
