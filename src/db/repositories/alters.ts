// Alters with their tags and integration fields. Every write that touches more than one row runs
// in one transaction; uniqueness (username per system, field value per system and client) is
// decided by unique indexes, never by a read-then-write.
import type { EventActor } from '../../domain/events.js';
import { randomBytes } from 'node:crypto';
import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { ALTER_DEFAULTS, MAX_ALTERS_PER_SYSTEM, systemTooLargeProblem, type AlterRecord, type CreateAlterInput, type EditAlterInput } from '../../domain/alter.js';
import type { AlterListQuery } from '../../domain/alter-list.js';
import type { AlterLoadPolicy, AlterQueryPrivacy } from '../../domain/privacy.js';
import { usernameKey } from '../../domain/username-key.js';
import { ALTER_FIELDS_IN_PROFILE } from '../../domain/proxy-profile.js';
import { Problem } from '../../domain/problems.js';
import { isSystemTooLarge, isUniqueViolation, violatedConstraint } from '../errors.js';
import { alterVisibleCondition, hasBitsCondition, profileFieldShownCondition } from '../privacy-conditions.js';
import type { ProfileFieldPrivacy, ProfileFieldValueRecord } from '../../domain/profile-fields.js';
import { writeAlterProfileFields } from './profile-fields.js';
import { prepareQuery } from '../prepared.js';
import { ALTER_RECORD_COLUMNS, ALTER_RECORD_COLUMNS_FOR_OTHERS, NEW_ALTER_COLUMNS, alterColumns, alterRecord, type AlterRecordRow } from '../alter-columns.js';
import type { NewAlter, Schema } from '../tables.js';
import { releaseAlter } from './autoproxy.js';
import { settleFrontDays } from './front-days.js';
import { appendEvent, appendEvents, numberEvent } from './events/outbox.js';
import { lockSystem, touchSystem } from './system-revision.js';
import { noteChange } from '../changes/notes.js';
import { profileValuesTopic } from '../changes/topics.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

const onlyVisible = alterVisibleCondition();

type TagRef = AlterRecord['tags'][number];

/**
 * Alters with their tags and (for one client) integration field, one row per alter in one query:
 * the tags as an `id:bits` list from a correlated `string_agg` (SQLite 3.44+ and PostgreSQL both
 * have it) and the field from a correlated lookup by its primary key, so rows are never multiplied
 * by joins and a page's LIMIT counts alters.
 */
function selectAlters(db: Executor, fieldsFor: string | null, allFields = true, profileFields = true) {
  return db
    .selectFrom('alters')
    .select(allFields ? ALTER_RECORD_COLUMNS : ALTER_RECORD_COLUMNS_FOR_OTHERS)
    .select((eb) => [
      tagList(eb),
      profileFields ? profileList(db, !allFields) : sql<string | null>`null`.as('profile_list'),
      fieldsFor === null
        ? sql<string | null>`null`.as('field_value')
        : eb
            .selectFrom('alter_fields')
            .select('alter_fields.value')
            .whereRef('alter_fields.alter_id', '=', 'alters.id')
            .where('alter_fields.client_id', '=', fieldsFor)
            .as('field_value'),
    ]);
}

function tagList(eb: ExpressionBuilder<Schema, 'alters'>) {
  return eb
    .selectFrom('alter_tags')
    .innerJoin('tags', 'tags.id', 'alter_tags.tag_id')
    .select(sql<string | null>`string_agg(cast(tags.id as text) || ':' || cast(tags.public as text), ',')`.as('list'))
    .whereRef('alter_tags.alter_id', '=', 'alters.id')
    .as('tag_list');
}

/**
 * The alter's profile field values with their fields' privacy, as a JSON array of `[field id,
 * privacy, value]` (null or `[]` when it has none), from a correlated subquery (rows are never
 * multiplied). With `shownOnly` (others' reads) only the values the viewer may see are read
 * (profileFieldShownCondition: privacy.ts's rule in SQL). The dialects spell JSON differently.
 */
function profileList(db: Executor, shownOnly: boolean) {
  const shown = shownOnly ? sql` and ${profileFieldShownCondition('d.privacy')}` : sql``;
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string | null>`(select cast(json_agg(json_build_array(v.field_id, d.privacy, v.value)) as text) from profile_field_values v inner join profile_fields d on d.id = v.field_id where v.alter_id = alters.id${shown})`.as('profile_list')
    : sql<string | null>`(select json_group_array(json_array(v.field_id, d.privacy, v.value)) from profile_field_values v inner join profile_fields d on d.id = v.field_id where v.alter_id = alters.id${shown})`.as('profile_list');
}

