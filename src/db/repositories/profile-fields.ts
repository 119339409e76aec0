// Custom profile fields: a system's field definitions and its alters' values of them. Names are
// unique per system by `name_key` under a unique index (as tags). Every write that spans rows runs in
// one transaction under the system's lock (lockSystem's order: the system's row first), with its
// event. The `…In` functions take a transaction already holding that lock: the alter writes and
// an import (the ProfileFieldStore port) write fields and values through them. A write that changes
// values, or who sees them, notes profileValuesTopic (the lists' cache: profile-value-cache.ts).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { EventActor } from '../../domain/events.js';
import { Problem } from '../../domain/problems.js';
import {
  MAX_PROFILE_FIELDS,
  PROFILE_FIELD_DEFAULTS,
  checkProfileFieldValues,
  parseProfileFieldValue,
  pickProfileFieldFields,
  type CreateProfileFieldInput,
  type EditProfileFieldInput,
  type ProfileFieldRecord,
  type ProfileFieldValues,
  type ProfileFieldsInput,
} from '../../domain/profile-fields.js';
import type { ProfileFieldLoadPolicy } from '../../domain/privacy.js';
import { isSystemTooLarge, isUniqueViolation } from '../errors.js';
import { profileFieldSharedCondition } from '../privacy-conditions.js';
import { profileFieldColumns, profileFieldRecord } from '../profile-field-columns.js';
import type { ProfileFieldRow, Schema } from '../tables.js';
import { systemTooLargeProblem } from '../../domain/alter.js';
import { noteChange } from '../changes/notes.js';
import { profileValuesTopic } from '../changes/topics.js';
import { appendEvent } from './events/outbox.js';
import { lockSystem } from './system-revision.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

const shared = profileFieldSharedCondition('profile_fields.privacy');

/** The system's field definitions in its order (those the policy lets through). */
export async function listProfileFields(db: Executor, systemId: number, policy: ProfileFieldLoadPolicy = { onlyShared: false }): Promise<ProfileFieldRecord[]> {
  const rows = await db
    .selectFrom('profile_fields')
    .selectAll()
    .where('system_id', '=', systemId)
    .$if(policy.onlyShared, (q) => q.where(shared))
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map(profileFieldRecord);
}

export async function findProfileField(
  db: Executor,
  systemId: number,
  fieldId: number,
  policy: ProfileFieldLoadPolicy = { onlyShared: false },
): Promise<ProfileFieldRecord | undefined> {
  const row = await db
    .selectFrom('profile_fields')
    .selectAll()
    .where('system_id', '=', systemId)
    .where('id', '=', fieldId)
    .$if(policy.onlyShared, (q) => q.where(shared))
    .executeTakeFirst();
  return row && profileFieldRecord(row);
}

function conflictProblem(error: unknown): Problem | undefined {
  if (isSystemTooLarge(error)) return systemTooLargeProblem(', profile field values included');
  if (!isUniqueViolation(error)) return undefined;
  return new Problem('duplicate', 'the system already has a profile field with this name (names are compared ignoring case and look-alike forms)', 'name');
}

/**
 * Creates field definitions at the end of the system's order, in the transaction `trx` (which holds
 * the system's lock). Refused whole when the system would pass MAX_PROFILE_FIELDS. No events: the
 * caller says what happened (an API create, or an import's report).
 */
export async function createProfileFieldsIn(trx: Transaction<Schema>, systemId: number, fields: ReadonlyArray<Partial<ProfileFieldValues> & Pick<ProfileFieldValues, 'name'>>, now: number): Promise<ProfileFieldRecord[]> {
  if (fields.length === 0) return [];
  const { count, last } = await trx
    .selectFrom('profile_fields')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.max('position').as('last')])
    .where('system_id', '=', systemId)
    .executeTakeFirstOrThrow();
  if (Number(count) + fields.length > MAX_PROFILE_FIELDS) {
    throw new Problem('too-many-profile-fields', `a system can have at most ${MAX_PROFILE_FIELDS} profile fields (it has ${Number(count)})`);
  }
  const first = last === null ? 0 : Number(last) + 1;
  const rows = await trx
    .insertInto('profile_fields')
    .values(
      fields.map((field, index) => ({
        ...profileFieldColumns({ ...PROFILE_FIELD_DEFAULTS, ...pickProfileFieldFields(field), name: field.name, position: first + index, createdAt: now }),
        system_id: systemId,
      })) as Array<ProfileFieldRow & { id?: never }>,
    )
    .returningAll()
    .execute();
  return rows.map(profileFieldRecord).sort((a, b) => a.position - b.position);
}

