// Imports and exports of a whole system, as storage: the system as an import finds it, a plan
// written in bulk inside one transaction with its events, the reports kept for repeated keys, all
// behind the import port (importStore) that src/domain/import/import-system.ts drives; and the
// data an export writes.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { MAX_ALTERS_PER_SYSTEM, systemTooLargeProblem } from '../../domain/alter.js';
import type { ExportData } from '../../domain/import/export.js';
import type { ImportProgress, ImportReads, ImportStore, ImportWrites } from '../../domain/import/import-system.js';
import type { ImportReport } from '../../domain/import/model.js';
import { IMPORT_REPLAY_WINDOW_MS } from './applied-imports.js';
import type { ImportPlan, ImportTarget, TargetTag } from '../../domain/import/plan.js';
import { pickTagFields } from '../../domain/tag.js';
import { Problem } from '../../domain/problems.js';
import { isSystemTooLarge } from '../errors.js';
import { usernameKey } from '../../domain/username-key.js';
import { alterColumns } from '../alter-columns.js';
import { noteChange } from '../changes/notes.js';
import { settleFrontDays } from './front-days.js';
import { profileValuesTopic, systemTopic, userSystemTopic } from '../changes/topics.js';
import { newSystemColumns, systemColumns } from '../system-columns.js';
import { tagColumns, tagRecord } from '../tag-columns.js';
import type { NewTag, Schema } from '../tables.js';
import type { EventActor, EventSnapshot } from '../../domain/events.js';
import { OWNER_SYSTEM_LOAD, type AlterLoadPolicy } from '../../domain/privacy.js';
import { findAlters, listAlters } from './alters.js';
import { appendEvents } from './events/outbox.js';
import { findTagsById } from './tags.js';
import { findSystemById, loadSystemDetails } from './systems.js';
import { touchSystem } from './system-revision.js';
import { createProfileFieldsIn, listProfileFields } from './profile-fields.js';
import type { ProfileFieldRecord } from '../../domain/profile-fields.js';
import { insertInBulk, type BulkColumn } from '../bulk-rows.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

/** Rows per multi-row INSERT: ~20 columns × 400 stays under SQLite's 32,766 bound parameters. */
const BATCH = 400;


export function newProxyTagId(): string {
  return randomBytes(6).toString('base64url');
}

/**
 * The system as an import sees it: alters with their tags, tags, this source's links, switch
 * times, its custom profile fields and the alters' values of them (one query for the system's).
 */