function parseProfileList(list: string | null): ProfileFieldValueRecord[] {
  if (list === null || list === '[]') return [];
  const entries = JSON.parse(list) as Array<[number | string, ProfileFieldPrivacy, string]>;
  return entries.map(([fieldId, privacy, value]) => ({ fieldId: Number(fieldId), privacy, value }));
}

/** Alters' profile field values as a page's query reads them (profileList), with each alter's privacy bits. */
export interface LoadedProfileValues {
  alterId: number;
  /** The alter's bits when its values were read: others' values were filtered by them. */
  public: number;
  values: ProfileFieldValueRecord[];
}

/**
 * The profile field values of some of the system's alters, in one query: all of them, or with
 * `shownOnly` those a viewer besides the owner may see (as the page's own query reads them).
 */
export async function loadProfileValues(db: Executor, systemId: number, alterIds: readonly number[], shownOnly: boolean): Promise<LoadedProfileValues[]> {
  if (alterIds.length === 0) return [];
  const rows = await db
    .selectFrom('alters')
    .select(['alters.id', 'alters.public', profileList(db, shownOnly)])
    .where('alters.system_id', '=', systemId)
    .where('alters.id', 'in', [...alterIds])
    .execute();
  return rows.map((row) => ({ alterId: Number(row.id), public: Number(row.public), values: parseProfileList(row.profile_list) }));
}

/** One alter's profile field values (after a write, for its answer and event). */
async function profileFieldsOf(db: Executor, alterId: number): Promise<ProfileFieldValueRecord[]> {
  const row = await db.selectFrom('alters').select(profileList(db, false)).where('alters.id', '=', alterId).executeTakeFirst();
  return parseProfileList(row?.profile_list ?? null);
}

/**
 * Every client's integration field of the alter as a JSON object (null or `{}` when it has none),
 * for an event, which carries them all. The one place the dialects need different SQL here.
 */
function fieldsJson(db: Executor) {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string | null>`(select cast(json_object_agg(f.client_id, f.value) as text) from alter_fields f where f.alter_id = alters.id)`.as('fields_json')
    : sql<string | null>`(select json_group_object(f.client_id, f.value) from alter_fields f where f.alter_id = alters.id)`.as('fields_json');
}

type LoadedAlterRow = AlterRecordRow & { tag_list: string | null; field_value: string | null; profile_list: string | null };

function fromLoaded(row: LoadedAlterRow, fieldsFor: string | null): AlterRecord {
  const { tag_list: tagList, field_value: fieldValue, profile_list: profileFields, ...alter } = row;
  const fields = fieldsFor !== null && fieldValue !== null ? { [fieldsFor]: fieldValue } : {};
  return alterRecord(alter, parseTagList(tagList), fields, parseProfileList(profileFields));
}

function parseTagList(list: string | null): TagRef[] {
  return (list ? list.split(',') : [])
    .map((pair) => {
      const [id, bits] = pair.split(':');
      return { id: Number(id), public: Number(bits) };
    })
    .sort((a, b) => a.id - b.id);
}

type AlterRowForEvent = AlterRecordRow & { tag_list: string | null; fields_json: string | null; profile_list: string | null };

/** The alter with every client's field (what its event carries). */
function forEvent(row: AlterRowForEvent): AlterRecord {
  const { tag_list: tagList, fields_json: fieldsJson, profile_list: profileFields, ...alter } = row;
  return alterRecord(alter, parseTagList(tagList), fieldsJson ? (JSON.parse(fieldsJson) as Record<string, string>) : {}, parseProfileList(profileFields));
}

/** The record as one client sees it: only its own integration field. */
function withFieldOf(record: AlterRecord, clientId: string): AlterRecord {
  const value = record.fields[clientId];
  return { ...record, fields: value === undefined ? {} : { [clientId]: value } };
}

const alterForEvent = prepareQuery((db, p: { systemId: number; alterId: number }) =>
  db
    .selectFrom('alters')
    .select(ALTER_RECORD_COLUMNS)
    .select((eb) => [tagList(eb), fieldsJson(db), profileList(db, false)])
    .where('alters.system_id', '=', p.systemId)
    .where('alters.id', '=', p.alterId),
);

