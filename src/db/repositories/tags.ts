// Tags (PluralKit's groups) and their members. Names are unique per system by `name_key` (the
// usernameKey of the name) under a unique index, so concurrent creates of one name give one tag.
// Membership lives in alter_tags, shared with the alter's `tagIds`; every change to it that spans
// rows runs in one transaction. Tags are not part of the proxy profile, so these writes leave the
// system's revision alone.
import type { EventActor } from '../../domain/events.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import { Problem } from '../../domain/problems.js';
import { MAX_TAGS_PER_SYSTEM, TAG_DEFAULTS, pickTagFields, type CreateTagInput, type EditTagInput, type TagMembershipInput, type TagRecord } from '../../domain/tag.js';
import { isUniqueViolation } from '../errors.js';
import { hasBitsCondition, tagVisibleCondition } from '../privacy-conditions.js';
import { ALTER_VISIBLE_BIT, type TagLoadPolicy } from '../../domain/privacy.js';
import { AlterPrivacy } from '../../domain/privacy-bits.js';
import { tagColumns, tagRecord } from '../tag-columns.js';
import type { NewTag, Schema, TagRow } from '../tables.js';
import { appendEvent } from './events/outbox.js';
import { lockSystem } from './system-revision.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

const onlyVisible = tagVisibleCondition();

const toRecord = tagRecord;

/**
 * Attaches each tag's members (with their privacy bits), in id order, in two queries whose rows are
 * tags and alters, never memberships: each tag's member ids as one `string_agg` list (SQLite 3.44+
 * and PostgreSQL), read from `alter_tags` alone, and the bits of the system's alters. A page of 250
 * tags of 2,000 members each was 500,000 joined rows, each reaching into an alter's row past its
 * long text for the bits (seconds); it is now 250 strings and 2,000 small rows. With `shownOnly`,
 * only the members another viewer may see in any tag are kept (the alter visible and showing its
 * tags); viewTag still applies the whole rule.
 */
async function hydrate(db: Executor, rows: TagRow[], shownOnly = false): Promise<TagRecord[]> {
  if (rows.length === 0) return [];
  const systems = [...new Set(rows.map((row) => Number(row.system_id)))];
  const [lists, alters] = await Promise.all([
    db
      .selectFrom('alter_tags')
      .select(['alter_tags.tag_id', sql<string>`string_agg(cast(alter_tags.alter_id as text), ',')`.as('list')])
      .where('alter_tags.tag_id', 'in', rows.map((row) => row.id))
      .groupBy('alter_tags.tag_id')
      .execute(),
    db
      .selectFrom('alters')
      .select(['alters.id', 'alters.public'])
      .where('alters.system_id', 'in', systems)
      .$if(shownOnly, (q) => q.where(hasBitsCondition('alters.public', ALTER_VISIBLE_BIT | AlterPrivacy.tags)))
      .execute(),
  ]);
  const bits = new Map(alters.map((alter) => [Number(alter.id), alter.public]));
  const byTag = new Map<number, TagRecord['members']>();
  for (const { tag_id: tagId, list } of lists) {
    const members: TagRecord['members'] = [];
    for (const id of list.split(',').map(Number).sort((a, b) => a - b)) {
      const bitsOf = bits.get(id);
      if (bitsOf !== undefined) members.push({ id, public: bitsOf });
    }
    byTag.set(Number(tagId), members);
  }
  return rows.map((row) => toRecord(row, byTag.get(Number(row.id)) ?? []));
}

export async function findTag(db: Executor, systemId: number, tagId: number, policy: TagLoadPolicy): Promise<TagRecord | undefined> {
  const row = await db
    .selectFrom('tags')
    .selectAll()
    .where('system_id', '=', systemId)
    .where('id', '=', tagId)
    .$if(policy.onlyVisible, (q) => q.where(onlyVisible))
    .executeTakeFirst();
  if (!row) return undefined;
  const [record] = await hydrate(db, [row], policy.onlyVisible);
  return record;
}

/** A page of the system's tags in id order; with `onlyVisible`, paging counts visible ones only. */
export async function listTags(db: Db, systemId: number, page: { skip: number; max: number }, policy: TagLoadPolicy): Promise<TagRecord[]> {
  const rows = await db
    .selectFrom('tags')
    .selectAll()
    .where('system_id', '=', systemId)
    .$if(policy.onlyVisible, (q) => q.where(onlyVisible))
    .orderBy('id')
    .limit(page.max)
    .offset(page.skip)
    .execute();
  return hydrate(db, rows, policy.onlyVisible);
}

/** Column values for the fields present in `input`; the name always with its key. */
const columnsOf = (input: EditTagInput) => tagColumns(pickTagFields(input));

function conflictProblem(error: unknown): Problem | undefined {
  if (!isUniqueViolation(error)) return undefined;
  return new Problem('duplicate', 'the system already has a tag with this name (names are compared ignoring case and look-alike forms)', 'name');
}

export async function createTag(db: Db, systemId: number, input: CreateTagInput, now: number, actor: EventActor): Promise<TagRecord> {
  try {
    const created = await db.transaction().execute(async (trx) => {
      // Also keeps the tag cap under concurrent creates.
      await lockSystem(trx, systemId);
      const { count } = await trx
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('system_id', '=', systemId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_TAGS_PER_SYSTEM) throw new Problem('too-many-tags', `a system can have at most ${MAX_TAGS_PER_SYSTEM} tags`);
      const row = await trx
        .insertInto('tags')
        .values({ ...tagColumns({ ...TAG_DEFAULTS, ...pickTagFields(input), name: input.name, createdAt: now }), system_id: systemId } as NewTag)
        .returningAll()
        .executeTakeFirstOrThrow();
      const record = toRecord(row, []);
      await appendEvent(trx, systemId, actor, { type: 'tag.created', tag: record }, now);
      return record;
    });
    return created;
  } catch (error) {
    throw conflictProblem(error) ?? error;
  }
}

