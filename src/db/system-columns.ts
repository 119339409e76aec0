// How a system record is kept in the `systems` table: the column of each of its stored fields, and
// how it is encoded (JSON text, or a boolean as 0/1). Reads (systemRecord), writes (systemColumns:
// edits and imports alike) and a new system's row (newSystemColumns) all follow this one map, which
// is checked against SYSTEM_FIELDS: a new field is a compile error until it has its column.
import { SYSTEM_DEFAULTS, type SystemRecord } from '../domain/system.js';
import type { NewSystem, SystemRow, SystemUpdate } from './tables.js';

/** The record's fields that are columns of their own (id and user are read as they are). */
type ColumnField = Exclude<keyof SystemRecord, 'id' | 'userId' | 'revision'>;
export type SystemColumnValues = Pick<SystemRecord, ColumnField>;

interface Column {
  name: keyof SystemRow;
  /** The value is stored as its JSON text. */
  json?: true;
  /** The value is a boolean stored as 0 or 1. */
  flag?: true;
}
type ColumnHolding<V> = { [C in keyof SystemUpdate]-?: [V] extends [SystemUpdate[C]] ? C : never }[keyof SystemUpdate];
/** A column whose type holds the field's values, a text column for their JSON, or an integer one for a boolean. */
type ColumnFor<V> = [V] extends [boolean]
  ? { name: ColumnHolding<number>; flag: true }
  : { name: ColumnHolding<V> } | { name: ColumnHolding<string>; json: true };

const COLUMNS = {
  name: { name: 'name' },
  displayTag: { name: 'display_tag' },
  displayTagMap: { name: 'display_tag_map', json: true },
  description: { name: 'description' },
  avatar: { name: 'avatar' },
  banner: { name: 'banner' },
  pronouns: { name: 'pronouns' },
  color: { name: 'color' },
  nicknameFormat: { name: 'nickname_format' },
  operationDm: { name: 'operation_dm', flag: true },
  latchExpiration: { name: 'latch_expiration' },
  timezone: { name: 'timezone' },
  public: { name: 'public' },
  flags: { name: 'flags' },
  disabledGuilds: { name: 'disabled_guilds', json: true },
  disabled: { name: 'disabled', flag: true },
  createdAt: { name: 'created_at' },
} satisfies { [F in ColumnField]: ColumnFor<SystemColumnValues[F]> };

const ENTRIES = Object.entries(COLUMNS) as Array<[ColumnField, Column]>;

/** The record of a `systems` row. */
export function systemRecord(row: SystemRow): SystemRecord {
  const stored = row as unknown as Record<string, unknown>;
  const record: Record<string, unknown> = { id: row.id, userId: row.user_id };
  for (const [field, column] of ENTRIES) {
    const value = stored[column.name];
    record[field] = column.json ? JSON.parse(value as string) : column.flag ? Number(value) === 1 : value;
  }
  return record as unknown as SystemRecord;
}

/** The column values of the fields `values` has; undefined ones are left as they are. */
export function systemColumns(values: Partial<SystemColumnValues>): SystemUpdate {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of ENTRIES) {
    const value = values[field];
    if (value !== undefined) columns[column.name] = column.json ? JSON.stringify(value) : column.flag ? (value ? 1 : 0) : value;
  }
  return columns as SystemUpdate;
}

/** The row of a new system: every field at its default (SYSTEM_DEFAULTS). */
export function newSystemColumns(userId: string, now: number): NewSystem {
  return { ...systemColumns({ ...SYSTEM_DEFAULTS, createdAt: now }), user_id: userId } as NewSystem;
}