/**
 * The read queries' shapes, each prepared once (db/prepared.ts): whether only visible alters are
 * loaded, whether one client's field is, and whether every field is, change the SQL; the ids and
 * paging are values.
 */
function byPolicy<Q>(prepare: (onlyVisible: boolean, withField: boolean, allFields: boolean, profileFields: boolean) => Q): (policy: AlterLoadPolicy) => Q {
  const shapes = new Map<string, Q>();
  return (policy) => {
    const profileFields = policy.profileFields !== false;
    const key = `${policy.onlyVisible}/${policy.fieldsFor !== null}/${policy.allFields}/${profileFields}`;
    let shape = shapes.get(key);
    if (shape === undefined) shapes.set(key, (shape = prepare(policy.onlyVisible, policy.fieldsFor !== null, policy.allFields, profileFields)));
    return shape;
  };
}

const alterById = byPolicy((visibleOnly, withField, allFields, profileFields) =>
  prepareQuery((db, p: { systemId: number; alterId: number; fieldsFor: string | null }) =>
    selectAlters(db, withField ? p.fieldsFor : null, allFields, profileFields)
      .where('alters.system_id', '=', p.systemId)
      .where('alters.id', '=', p.alterId)
      .$if(visibleOnly, (q) => q.where(onlyVisible)),
  ),
);

const alterPage = byPolicy((visibleOnly, withField, allFields, profileFields) =>
  prepareQuery((db, p: { systemId: number; max: number; skip: number; fieldsFor: string | null }) =>
    selectAlters(db, withField ? p.fieldsFor : null, allFields, profileFields)
      .where('alters.system_id', '=', p.systemId)
      .$if(visibleOnly, (q) => q.where(onlyVisible))
      .orderBy('alters.id')
      .limit(p.max)
      .offset(p.skip),
  ),
);

export async function findAlter(db: Executor, systemId: number, alterId: number, policy: AlterLoadPolicy): Promise<AlterRecord | undefined> {
  const [row] = await alterById(policy)(db, { systemId, alterId, fieldsFor: policy.fieldsFor });
  return row && fromLoaded(row, policy.fieldsFor);
}

/** Several alters of one system by id (those the policy lets through), in one query. */
export async function findAlters(db: Executor, systemId: number, alterIds: number[], policy: AlterLoadPolicy): Promise<AlterRecord[]> {
  if (alterIds.length === 0) return [];
  const rows = await selectAlters(db, policy.fieldsFor, policy.allFields, policy.profileFields !== false)
    .where('alters.system_id', '=', systemId)
    .where('alters.id', 'in', alterIds)
    .$if(policy.onlyVisible, (q) => q.where(onlyVisible))
    .execute();
  return rows.map((row) => fromLoaded(row, policy.fieldsFor));
}

/**
 * Where a list's profile field values may come from instead of its query (profile-value-cache.ts):
 * it sets each record's values as `policy` would have read them.
 */
export interface ProfileValueSource {
  attach(db: Executor, systemId: number, records: AlterRecord[], policy: AlterLoadPolicy): Promise<void>;
}

/**
 * A page of the system's alters in id order; with `onlyVisible`, paging counts visible ones only.
 * With `profileValues`, the page's query reads no profile field values and the source gives them.
 */
export async function listAlters(
  db: Db,
  systemId: number,
  page: { skip: number; max: number },
  policy: AlterLoadPolicy,
  profileValues?: ProfileValueSource,
): Promise<AlterRecord[]> {
  const readValues = policy.profileFields !== false;
  const pagePolicy = profileValues && readValues ? { ...policy, profileFields: false } : policy;
  const rows = await alterPage(pagePolicy)(db, { systemId, max: page.max, skip: page.skip, fieldsFor: policy.fieldsFor });
  const records = rows.map((row) => fromLoaded(row, policy.fieldsFor));
  if (profileValues && readValues) await profileValues.attach(db, systemId, records, policy);
  return records;
}

/** `%` and `_` (and the escape itself) taken literally in a LIKE pattern escaped with `\`. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Later than any stored time: the "last fronted" of an alter fronting now. */
const FRONTING_NOW = 8_640_000_000_000_000;