/** The system's tags with these ids, as the owner sees them (with every member), in id order. */
export async function findTagsById(db: Db, systemId: number, tagIds: number[]): Promise<TagRecord[]> {
  if (tagIds.length === 0) return [];
  const rows = await db.selectFrom('tags').selectAll().where('system_id', '=', systemId).where('id', 'in', tagIds).orderBy('id').execute();
  return hydrate(db, rows);
}

/** Applies a partial edit; undefined when the system has no such tag. An empty edit changes nothing and tells no one. */
export async function editTag(db: Db, systemId: number, tagId: number, input: EditTagInput, actor: EventActor): Promise<TagRecord | undefined> {
  const columns = columnsOf(input);
  try {
    if (Object.keys(columns).length === 0) {
      const row = await db.selectFrom('tags').selectAll().where('system_id', '=', systemId).where('id', '=', tagId).executeTakeFirst();
      return row ? (await hydrate(db, [row]))[0] : undefined;
    }
    // The edit and its event in one transaction. Only a row the edit changes is written (the
    // condition is checked again under the row's lock), so an edit to the same values says nothing.
    const edited = await db.transaction().execute(async (trx) => {
      await lockSystem(trx, systemId);
      const differs = Object.entries(columns).map(([column, value]) => sql<boolean>`${sql.ref(column)} is distinct from ${value}`);
      const row = await trx
        .updateTable('tags')
        .set(columns)
        .where('system_id', '=', systemId)
        .where('id', '=', tagId)
        .where((eb) => eb.or(differs))
        .returningAll()
        .executeTakeFirst();
      if (!row) {
        const unchanged = await trx.selectFrom('tags').selectAll().where('system_id', '=', systemId).where('id', '=', tagId).executeTakeFirst();
        return unchanged && { record: (await hydrate(trx, [unchanged]))[0], changed: false };
      }
      const [record] = await hydrate(trx, [row]);
      if (record) await appendEvent(trx, systemId, actor, { type: 'tag.updated', tag: record });
      return { record, changed: true };
    });
    return edited?.record;
  } catch (error) {
    throw conflictProblem(error) ?? error;
  }
}

/** Deletes a tag and removes it from every alter, in one transaction. False when there is none. */
export async function deleteTag(db: Db, systemId: number, tagId: number, actor: EventActor): Promise<boolean> {
  const deleted = await db.transaction().execute(async (trx) => {
    await lockSystem(trx, systemId);
    // A write that changes nothing takes the row's lock: of concurrent deletes, exactly one finds it.
    const locked = await trx.updateTable('tags').set({ public: sql`public` }).where('system_id', '=', systemId).where('id', '=', tagId).executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) return false;
    await trx.deleteFrom('alter_tags').where('tag_id', '=', tagId).execute();
    await trx.deleteFrom('tags').where('id', '=', tagId).execute();
    await appendEvent(trx, systemId, actor, { type: 'tag.deleted', tagId });
    return true;
  });
  return deleted;
}

/** The ids among `alterIds` that are not alters of the system. */
async function foreignAlters(trx: Transaction<Schema>, systemId: number, alterIds: number[]): Promise<number[]> {
  if (alterIds.length === 0) return [];
  const owned = await trx.selectFrom('alters').select('id').where('system_id', '=', systemId).where('id', 'in', alterIds).execute();
  const known = new Set(owned.map((row) => Number(row.id)));
  return alterIds.filter((id) => !known.has(id));
}

/**
 * Adds and removes members in one transaction: every named alter must be the system's, or nothing
 * changes. Adding a member or removing a non-member is not an error. Undefined when there is no
 * such tag.
 */
export async function changeTagMembers(
  db: Db,
  systemId: number,
  tagId: number,
  change: TagMembershipInput,
  actor: EventActor,
): Promise<TagRecord | undefined> {
  const add = change.add ?? [];
  const remove = change.remove ?? [];
  const changed = await db.transaction().execute(async (trx) => {
    await lockSystem(trx, systemId);
    const row = await trx.selectFrom('tags').selectAll().where('system_id', '=', systemId).where('id', '=', tagId).executeTakeFirst();
    if (!row) return undefined;
    for (const [field, ids] of [
      ['add', add],
      ['remove', remove],
    ] as const) {
      const [missing] = await foreignAlters(trx, systemId, ids);
      if (missing !== undefined) throw new Problem('unknown-alter', `${field}: the system has no alter ${missing}`, field);
    }
    // What the statements actually changed: adding a member or removing a non-member is no change, and says nothing.
    let moved = 0;
    if (remove.length > 0)
      moved += Number((await trx.deleteFrom('alter_tags').where('tag_id', '=', tagId).where('alter_id', 'in', remove).executeTakeFirst()).numDeletedRows);
    if (add.length > 0) {
      const inserted = await trx
        .insertInto('alter_tags')
        .values(add.map((alterId) => ({ alter_id: alterId, tag_id: tagId })))
        .onConflict((oc) => oc.columns(['alter_id', 'tag_id']).doNothing())
        .executeTakeFirst();
      moved += Number(inserted.numInsertedOrUpdatedRows ?? 0);
    }
    const [record] = await hydrate(trx, [row]);
    if (record && moved > 0) await appendEvent(trx, systemId, actor, { type: 'tag.updated', tag: record });
    return record && { record, moved };
  });
  return changed?.record;
}