export async function loadImportTarget(db: Executor, systemId: number, source: string, sourceSystemId: string): Promise<ImportTarget> {
  const system = await findSystemById(db, systemId);
  if (!system) throw new Problem('no-system', 'the system no longer exists');
  const [alters, tags, alterLinks, tagLinks, switches, pluralKitLinks, valueRows] = await Promise.all([
    listAlters(db as Db, systemId, { skip: 0, max: MAX_ALTERS_PER_SYSTEM * 2 }, { onlyVisible: false, fieldsFor: null, allFields: true, profileFields: false }),
    db.selectFrom('tags').selectAll().where('system_id', '=', systemId).orderBy('id').execute(),
    // Also the links recorded without their source system (''), such as the PluralKit member ids a
    // Simply Plural file names: PluralKit's ids are unique across systems. This system's own win.
    db
      .selectFrom('import_alter_links')
      .select(['source_entity_id', 'alter_id', 'source_system_id'])
      .where('system_id', '=', systemId)
      .where('source', '=', source)
      .where('source_system_id', 'in', [sourceSystemId, ''])
      .execute(),
    db
      .selectFrom('import_tag_links')
      .select(['source_entity_id', 'tag_id'])
      .where('system_id', '=', systemId)
      .where('source', '=', source)
      .where('source_system_id', '=', sourceSystemId)
      .execute(),
    db.selectFrom('switches').select('switched_at').where('system_id', '=', systemId).execute(),
    // Another source's file may name PluralKit members (Simply Plural's `pkId`): every PluralKit
    // link of the system, a PluralKit import's and those such files recorded ('').
    source === 'pluralkit'
      ? Promise.resolve([])
      : db
          .selectFrom('import_alter_links')
          .select(['source_entity_id', 'alter_id', 'source_system_id'])
          .where('system_id', '=', systemId)
          .where('source', '=', 'pluralkit')
          .execute(),
    // The values, for the planner to tell an alter whose values change from one left as it is.
    db.selectFrom('profile_field_values').select(['alter_id', 'field_id', 'value']).where('system_id', '=', systemId).execute(),
  ]);
  const profileValues = new Map<number, Map<number, string>>();
  for (const row of valueRows) {
    const alterId = Number(row.alter_id);
    let values = profileValues.get(alterId);
    if (values === undefined) profileValues.set(alterId, (values = new Map()));
    values.set(Number(row.field_id), row.value);
  }
  const profileFields = await listProfileFields(db, systemId);
  const { alter_chars: alterChars } = await db.selectFrom('systems').select('alter_chars').where('id', '=', systemId).executeTakeFirstOrThrow();
  return {
    system,
    alterChars: Number(alterChars),
    alters,
    tags: tags.map((row): TargetTag => {
      const { id, ...record } = tagRecord(row, []);
      return { id, ...pickTagFields(record) };
    }),
    alterLinks: new Map(
      alterLinks
        .sort((a, b) => Number(a.source_system_id === sourceSystemId) - Number(b.source_system_id === sourceSystemId))
        .map((link) => [link.source_entity_id, Number(link.alter_id)]),
    ),
    tagLinks: new Map(tagLinks.map((link) => [link.source_entity_id, Number(link.tag_id)])),
    // A PluralKit import's own link wins over one a file of another source recorded (''); among
    // several PluralKit systems' (one member imported from two), the greatest system id, so the
    // choice is the same every time.
    pluralKitLinks: new Map(
      pluralKitLinks
        .sort((a, b) => (a.source_system_id < b.source_system_id ? -1 : a.source_system_id > b.source_system_id ? 1 : 0))
        .map((link) => [link.source_entity_id, Number(link.alter_id)]),
    ),
    switchTimes: new Set(switches.map((row) => Number(row.switched_at))),
    profileFields,
    profileValues,
  };
}

function chunks<T>(items: T[], size = BATCH): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/**
 * Writes a plan. Renames go through temporary names first: a matched alter may take the name
 * another one gives up in the same import, and the unique index checks every statement.
 */
/** The ids of the alters and tags an applied plan created, and the profile fields as created (its events name them). */
export interface AppliedImport {
  createdAlterIds: number[];
  createdTagIds: number[];
  createdFields: ProfileFieldRecord[];
}

