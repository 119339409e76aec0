// How a profile field definition is kept in the `profile_fields` table: the column of each of its
// stored fields, checked against PROFILE_FIELD_FIELDS (a new field is a compile error until it has
// its column). Reads (profileFieldRecord) and writes (profileFieldColumns: the API's and imports')
// follow this one map.
import type { ProfileFieldKind, ProfileFieldPrivacy, ProfileFieldRecord } from '../domain/profile-fields.js';
import { usernameKey } from '../domain/username-key.js';
import type { ProfileFieldRow, ProfileFieldUpdate } from './tables.js';

type ColumnField = Exclude<keyof ProfileFieldRecord, 'id' | 'systemId'>;
export type ProfileFieldColumnValues = Pick<ProfileFieldRecord, ColumnField>;

type ColumnHolding<V> = { [C in keyof ProfileFieldUpdate]-?: [V] extends [ProfileFieldUpdate[C]] ? C : never }[keyof ProfileFieldUpdate];

const COLUMNS = {
  name: 'name',
  kind: 'kind',
  privacy: 'privacy',
  position: 'position',
  createdAt: 'created_at',
} satisfies { [F in ColumnField]: ColumnHolding<ProfileFieldColumnValues[F]> };

const ENTRIES = Object.entries(COLUMNS) as Array<[ColumnField, keyof ProfileFieldRow]>;

/** The record of a `profile_fields` row. */
export function profileFieldRecord(row: ProfileFieldRow): ProfileFieldRecord {
  return {
    id: Number(row.id),
    systemId: Number(row.system_id),
    name: row.name,
    // Written only through PROFILE_FIELD_FIELDS' schemas.
    kind: row.kind as ProfileFieldKind,
    privacy: row.privacy as ProfileFieldPrivacy,
    position: Number(row.position),
    createdAt: Number(row.created_at),
  };
}

/** The column values of the fields `values` has (undefined ones are left as they are); the name always with its key. */
export function profileFieldColumns(values: Partial<ProfileFieldColumnValues>): ProfileFieldUpdate {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of ENTRIES) {
    const value = values[field];
    if (value !== undefined) columns[column] = value;
  }
  // The unique index compares names by their key: every name write carries it.
  if (values.name !== undefined) columns.name_key = usernameKey(values.name);
  return columns as ProfileFieldUpdate;
}