/**
 * Writes an alter's values (null removes one) in the transaction `trx`, which holds the system's
 * lock; `values` are already valid for their fields' kinds (checkProfileFieldValues). The alter and
 * the fields must be the system's.
 */
export async function setProfileFieldValuesIn(
  trx: Transaction<Schema>,
  systemId: number,
  alterId: number,
  values: ReadonlyMap<number, string | null>,
): Promise<void> {
  const removed = [...values].filter(([, value]) => value === null).map(([fieldId]) => fieldId);
  const written = [...values].flatMap(([fieldId, value]) => (value === null ? [] : [{ alter_id: alterId, field_id: fieldId, system_id: systemId, value }]));
  if (removed.length > 0) await trx.deleteFrom('profile_field_values').where('alter_id', '=', alterId).where('field_id', 'in', removed).execute();
  if (written.length > 0) {
    await trx
      .insertInto('profile_field_values')
      .values(written)
      .onConflict((oc) => oc.columns(['alter_id', 'field_id']).doUpdateSet({ value: sql`excluded.value` }).where(sql.ref('profile_field_values.value'), '<>', sql.ref('excluded.value')))
      .execute();
  }
  if (removed.length > 0 || written.length > 0) await noteChange(trx, [profileValuesTopic(systemId)]);
}

/** An alter write's `profileFields`, checked against the system's fields and written (in the alter's transaction, under the system's lock). */
export async function writeAlterProfileFields(trx: Transaction<Schema>, systemId: number, alterId: number, input: ProfileFieldsInput): Promise<void> {
  const ids = Object.keys(input).map(Number);
  if (ids.length === 0) return;
  const fields = await trx.selectFrom('profile_fields').select(['id', 'kind', 'name']).where('system_id', '=', systemId).where('id', 'in', ids).execute();
  const byId = new Map(fields.map((row) => [Number(row.id), { id: Number(row.id), name: row.name, kind: row.kind as ProfileFieldRecord['kind'] }]));
  await setProfileFieldValuesIn(trx, systemId, alterId, checkProfileFieldValues(byId, input));
}

export async function createProfileField(
  db: Db,
  systemId: number,
  input: CreateProfileFieldInput,
  now: number,
  actor: EventActor,
): Promise<ProfileFieldRecord> {
  try {
    return await db.transaction().execute(async (trx) => {
      // Also keeps the cap under concurrent creates.
      await lockSystem(trx, systemId);
      const [record] = await createProfileFieldsIn(trx, systemId, [pickProfileFieldFields(input) as ProfileFieldValues], now);
      if (!record) throw new Error('the profile field was not stored');
      await appendEvent(trx, systemId, actor, { type: 'profile-field.created', field: record }, now);
      return record;
    });
  } catch (error) {
    throw conflictProblem(error) ?? error;
  }
}

/**
 * Applies a partial edit; undefined when the system has no such field. A new kind keeps the values
 * valid as that kind (in their normal form) and removes the others, in the same transaction.
 */