/**
 * A page of the system's alters ordered, filtered and searched as `query` says (the list's
 * parameters beyond paging). `privacy` is what the viewer may look at (alterQueryPrivacy: null for
 * the owner): a value an alter hides counts as none, in the order and in the search alike, so
 * neither tells what it holds. Built per request, not prepared: the shape varies with the query.
 */
export async function listAltersBy(
  db: Db,
  systemId: number,
  page: { skip: number; max: number },
  policy: AlterLoadPolicy,
  query: AlterListQuery,
  privacy: AlterQueryPrivacy | null,
  profileValues?: ProfileValueSource,
): Promise<AlterRecord[]> {
  const readValues = policy.profileFields !== false;
  /** The value where the viewer may see it, else null. */
  const shown = <T>(bits: number | undefined, value: RawBuilder<T>): RawBuilder<T | null> =>
    privacy === null || !bits ? value : sql<T | null>`(case when ${hasBitsCondition('alters.public', bits)} then ${value} end)`;
  const matches = (bits: number | undefined, value: RawBuilder<unknown>, pattern: string): RawBuilder<boolean> =>
    privacy === null || !bits ? sql<boolean>`${value} like ${pattern} escape '\\'` : sql<boolean>`(${hasBitsCondition('alters.public', bits)} and ${value} like ${pattern} escape '\\')`;

  let select = selectAlters(db, policy.fieldsFor, policy.allFields, readValues && !profileValues)
    .where('alters.system_id', '=', systemId)
    .$if(policy.onlyVisible, (q) => q.where(onlyVisible));
  if (query.tagId !== undefined) {
    const tagId = query.tagId;
    select = select.where((eb) => eb.exists(eb.selectFrom('alter_tags').select(sql.lit(1).as('one')).whereRef('alter_tags.alter_id', '=', 'alters.id').where('alter_tags.tag_id', '=', tagId)));
    if (privacy !== null) select = select.where(hasBitsCondition('alters.public', privacy.tagMembership));
  }
  if (query.search !== undefined) {
    const folded = `%${likeLiteral(query.search.toLowerCase())}%`;
    const asUsername = `%${likeLiteral(usernameKey(query.search))}%`;
    select = select.where(
      sql<boolean>`(${matches(privacy?.username, sql`alters.username_key`, asUsername)}
        or ${matches(privacy?.displayName, sql`lower(alters.display_name)`, folded)}
        or ${matches(privacy?.description, sql`lower(alters.description)`, folded)})`,
    );
  }
  const lastFronted = sql<number | null>`(select coalesce((select min(later.switched_at) from switches later where later.system_id = alters.system_id and later.switched_at > s.switched_at), ${sql.lit(FRONTING_NOW)})
    from switches s inner join switch_members m on m.switch_id = s.id
    where m.alter_id = alters.id order by s.switched_at desc limit 1)`;
  const order: Record<AlterListQuery['sort'], RawBuilder<unknown> | undefined> = {
    id: undefined,
    name: sql`${shown(privacy?.displayName, sql`lower(alters.display_name)`)} asc nulls last`,
    created: sql`alters.created_at asc`,
    lastMessage: sql`${shown(privacy?.messageStats, sql`alters.last_message_at`)} desc nulls last`,
    messageCount: sql`${shown(privacy?.messageStats, sql`alters.message_count`)} desc nulls last`,
    lastFronted: sql`${lastFronted} desc nulls last`,
  };
  const first = order[query.sort];
  const rows = await select
    .$if(first !== undefined, (q) => q.orderBy(first as RawBuilder<unknown>))
    .orderBy('alters.id')
    .limit(page.max)
    .offset(page.skip)
    .execute();
  const records = rows.map((row) => fromLoaded(row, policy.fieldsFor));
  if (profileValues && readValues) await profileValues.attach(db, systemId, records, policy);
  return records;
}

/** The system's alter whose integration field for `clientId` equals `value`, in one query. */
export async function findAlterByField(db: Db, systemId: number, clientId: string, value: string): Promise<AlterRecord | undefined> {
  const row = await selectAlters(db, clientId)
    .where('alters.system_id', '=', systemId)
    .where('alters.id', 'in', (eb) =>
      eb.selectFrom('alter_fields').select('alter_fields.alter_id').where('alter_fields.system_id', '=', systemId).where('alter_fields.client_id', '=', clientId).where('alter_fields.value', '=', value),
    )
    .executeTakeFirst();
  return row && fromLoaded(row, clientId);
}