export async function applyImportPlan(
  trx: Transaction<Schema>,
  systemId: number,
  plan: ImportPlan,
  clientId: string,
  now: number,
  progress?: ImportProgress,
): Promise<AppliedImport> {
  const total = plan.alterCreates.length + plan.alterUpdates.length + plan.tagCreates.length + plan.tagUpdates.length + plan.switches.length;
  let done = 0;
  const step = (what: string, count: number) => {
    done += count;
    progress?.(what, done, total);
  };

  // Deletions first (replace mode): they free names and room.
  for (const ids of chunks(plan.alterDeletes)) await trx.deleteFrom('alters').where('system_id', '=', systemId).where('id', 'in', ids).execute();
  for (const ids of chunks(plan.tagDeletes)) await trx.deleteFrom('tags').where('system_id', '=', systemId).where('id', 'in', ids).execute();
  for (const times of chunks(plan.switchDeletes))
    await trx.deleteFrom('switches').where('system_id', '=', systemId).where('switched_at', 'in', times).execute();

  // Renamed matches step aside under a name no import can produce (usernames cannot hold spaces).
  const renamed = plan.alterUpdates.filter((update) => update.values.username !== undefined);
  for (const update of renamed) {
    await trx
      .updateTable('alters')
      .set({ username_key: ` import ${update.alterId}` })
      .where('id', '=', update.alterId)
      .execute();
  }
  const renamedTags = plan.tagUpdates.filter((update) => update.values.name !== undefined);
  for (const update of renamedTags) {
    await trx
      .updateTable('tags')
      .set({ name_key: ` import ${update.tagId}` })
      .where('id', '=', update.tagId)
      .execute();
  }

  const alterIds = new Map(plan.matchedAlters);
  for (const update of plan.alterUpdates) {
    const columns: Record<string, unknown> = alterColumns(update.values);
    // Message records may land between planning and applying (they move no revision): counts only
    // grow and the newest time wins, in SQL, so none is lost.
    const { messageCount, lastMessageAt } = update.values;
    if (messageCount !== undefined) columns.message_count = sql`case when message_count > ${messageCount} then message_count else ${messageCount} end`;
    if (lastMessageAt !== undefined && lastMessageAt !== null) {
      columns.last_message_at = sql`case when last_message_at > ${lastMessageAt} then last_message_at else ${lastMessageAt} end`;
    }
    if (Object.keys(columns).length > 0) await trx.updateTable('alters').set(columns).where('id', '=', update.alterId).execute();
  }
  step('alters', plan.alterUpdates.length);
  for (const batch of chunks(plan.alterCreates)) {
    const rows = await trx
      .insertInto('alters')
      .values(batch.map((create) => ({ ...alterColumns(create.values), system_id: systemId })))
      .returning(['id', 'username_key'])
      .execute();
    const byKey = new Map(rows.map((row) => [row.username_key, Number(row.id)]));
    for (const create of batch) {
      const id = byKey.get(usernameKey(create.values.username));
      if (id === undefined) throw new Error('an inserted alter was not returned');
      alterIds.set(create.sourceId, id);
    }
    step('alters', batch.length);
  }

  const tagIds = new Map(plan.matchedTags);
  for (const update of plan.tagUpdates) {
    const columns = tagColumns(update.values);
    if (Object.keys(columns).length > 0) await trx.updateTable('tags').set(columns).where('id', '=', update.tagId).execute();
  }
  step('tags', plan.tagUpdates.length);
  for (const batch of chunks(plan.tagCreates)) {
    const rows = await trx
      .insertInto('tags')
      .values(batch.map((create) => ({ ...tagColumns({ ...create.values, createdAt: create.createdAt }), system_id: systemId }) as NewTag))
      .returning(['id', 'name_key'])
      .execute();
    const byKey = new Map(rows.map((row) => [row.name_key, Number(row.id)]));
    for (const create of batch) {
      const id = byKey.get(usernameKey(create.values.name));
      if (id === undefined) throw new Error('an inserted tag was not returned');
      tagIds.set(create.sourceId, id);
    }
    step('tags', batch.length);
  }

  // Memberships: replace mode starts matched alters from none; then the file's pairs are added.
  for (const ids of chunks(plan.clearMemberships)) await trx.deleteFrom('alter_tags').where('alter_id', 'in', ids).execute();
  const pairs = [...plan.memberships].flatMap(([alter, tags]) => {
    const alterId = alterIds.get(alter);
    if (alterId === undefined) return [];
    return tags.flatMap((tag) => {
      const tagId = tagIds.get(tag);
      return tagId === undefined ? [] : [{ alter_id: alterId, tag_id: tagId }];
    });
  });
  for (const batch of chunks(pairs, 2000)) {
    await trx
      .insertInto('alter_tags')
      .values(batch)
      .onConflict((oc) => oc.columns(['alter_id', 'tag_id']).doNothing())
      .execute();
  }

  const createdFields = await applyProfileFields(trx, systemId, plan.profileFields, alterIds, now);

  // Links: every imported entity now points at its alter or tag (an add-mode copy takes it over).
  const links = (
    created: ImportPlan['alterCreates'] | ImportPlan['tagCreates'],
    updated: Array<{ sourceId: string; uuid: string | null }>,
    ids: Map<string, number>,
  ) =>
    [...created, ...updated].flatMap(({ sourceId, uuid }) => {
      const id = ids.get(sourceId);
      return id === undefined
        ? []
        : [{ system_id: systemId, source: plan.source, source_system_id: plan.sourceSystemId, source_entity_id: sourceId, source_uuid: uuid, id }];
    });
  for (const batch of chunks(links(plan.alterCreates, plan.alterUpdates, alterIds), 1000)) {
    await trx
      .insertInto('import_alter_links')
      .values(batch.map(({ id, ...link }) => ({ ...link, alter_id: id })))
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'source', 'source_system_id', 'source_entity_id'])
          .doUpdateSet({ alter_id: sql.ref('excluded.alter_id'), source_uuid: sql.ref('excluded.source_uuid') }),
      )
      .execute();
  }
  // The PluralKit member ids another source links its alters to, as links of an unknown PluralKit system.
  const pluralKitLinks = plan.pluralKitLinks.flatMap(({ sourceId, pluralKitId }) => {
    const id = alterIds.get(sourceId);
    return id === undefined ? [] : [{ system_id: systemId, source: 'pluralkit', source_system_id: '', source_entity_id: pluralKitId, source_uuid: null, alter_id: id }];
  });
  for (const batch of chunks(pluralKitLinks, 1000)) {
    await trx
      .insertInto('import_alter_links')
      .values(batch)
      .onConflict((oc) => oc.columns(['system_id', 'source', 'source_system_id', 'source_entity_id']).doUpdateSet({ alter_id: sql.ref('excluded.alter_id') }))
      .execute();
  }
  const parentOf = new Map([...plan.tagCreates, ...plan.tagUpdates].map((tag) => [tag.sourceId, tag.parentId]));
  for (const batch of chunks(links(plan.tagCreates, plan.tagUpdates, tagIds), 1000)) {
    await trx
      .insertInto('import_tag_links')
      .values(batch.map(({ id, ...link }) => ({ ...link, tag_id: id, source_parent_id: parentOf.get(link.source_entity_id) ?? null })))
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'source', 'source_system_id', 'source_entity_id'])
          .doUpdateSet({ tag_id: sql.ref('excluded.tag_id'), source_uuid: sql.ref('excluded.source_uuid'), source_parent_id: sql.ref('excluded.source_parent_id') }),
      )
      .execute();
  }

  await insertImportedSwitches(trx, systemId, clientId, plan.switches, alterIds, (count) => step('switches', count));

  const update = systemColumns(plan.system);
  if (Object.keys(update).length > 0) {
    await trx.updateTable('systems').set(update).where('id', '=', systemId).execute();
    await noteChange(trx, [systemTopic(systemId)]);
  }
  const created = (creates: Array<{ sourceId: string }>, ids: Map<string, number>) => creates.flatMap(({ sourceId }) => ids.get(sourceId) ?? []);
  // Switches and alters changed: the front statistics' summary follows, in the same transaction.
  await settleFrontDays(trx, systemId);
  return { createdAlterIds: created(plan.alterCreates, alterIds), createdTagIds: created(plan.tagCreates, tagIds), createdFields };
}