export async function editProfileField(
  db: Db,
  systemId: number,
  fieldId: number,
  input: EditProfileFieldInput,
  actor: EventActor,
): Promise<ProfileFieldRecord | undefined> {
  const columns = profileFieldColumns(pickProfileFieldFields(input));
  try {
    if (Object.keys(columns).length === 0) return await findProfileField(db, systemId, fieldId);
    return await db.transaction().execute(async (trx) => {
      await lockSystem(trx, systemId);
      const current = await findProfileField(trx, systemId, fieldId);
      if (!current) return undefined;
      const row = await trx.updateTable('profile_fields').set(columns).where('system_id', '=', systemId).where('id', '=', fieldId).returningAll().executeTakeFirstOrThrow();
      const record = profileFieldRecord(row);
      if (record.kind !== current.kind) await convertValues(trx, record);
      // Who sees the values, and (after a new kind) which values there are.
      if (record.kind !== current.kind || record.privacy !== current.privacy) await noteChange(trx, [profileValuesTopic(systemId)]);
      // An edit to the same values says nothing.
      if (record.name !== current.name || record.kind !== current.kind || record.privacy !== current.privacy) await appendEvent(trx, systemId, actor, { type: 'profile-field.updated', field: record });
      return record;
    });
  } catch (error) {
    throw conflictProblem(error) ?? error;
  }
}

/** After a change of kind: each value kept in its normal form as the new kind, or removed when it is not one. */
async function convertValues(trx: Transaction<Schema>, field: ProfileFieldRecord): Promise<void> {
  const values = await trx.selectFrom('profile_field_values').select(['alter_id', 'value']).where('field_id', '=', field.id).execute();
  const removed: number[] = [];
  for (const { alter_id: alterId, value } of values) {
    const parsed = parseProfileFieldValue(field.kind, value);
    if (!parsed.ok) removed.push(Number(alterId));
    else if (parsed.value !== value) await trx.updateTable('profile_field_values').set({ value: parsed.value }).where('field_id', '=', field.id).where('alter_id', '=', alterId).execute();
  }
  for (let i = 0; i < removed.length; i += 500) {
    await trx.deleteFrom('profile_field_values').where('field_id', '=', field.id).where('alter_id', 'in', removed.slice(i, i + 500)).execute();
  }
}

/** Deletes a field and every alter's value of it, in one transaction. False when there is none. */
export async function deleteProfileField(db: Db, systemId: number, fieldId: number, actor: EventActor): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockSystem(trx, systemId);
    const found = await trx.selectFrom('profile_fields').select('id').where('system_id', '=', systemId).where('id', '=', fieldId).executeTakeFirst();
    if (!found) return false;
    await trx.deleteFrom('profile_field_values').where('field_id', '=', fieldId).execute();
    await trx.deleteFrom('profile_fields').where('id', '=', fieldId).execute();
    await noteChange(trx, [profileValuesTopic(systemId)]);
    await appendEvent(trx, systemId, actor, { type: 'profile-field.deleted', fieldId });
    return true;
  });
}

/** Puts the system's fields in the order of `fieldIds`, which must name each of them once. The fields as ordered. */
export async function orderProfileFields(db: Db, systemId: number, fieldIds: number[], actor: EventActor): Promise<ProfileFieldRecord[]> {
  return db.transaction().execute(async (trx) => {
    await lockSystem(trx, systemId);
    const current = await listProfileFields(trx, systemId);
    const known = new Set(current.map((field) => field.id));
    const unknown = fieldIds.find((id) => !known.has(id));
    if (unknown !== undefined) throw new Problem('unknown-profile-field', `fieldIds: the system has no profile field ${unknown}`, 'fieldIds');
    if (fieldIds.length !== current.length) {
      const named = new Set(fieldIds);
      const left = current.filter((field) => !named.has(field.id)).map((field) => field.id);
      throw new Problem('validation', `fieldIds: must name every field of the system; it leaves out ${left.join(', ')}`, 'fieldIds');
    }
    const moved = fieldIds.flatMap((id, position) => (current.find((field) => field.id === id)?.position === position ? [] : [{ id, position }]));
    if (moved.length === 0) return current;
    for (const { id, position } of moved) await trx.updateTable('profile_fields').set({ position }).where('id', '=', id).execute();
    await appendEvent(trx, systemId, actor, { type: 'profile-fields.ordered', fieldIds });
    return listProfileFields(trx, systemId);
  });
}