function newProxyTagId(): string {
  return randomBytes(6).toString('base64url');
}

/** Proxy tags as stored: each with an id (kept when given), an empty prefix or suffix as null. */
function storedProxyTags(tags: NonNullable<EditAlterInput['proxyTags']>): AlterRecord['proxyTags'] {
  const stored = tags.map((tag) => ({ id: tag.id ?? newProxyTagId(), prefix: tag.prefix || null, suffix: tag.suffix || null }));
  const ids = new Set(stored.map((tag) => tag.id));
  if (ids.size !== stored.length) throw new Problem('validation', 'proxyTags: two proxy tags have the same id', 'proxyTags');
  return stored;
}

function conflictProblem(error: unknown): Problem | undefined {
  if (isSystemTooLarge(error)) return systemTooLargeProblem(', profile field values included');
  if (!isUniqueViolation(error)) return undefined;
  const constraint = violatedConstraint(error) ?? '';
  if (constraint.includes('alter_fields')) {
    return new Problem('duplicate-field', 'another alter already has this integration field value', 'fields');
  }
  return new Problem('duplicate', 'the system already has an alter with this username (usernames are compared ignoring case and look-alike forms: ß = SS, Ａ = A)', 'username');
}

/** Makes the alter's tags exactly `tagIds`; the tags as stored, in id order. */
async function replaceTags(trx: Transaction<Schema>, systemId: number, alterId: number, tagIds: number[]): Promise<TagRef[]> {
  const owned = tagIds.length > 0 ? await trx.selectFrom('tags').select(['id', 'public']).where('system_id', '=', systemId).where('id', 'in', tagIds).orderBy('id').execute() : [];
  if (owned.length !== tagIds.length) {
    const known = new Set(owned.map((row) => row.id));
    const missing = tagIds.find((id) => !known.has(id));
    throw new Problem('unknown-tag', `tagIds: the system has no tag ${missing}`, 'tagIds');
  }
  await trx.deleteFrom('alter_tags').where('alter_id', '=', alterId).execute();
  if (tagIds.length > 0) await trx.insertInto('alter_tags').values(tagIds.map((tagId) => ({ alter_id: alterId, tag_id: tagId }))).execute();
  return owned.map((row) => ({ id: row.id, public: row.public }));
}

async function setField(trx: Transaction<Schema>, systemId: number, alterId: number, clientId: string, value: string | null): Promise<void> {
  if (value === null) {
    await trx.deleteFrom('alter_fields').where('alter_id', '=', alterId).where('client_id', '=', clientId).execute();
    return;
  }
  await trx
    .insertInto('alter_fields')
    .values({ alter_id: alterId, client_id: clientId, system_id: systemId, value })
    .onConflict((oc) => oc.columns(['alter_id', 'client_id']).doUpdateSet({ value }))
    .execute();
}

/** What a write may change beyond the alter row: tags and the calling client's field. */
interface RelatedChanges {
  clientId: string;
  /** The account whose token made the change (the event's actor). */
  accountId: string | null;
  /** The calling client's new field value (null clears it); undefined leaves it. */
  field: string | null | undefined;
}

/** A new alter always names every column (alterColumns of a whole record), so its insert is prepared once. */
const insertAlter = prepareQuery((db, p: NewAlter) =>
  db
    .insertInto('alters')
    .values(Object.fromEntries([...NEW_ALTER_COLUMNS, 'system_id'].map((column) => [column, p[column as keyof NewAlter]])) as NewAlter)
    .returning(ALTER_RECORD_COLUMNS),
);