/** Switches written per round: each round is one statement of switches and one of their members. */
const SWITCHES_PER_ROUND = 10_000;

type SwitchRow = { system_id: number; client_id: string; switched_at: number; alter_list: string };
const SWITCH_COLUMNS: ReadonlyArray<BulkColumn<SwitchRow>> = [
  { name: 'system_id', pgType: 'bigint' },
  { name: 'client_id', pgType: 'text' },
  { name: 'switched_at', pgType: 'bigint' },
  { name: 'alter_list', pgType: 'text' },
];
type SwitchMemberRow = { switch_id: number; alter_id: number; position: number };
const SWITCH_MEMBER_COLUMNS: ReadonlyArray<BulkColumn<SwitchMemberRow>> = [
  { name: 'switch_id', pgType: 'bigint' },
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'position', pgType: 'integer' },
];

/**
 * The plan's switches, then their members by position, in bulk (db/bulk-rows.ts). Each switch row
 * is written with its alter list as the members' triggers make it (ids in position order,
 * comma-separated): on PostgreSQL the triggers then find every list right and rewrite no switch.
 * The triggers stay the lists' keepers; a list written here that differed would be corrected.
 */
async function insertImportedSwitches(
  trx: Transaction<Schema>,
  systemId: number,
  clientId: string,
  switches: ImportPlan['switches'],
  alterIds: ReadonlyMap<string, number>,
  done: (count: number) => void,
): Promise<void> {
  for (let start = 0; start < switches.length; start += SWITCHES_PER_ROUND) {
    const round = switches.slice(start, start + SWITCHES_PER_ROUND).map((entry) => ({
      at: entry.at,
      members: entry.memberIds.flatMap((memberId, position) => {
        const alterId = alterIds.get(memberId);
        return alterId === undefined ? [] : [{ alterId, position }];
      }),
    }));
    const rows = await insertInBulk<SwitchRow, { id: number | string; switched_at: number | string }>(
      trx,
      'switches',
      SWITCH_COLUMNS,
      round.map((entry) => ({ system_id: systemId, client_id: clientId, switched_at: entry.at, alter_list: entry.members.map((member) => member.alterId).join(',') })),
      sql`returning id, switched_at`,
    );
    const byTime = new Map(rows.map((row) => [Number(row.switched_at), Number(row.id)]));
    const members = round.flatMap((entry) => {
      const switchId = byTime.get(entry.at);
      if (switchId === undefined) throw new Error('an inserted switch was not returned');
      return entry.members.map(({ alterId, position }) => ({ switch_id: switchId, alter_id: alterId, position }));
    });
    await insertInBulk(trx, 'switch_members', SWITCH_MEMBER_COLUMNS, members);
    done(round.length);
  }
}

