// How an alter record is kept in the `alters` table: the column of each of its stored fields, and
// which of them are JSON text. Reads (ALTER_RECORD_COLUMNS, alterRecord) and writes (alterColumns,
// for the API's writes and imports alike) all follow this one map.
import { sql } from 'kysely';
import { ALTER_DEFAULTS, ALTER_FIELDS, type AlterFieldGroup, type AlterRecord } from '../domain/alter.js';
import { usernameKey } from '../domain/username-key.js';
import { hasBitsCondition } from './privacy-conditions.js';
import type { AlterRow, AlterUpdate, NewAlter } from './tables.js';

/** The record's fields that are columns; the tags, integration fields and profile field values have tables of their own. */
type ColumnField = Exclude<keyof AlterRecord, 'id' | 'systemId' | 'tagIds' | 'tags' | 'fields' | 'profileFields'>;
export type AlterColumnValues = Pick<AlterRecord, ColumnField>;

interface Column {
  name: keyof AlterRow;
  /** The value is stored as its JSON text. */
  json?: true;
  /** The value is a boolean stored as 0 or 1. */
  flag?: true;
}
/** A column whose type holds the field's values, a text column for their JSON, or an integer one for a boolean. */
type ColumnFor<V> = [V] extends [boolean]
  ? { name: ColumnHolding<number>; flag: true }
  : { name: ColumnHolding<V> } | { name: ColumnHolding<string>; json: true };
type ColumnHolding<V> = { [C in keyof AlterUpdate]-?: [V] extends [AlterUpdate[C]] ? C : never }[keyof AlterUpdate];

const COLUMNS = {
  username: { name: 'username' },
  displayName: { name: 'display_name' },
  nameMap: { name: 'name_map', json: true },
  color: { name: 'color' },
  description: { name: 'description' },
  pronouns: { name: 'pronouns' },
  birthday: { name: 'birthday' },
  avatarUrl: { name: 'avatar_url' },
  avatarUrlMap: { name: 'avatar_url_map', json: true },
  webhookAvatarUrl: { name: 'webhook_avatar_url' },
  banner: { name: 'banner' },
  alterMode: { name: 'alter_mode' },
  proxyTags: { name: 'proxy_tags', json: true },
  autoproxyEnabled: { name: 'autoproxy_enabled', flag: true },
  public: { name: 'public' },
  flags: { name: 'flags' },
  messageCount: { name: 'message_count' },
  lastMessageAt: { name: 'last_message_at' },
  createdAt: { name: 'created_at' },
} satisfies { [F in ColumnField]: ColumnFor<AlterColumnValues[F]> };

const ENTRIES = Object.entries(COLUMNS) as Array<[ColumnField, Column]>;
const JSON_FIELDS = ENTRIES.filter(([, column]) => column.json).map(([field]) => field);
const FLAG_FIELDS = ENTRIES.filter(([, column]) => column.flag).map(([field]) => field);

/** A field's value as its column stores it. */
function stored(value: unknown, column: Column): unknown {
  return column.json ? JSON.stringify(value) : column.flag ? (value ? 1 : 0) : value;
}

/**
 * The record's columns, each selected under its field's name (`display_name AS "displayName"`): a
 * row read with them is already the record, but for its JSON text. Renaming in the query instead of
 * copying field by field keeps reads (a list page has 250) as fast as a hand-written mapping.
 */
export const ALTER_RECORD_COLUMNS = [
  sql.ref<number>('alters.id').as('id'),
  sql.ref<number>('alters.system_id').as('systemId'),
  ...ENTRIES.map(([field, column]) => sql.ref<unknown>(`alters.${column.name}`).as(field)),
];
export type AlterRecordRow = { id: number; systemId: number } & Record<ColumnField, unknown>;

const FIELD_ROWS: AlterFieldGroup = Object.assign({}, ...Object.values(ALTER_FIELDS));
const DEFAULTS = ALTER_DEFAULTS as Record<string, unknown>;

/** A column's stored text of `value` as an SQL literal (a default: never client input). */
function storedLiteral(value: unknown, column: Column) {
  const literal = stored(value, column);
  return literal === null ? sql<unknown>`null` : sql<unknown>`${sql.lit(literal as string | number)}`;
}

/**
 * The record's columns for a viewer other than the owner: a field that viewer is never shown
 * (`shown: 'owner'` in ALTER_FIELDS) is not read at all, and one shown by an alter privacy bit is
 * read only from alters that have the bit; in their place the query gives the field's default,
 * which viewAlter replaces anyway. The per-server maps can hold hundreds of KiB per alter; a
 * stranger's page of 250 no longer reads them (issue 26, item 6). Fields without a default (the
 * names) are short and always read.
 */
export const ALTER_RECORD_COLUMNS_FOR_OTHERS = [
  sql.ref<number>('alters.id').as('id'),
  sql.ref<number>('alters.system_id').as('systemId'),
  ...ENTRIES.map(([field, column]) => {
    const row = FIELD_ROWS[field];
    const value = sql.ref<unknown>(`alters.${column.name}`);
    if (row === undefined || row.shown === 'everyone' || !(field in DEFAULTS)) return value.as(field);
    const hidden = storedLiteral(DEFAULTS[field], column);
    if (row.shown === 'owner') return hidden.as(field);
    return sql<unknown>`case when ${hasBitsCondition('alters.public', row.shown)} then ${value} else ${hidden} end`.as(field);
  }),
] as typeof ALTER_RECORD_COLUMNS;

/** The record of a row read with ALTER_RECORD_COLUMNS (the row becomes it), with its tags, integration fields and profile field values. */
export function alterRecord(row: AlterRecordRow, tags: AlterRecord['tags'], fields: AlterRecord['fields'], profileFields: AlterRecord['profileFields']): AlterRecord {
  const record = row as Record<string, unknown>;
  for (const field of JSON_FIELDS) record[field] = JSON.parse(record[field] as string);
  for (const field of FLAG_FIELDS) record[field] = Number(record[field]) === 1;
  record.tagIds = tags.map((tag) => tag.id);
  record.tags = tags;
  record.fields = fields;
  record.profileFields = profileFields;
  return record as unknown as AlterRecord;
}

/** Every column a new alter's values name (alterColumns of a whole record), system_id aside. */
export const NEW_ALTER_COLUMNS = [...ENTRIES.map(([, column]) => column.name), 'username_key'] as const;

/** The column values of a new alter (its system aside). */
export function alterColumns(values: AlterColumnValues): Omit<NewAlter, 'system_id'>;
/** The column values of the fields `values` has; undefined ones are left as they are. */
export function alterColumns(values: Partial<AlterColumnValues>): AlterUpdate;
export function alterColumns(values: Partial<AlterColumnValues>): AlterUpdate {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of ENTRIES) {
    const value = values[field];
    if (value !== undefined) columns[column.name] = stored(value, column);
  }
  // The unique index compares usernames by their key: every username write carries it.
  if (values.username !== undefined) columns.username_key = usernameKey(values.username);
  return columns as AlterUpdate;
}