export async function createAlter(db: Db, systemId: number, input: CreateAlterInput, related: RelatedChanges, now: number): Promise<AlterRecord> {
  try {
    const created = await db.transaction().execute(async (trx) => {
      // The event's number, the system's lock and revision, and its alter count in one statement.
      const numbered = await numberEvent(trx, systemId, now, { touchSystem: true });
      if (numbered.alterCount >= MAX_ALTERS_PER_SYSTEM) {
        throw new Problem('too-many-alters', `a system can have at most ${MAX_ALTERS_PER_SYSTEM} alters`);
      }
      const columns = alterColumns({
        ...ALTER_DEFAULTS,
        ...input,
        proxyTags: storedProxyTags(input.proxyTags ?? []),
        messageCount: 0,
        lastMessageAt: null,
        createdAt: now,
      });
      const [inserted] = await insertAlter(trx, { ...columns, system_id: systemId });
      if (!inserted) throw new Error('the alter was not stored');
      const tagIds = input.tagIds ?? [];
      const tags = tagIds.length > 0 ? await replaceTags(trx, systemId, inserted.id, tagIds) : [];
      if (related.field !== undefined) await setField(trx, systemId, inserted.id, related.clientId, related.field);
      if (input.profileFields !== undefined) await writeAlterProfileFields(trx, systemId, inserted.id, input.profileFields);
      // A new alter has exactly what this request gave it: no need to read it back (but for the
      // profile fields' privacy, which their definitions hold).
      const fields = typeof related.field === 'string' ? { [related.clientId]: related.field } : {};
      const profileFields = input.profileFields === undefined ? [] : await profileFieldsOf(trx, inserted.id);
      const record = alterRecord(inserted, tags, fields, profileFields);
      await appendEvent(trx, systemId, related, { type: 'alter.created', alter: record }, now, { numbered });
      return record;
    });
    return created;
  } catch (error) {
    throw conflictProblem(error) ?? error;
  }
}

/** Applies a partial edit; undefined when the system has no such alter. */
export async function editAlter(
  db: Db,
  systemId: number,
  alterId: number,
  input: EditAlterInput,
  related: RelatedChanges,
): Promise<AlterRecord | undefined> {
  try {
    const edited = await db.transaction().execute(async (trx) => {
      const columns = alterColumns({ ...input, proxyTags: input.proxyTags && storedProxyTags(input.proxyTags) });
      const ownColumns = Object.keys(columns).length > 0;
      const relatedChanges = input.tagIds !== undefined || related.field !== undefined || input.profileFields !== undefined;
      if (!ownColumns && !relatedChanges) {
        const record = await findAlter(trx, systemId, alterId, { onlyVisible: false, fieldsFor: related.clientId, allFields: true });
        return record && { record, changed: false };
      }
      // The system's row lock first (the one lock order: system-revision.ts), taken by the
      // statement that numbers the event and, for a change to what the proxy profile shows, moves
      // the revision: one round trip instead of a lock of its own and a number later. An unknown
      // alter then rolls the number back (NoSuchAlter) rather than leave a gap in the system's events.
      const touchSystem = ALTER_FIELDS_IN_PROFILE.some((field) => input[field] !== undefined);
      const now = Date.now();
      const numbered = await numberEvent(trx, systemId, now, { touchSystem });
      let full: AlterRecord | undefined;
      // The alter must be this system's before anything else is written. An edit of its own
      // columns only reads the whole alter back from the same statement (one round trip, not three).
      if (ownColumns) {
        const update = trx.updateTable('alters').set(columns).where('system_id', '=', systemId).where('id', '=', alterId);
        if (!relatedChanges) {
          const row = await update
            .returning(ALTER_RECORD_COLUMNS)
            .returning((eb) => [tagList(eb), fieldsJson(trx), profileList(trx, false)])
            .executeTakeFirst();
          if (!row) throw new NoSuchAlter();
          full = forEvent(row);
        } else if (Number((await update.executeTakeFirst()).numUpdatedRows) === 0) throw new NoSuchAlter();
      } else {
        const exists = await trx.selectFrom('alters').select('id').where('system_id', '=', systemId).where('id', '=', alterId).executeTakeFirst();
        if (!exists) throw new NoSuchAlter();
      }
      if (input.tagIds !== undefined) await replaceTags(trx, systemId, alterId, input.tagIds);
      if (related.field !== undefined) await setField(trx, systemId, alterId, related.clientId, related.field);
      if (input.profileFields !== undefined) await writeAlterProfileFields(trx, systemId, alterId, input.profileFields);
      full ??= await alterForEvent(trx, { systemId, alterId }).then(([row]) => row && forEvent(row));
      if (!full) throw new Error('the edited alter was not found');
      // The event keeps every client's field: each receiving client is shown its own.
      await appendEvent(trx, systemId, related, { type: 'alter.updated', alter: full }, now, { numbered });
      return { record: withFieldOf(full, related.clientId), changed: true };
    });
    return edited?.record;
  } catch (error) {
    if (error instanceof NoSuchAlter) return undefined;
    throw conflictProblem(error) ?? error;
  }
}