/**
 * Where a system's data stands: its revision and its event number. Every write an import plans
 * against moves one of them (each emits an event; the proxy profile's writes move the revision),
 * except message records, whose counts the apply step merges in SQL (applyImportPlan).
 */
async function systemStamp(db: Executor, systemId: number, revisionsAhead = 0): Promise<string> {
  const row = await db.selectFrom('systems').select(['revision', 'event_seq']).where('id', '=', systemId).executeTakeFirst();
  return row ? `${Number(row.revision) - revisionsAhead}:${row.event_seq}` : 'gone';
}

/** The reads an import makes of one system, through `db` (the database or a transaction). */
function importReads(db: Executor, systemId: number, revisionsAhead: number): ImportReads {
  return {
    loadTarget: (source, sourceSystemId) => loadImportTarget(db, systemId, source, sourceSystemId),
    stamp: () => systemStamp(db, systemId, revisionsAhead),
    async appliedReport(key, now) {
      const row = await db
        .selectFrom('applied_imports')
        .select(['request_hash', 'report'])
        .where('system_id', '=', systemId)
        .where('idempotency_key', '=', key)
        .where('created_at', '>', now - IMPORT_REPLAY_WINDOW_MS)
        .executeTakeFirst();
      return row && { requestHash: row.request_hash, report: JSON.parse(row.report) as ImportReport };
    },
  };
}

/**
 * The import port (src/domain/import/import-system.ts) over the database, for one system;
 * `accountId` is the account whose token imports (its events' actor; null for the CLI).
 */
export function importStore(db: Db, systemId: number, accountId: string | null = null): ImportStore {
  return {
    ...importReads(db, systemId, 0),
    async transaction(work) {
      const writes = (trx: Transaction<Schema>): ImportWrites => ({
        // Stamps read under the lock are as they were before this transaction's own touch.
        ...importReads(trx, systemId, 1),
        async apply(plan, clientId, now, progress) {
          const applied = await applyImportPlan(trx, systemId, plan, clientId, now, progress);
          await appendImportEvents(trx, systemId, plan, applied, { clientId, accountId }, now);
        },
        async keepReport(idempotency, report, now) {
          // A key's report from outside the window (not yet purged) gives way to this one.
          await trx.deleteFrom('applied_imports').where('system_id', '=', systemId).where('idempotency_key', '=', idempotency.key).execute();
          await trx
            .insertInto('applied_imports')
            .values({
              system_id: systemId,
              idempotency_key: idempotency.key,
              request_hash: idempotency.requestHash,
              report: JSON.stringify(report),
              created_at: now,
            })
            .execute();
        },
      });
      try {
        return await db.transaction().execute(async (trx) => {
          await touchSystem(trx, systemId);
          return work(writes(trx));
        });
      } catch (error) {
        // The whole import is refused: its transaction rolled back, nothing of it is written.
        if (isSystemTooLarge(error)) throw systemTooLargeProblem();
        throw error;
      }
    },
  };
}

