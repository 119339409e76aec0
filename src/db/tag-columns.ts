// How a tag record is kept in the `tags` table: the column of each of its stored fields. Reads
// (tagRecord) and writes (tagColumns: the API's writes and imports alike) follow this one map,
// which is checked against TAG_FIELDS: a new field is a compile error until it has its column.
import type { TagRecord } from '../domain/tag.js';
import { usernameKey } from '../domain/username-key.js';
import type { TagRow, TagUpdate } from './tables.js';

/** The record's fields that are columns; the members have a table of their own. */
type ColumnField = Exclude<keyof TagRecord, 'id' | 'systemId' | 'members'>;
export type TagColumnValues = Pick<TagRecord, ColumnField>;

type ColumnHolding<V> = { [C in keyof TagUpdate]-?: [V] extends [TagUpdate[C]] ? C : never }[keyof TagUpdate];

const COLUMNS = {
  name: 'name',
  displayName: 'display_name',
  description: 'description',
  color: 'color',
  icon: 'icon',
  public: 'public',
  createdAt: 'created_at',
} satisfies { [F in ColumnField]: ColumnHolding<TagColumnValues[F]> };

const ENTRIES = Object.entries(COLUMNS) as Array<[ColumnField, keyof TagRow]>;

/** The record of a `tags` row, with its members. */
export function tagRecord(row: TagRow, members: TagRecord['members']): TagRecord {
  const stored = row as unknown as Record<string, unknown>;
  const record: Record<string, unknown> = { id: Number(row.id), systemId: Number(row.system_id) };
  for (const [field, column] of ENTRIES) record[field] = stored[column];
  record.createdAt = Number(row.created_at);
  record.members = members;
  return record as unknown as TagRecord;
}

/** The column values of the fields `values` has (undefined ones are left as they are); the name always with its key. */
export function tagColumns(values: Partial<TagColumnValues>): TagUpdate {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of ENTRIES) {
    const value = values[field];
    if (value !== undefined) columns[column] = value;
  }
  // The unique index compares names by their key: every name write carries it.
  if (values.name !== undefined) columns.name_key = usernameKey(values.name);
  return columns as TagUpdate;
}