/** Thrown inside an edit's transaction when the system has no such alter: the transaction rolls back. */
class NoSuchAlter extends Error {}

/**
 * Deletes an alter and everything that names it, in one transaction: its tag memberships and
 * integration fields (explicitly, and by cascade), its place in switches (cascade), and its
 * autoproxy entries (`releaseAlter`). Proxied-message records keep its id as a tombstone, so
 * message info still names the system. False when the system has no such alter.
 */
export async function deleteAlter(db: Db, systemId: number, alterId: number, actor: EventActor): Promise<boolean> {
  const deleted = await db.transaction().execute(async (trx) => {
    // The system's lock first (lockSystem); then a write that changes nothing takes the alter's:
    // of concurrent deletes, the later ones find no row, so exactly one answers true.
    await lockSystem(trx, systemId);
    const locked = await trx.updateTable('alters').set({ message_count: sql`message_count` }).where('system_id', '=', systemId).where('id', '=', alterId).executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) return false;
    await touchSystem(trx, systemId);
    await releaseAlter(trx, systemId, alterId);
    await trx.deleteFrom('alter_tags').where('alter_id', '=', alterId).execute();
    await trx.deleteFrom('alter_fields').where('alter_id', '=', alterId).execute();
    await trx.deleteFrom('profile_field_values').where('alter_id', '=', alterId).execute();
    await noteChange(trx, [profileValuesTopic(systemId)]);
    await trx.deleteFrom('alters').where('id', '=', alterId).execute();
    // Its place in switches went by cascade, changing their alters: the statistics' summary follows.
    await settleFrontDays(trx, systemId);
    await appendEvent(trx, systemId, actor, { type: 'alter.deleted', alterId });
    return true;
  });
  return deleted;
}

const altersForEvents = (db: Executor, systemId: number, alterIds: number[]) =>
  db
    .selectFrom('alters')
    .select(ALTER_RECORD_COLUMNS)
    .select((eb) => [tagList(eb), fieldsJson(db), profileList(db, false)])
    .where('alters.system_id', '=', systemId)
    .where('alters.id', 'in', alterIds)
    .execute();

/**
 * Gives every alter of `alterIds` the privacy bitmask `bits`, in one transaction: each must be the
 * system's (else a Problem and nothing changes). Each alter whose bits this changes gets the
 * `alter.updated` event an edit of it would; the others are left as they were, without one. The
 * alters as written, in the order asked, each with only the calling client's field.
 */
export async function setAltersPrivacy(db: Db, systemId: number, alterIds: number[], bits: number, related: Omit<RelatedChanges, 'field'>): Promise<AlterRecord[]> {
  return db.transaction().execute(async (trx) => {
    // The system's row lock first (the one lock order: system-revision.ts); the events' numbers follow under it.
    await lockSystem(trx, systemId);
    const current = await trx.selectFrom('alters').select(['id', 'public']).where('system_id', '=', systemId).where('id', 'in', alterIds).execute();
    const before = new Map(current.map((row) => [Number(row.id), row.public]));
    const missing = alterIds.find((id) => !before.has(id));
    if (missing !== undefined) throw new Problem('unknown-alter', `alterIds: the system has no alter ${missing}`, 'alterIds');
    const changing = alterIds.filter((id) => before.get(id) !== bits);
    if (changing.length > 0) await trx.updateTable('alters').set({ public: bits }).where('system_id', '=', systemId).where('id', 'in', changing).execute();
    const written = new Map((await altersForEvents(trx, systemId, alterIds)).map((row) => [Number(row.id), forEvent(row)]));
    // The events in the order named, written a batch at a time (appendEvents): 2,000 alters are a
    // few statements, not several per alter. Each keeps every client's field, as an edit's does:
    // each receiving client is shown its own.
    const snapshots = changing.map((id) => {
      const alter = written.get(id);
      if (!alter) throw new Error('a changed alter was not found');
      return { type: 'alter.updated' as const, alter };
    });
    await appendEvents(trx, systemId, related, snapshots, Date.now());
    return alterIds.map((id) => withFieldOf(written.get(id) as AlterRecord, related.clientId));
  });
}