/**
 * The import's events, in the same transaction: each custom profile field deleted (replace) or
 * created, as the API's field writes announce them, first (the alters' values name the new
 * fields); each alter and tag created, changed or deleted; and the system's profile when it
 * changed. Switches read from a file's history are history, not a switch made now: they are not
 * announced. An import changes no field's definition (a matched field keeps its name, kind and
 * privacy) nor the order of those it keeps, so it sends no `profile-field.updated` nor
 * `profile-fields.ordered`.
 */
async function appendImportEvents(
  trx: Transaction<Schema>,
  systemId: number,
  plan: ImportPlan,
  applied: AppliedImport,
  actor: EventActor,
  now: number,
): Promise<void> {
  const owner: AlterLoadPolicy = { onlyVisible: false, fieldsFor: null, allFields: true };
  // Gathered in order and numbered and written a batch at a time (appendEvents): one import's
  // thousands of events would otherwise take five statements each; a batch bounds the snapshots held.
  const events: EventSnapshot[] = [];
  const flush = async () => {
    await appendEvents(trx, systemId, actor, events.splice(0), now);
  };
  for (const fieldId of plan.profileFields.deletes) events.push({ type: 'profile-field.deleted', fieldId });
  for (const field of applied.createdFields) events.push({ type: 'profile-field.created', field });
  const createdAlters = new Set(applied.createdAlterIds);
  // Those whose columns, tag memberships or custom profile field values changed (a membership or
  // a value changed alone is an alter.updated too, as an API edit of the alter's tagIds or values
  // is); the snapshot, read after the memberships and values are written, carries them, as the
  // edit's does. A tag whose members alone changed sends no tag.updated: neither does that edit.
  const changedAlters = plan.alterUpdates
    .filter(
      (update) =>
        Object.keys(update.values).length > 0 || plan.changedMemberships.has(update.alterId) || plan.profileFields.changedValues.has(update.alterId),
    )
    .map((update) => update.alterId);
  for (const ids of chunks([...createdAlters, ...changedAlters])) {
    for (const alter of await findAlters(trx, systemId, ids, owner)) {
      events.push({ type: createdAlters.has(alter.id) ? 'alter.created' : 'alter.updated', alter });
    }
    await flush();
  }
  for (const alterId of plan.alterDeletes) events.push({ type: 'alter.deleted', alterId });
  const createdTags = new Set(applied.createdTagIds);
  const changedTags = plan.tagUpdates.filter((update) => Object.keys(update.values).length > 0).map((update) => update.tagId);
  for (const ids of chunks([...createdTags, ...changedTags])) {
    for (const tag of await findTagsById(trx, systemId, ids)) {
      events.push({ type: createdTags.has(tag.id) ? 'tag.created' : 'tag.updated', tag });
    }
  }
  for (const tagId of plan.tagDeletes) events.push({ type: 'tag.deleted', tagId });
  if (Object.keys(plan.system).length > 0) {
    const system = await findSystemById(trx, systemId);
    if (system) events.push({ type: 'system.updated', system, details: await loadSystemDetails(trx, systemId, OWNER_SYSTEM_LOAD) });
  }
  await flush();
}

/**
 * The plan's custom profile fields: those replace mode deletes (with their values) and the values
 * it clears, then the new ones created after the system's (refused whole past the cap: the import
 * with them), then each alter's values, through the same functions as the API.
 */
async function applyProfileFields(
  trx: Transaction<Schema>,
  systemId: number,
  plan: ImportPlan['profileFields'],
  alterIds: ReadonlyMap<string, number>,
  now: number,
): Promise<ProfileFieldRecord[]> {
  for (const ids of chunks(plan.deletes)) {
    await trx.deleteFrom('profile_field_values').where('system_id', '=', systemId).where('field_id', 'in', ids).execute();
    await trx.deleteFrom('profile_fields').where('system_id', '=', systemId).where('id', 'in', ids).execute();
  }
  for (const ids of chunks(plan.clearValues)) await trx.deleteFrom('profile_field_values').where('system_id', '=', systemId).where('alter_id', 'in', ids).execute();
  // The lists' cache of values (profile-value-cache.ts) forgets this system's, in every process.
  if (plan.deletes.length > 0 || plan.clearValues.length > 0 || plan.values.size > 0) await noteChange(trx, [profileValuesTopic(systemId)]);
  if (plan.creates.length === 0 && plan.values.size === 0) return [];
  const fieldIds = new Map(plan.matched);
  const created = await createProfileFieldsIn(trx, systemId, plan.creates, now);
  plan.creates.forEach((field, index) => {
    const record = created[index];
    if (record) fieldIds.set(field.id, record.id);
  });
  const rows = new Map<string, ProfileValueRow>();
  for (const [sourceAlterId, values] of plan.values) {
    const alterId = alterIds.get(sourceAlterId);
    if (alterId === undefined) continue;
    for (const [sourceFieldId, value] of values) {
      const fieldId = fieldIds.get(sourceFieldId);
      // The last value for a field wins, as it would set one after another.
      if (fieldId !== undefined) rows.set(`${alterId} ${fieldId}`, { alter_id: alterId, field_id: fieldId, system_id: systemId, value });
    }
  }
  // Every alter's values in bulk (db/bulk-rows.ts), as setProfileFieldValuesIn writes one alter's.
  await insertInBulk(
    trx,
    'profile_field_values',
    PROFILE_VALUE_COLUMNS,
    [...rows.values()],
    sql`on conflict (alter_id, field_id) do update set value = excluded.value where profile_field_values.value <> excluded.value`,
  );
  return created;
}

type ProfileValueRow = { alter_id: number; field_id: number; system_id: number; value: string };
const PROFILE_VALUE_COLUMNS: ReadonlyArray<BulkColumn<ProfileValueRow>> = [
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'field_id', pgType: 'bigint' },
  { name: 'system_id', pgType: 'bigint' },
  { name: 'value', pgType: 'text' },
];

/** Everything an export writes: the system, its alters and tags, its switches, its PluralKit ids. */
export async function loadExportData(db: Db, systemId: number): Promise<ExportData> {
  const target = await loadImportTarget(db, systemId, 'pluralkit', '');
  const profileValues = new Map<number, Record<string, string>>();
  for (const [alterId, values] of target.profileValues ?? []) {
    profileValues.set(alterId, Object.fromEntries([...values].map(([fieldId, value]) => [String(fieldId), value])));
  }
  const [tagRows, links, tagLinks, switchRows, memberRows, nestedLinks] = await Promise.all([
    db.selectFrom('tags').select(['id', 'created_at']).where('system_id', '=', systemId).execute(),
    db.selectFrom('import_alter_links').select(['source_system_id', 'source_entity_id', 'source_uuid', 'alter_id']).where('system_id', '=', systemId).where('source', '=', 'pluralkit').execute(),
    db.selectFrom('import_tag_links').select(['source_system_id', 'source_entity_id', 'source_uuid', 'tag_id']).where('system_id', '=', systemId).where('source', '=', 'pluralkit').execute(),
    db.selectFrom('switches').select(['id', 'switched_at']).where('system_id', '=', systemId).orderBy('switched_at').orderBy('id').execute(),
    db
      .selectFrom('switch_members as m')
      .innerJoin('switches as s', 's.id', 'm.switch_id')
      .select(['m.switch_id', 'm.alter_id'])
      .where('s.system_id', '=', systemId)
      .orderBy('m.switch_id')
      .orderBy('m.position')
      .execute(),
    // Every source's tag links: a nested group's parent is found by its own link, in the same source.
    db.selectFrom('import_tag_links').select(['source', 'source_system_id', 'source_entity_id', 'source_parent_id', 'tag_id']).where('system_id', '=', systemId).orderBy('tag_id').execute(),
  ]);
  // The PluralKit system most of the links came from: its short ids are reused for the export.
  const systems = new Map<string, number>();
  for (const link of [...links, ...tagLinks]) systems.set(link.source_system_id, (systems.get(link.source_system_id) ?? 0) + 1);
  const pkSystem = [...systems.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const alterHids = new Map<number, string>();
  const tagHids = new Map<number, string>();
  const uuids = new Map<string, string>();
  for (const link of links) {
    if (link.source_system_id !== pkSystem) continue;
    alterHids.set(Number(link.alter_id), link.source_entity_id);
    if (link.source_uuid) uuids.set(`m:${link.source_entity_id}`, link.source_uuid);
  }
  for (const link of tagLinks) {
    if (link.source_system_id !== pkSystem) continue;
    tagHids.set(Number(link.tag_id), link.source_entity_id);
    if (link.source_uuid) uuids.set(`g:${link.source_entity_id}`, link.source_uuid);
  }
  const linked = new Map(nestedLinks.map((link) => [JSON.stringify([link.source, link.source_system_id, link.source_entity_id]), Number(link.tag_id)]));
  const tagParents = new Map<number, number>();
  for (const link of nestedLinks) {
    if (link.source_parent_id === null || tagParents.has(Number(link.tag_id))) continue;
    const parent = linked.get(JSON.stringify([link.source, link.source_system_id, link.source_parent_id]));
    if (parent !== undefined && parent !== Number(link.tag_id)) tagParents.set(Number(link.tag_id), parent);
  }
  const createdAt = new Map(tagRows.map((row) => [Number(row.id), Number(row.created_at)]));
  const members = new Map<number, number[]>();
  for (const row of memberRows) {
    const list = members.get(Number(row.switch_id)) ?? [];
    list.push(Number(row.alter_id));
    members.set(Number(row.switch_id), list);
  }
  return {
    system: target.system,
    alters: target.alters,
    tags: target.tags.map((tag) => ({ ...tag, createdAt: createdAt.get(tag.id) ?? 0 })),
    switches: switchRows.map((row) => ({ at: Number(row.switched_at), alterIds: members.get(Number(row.id)) ?? [] })),
    pluralKit: { systemId: pkSystem === '' ? null : pkSystem, alterHids, tagHids, uuids },
    tagParents,
    profileFields: await listProfileFields(db, systemId),
    profileValues,
    newUuid: randomUUID,
  };
}

/**
 * The system of a Discord user for an import from the command line: a self-hoster may migrate
 * people before they ever sign in, so the user and an empty system are created when missing (as
 * a first sign-in would, without recording one).
 */
export async function systemForImport(db: Db, userId: string, now: number): Promise<{ systemId: number; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    const existing = await findSystemByUserIn(trx, userId);
    if (existing !== undefined) return { systemId: existing, created: false };
    await trx.insertInto('users').values({ id: userId, username: null, created_at: now, last_sign_in_at: null }).onConflict((oc) => oc.column('id').doNothing()).execute();
    const row = await trx
      .insertInto('systems')
      .values(newSystemColumns(userId, now))
      .returning('id')
      .executeTakeFirstOrThrow();
    await noteChange(trx, [userSystemTopic(userId)]);
    return { systemId: Number(row.id), created: true };
  });
}

async function findSystemByUserIn(trx: Transaction<Schema>, userId: string): Promise<number | undefined> {
  const owned = await trx.selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirst();
  if (owned) return Number(owned.id);
  const sub = await trx.selectFrom('system_sub_accounts').select('system_id').where('user_id', '=', userId).executeTakeFirst();
  return sub ? Number(sub.system_id) : undefined;
}
