// What the field tables of alters (ALTER_FIELDS), systems (SYSTEM_FIELDS) and tags (TAG_FIELDS)
// have in common: a row per stored field an owner sets (what an edit accepts, the value as stored,
// the default, who else sees it), and what follows from the rows alone (the answer's schema of a
// field, what a viewer who may not see it gets, the defaults). Each entity's module holds its table;
// its db/*-columns.ts maps the same rows to columns, checked with `satisfies`.
import { z } from 'zod';

/**
 * Who besides the owner sees a field: a viewer of a record that has this privacy bit set (the
 * entity's own bits: AlterPrivacy, SystemPrivacy, TagPrivacy), no one ('owner'), or everyone who
 * sees the record ('everyone'). Others get an unseen field as null (lists and maps empty) and named
 * in `redacted`.
 */
export type Shown = number | 'owner' | 'everyone';

export interface FieldRow {
  /** What a create or an edit accepts. */
  input: z.ZodType;
  /** The value as stored and as the owner reads it: the answer's schema, without the limits. */
  value: z.ZodType;
  /** What a create that leaves the field out stores; undefined: a create must give it. */
  default: unknown;
  shown: Shown;
  /** Said in the reference of the answer, where the value alone does not tell it. */
  note?: string;
}
export type FieldGroup = Record<string, FieldRow>;

/** What a viewer who may not see a field gets in its place: an empty list or map, or null. */
export function hiddenAs(field: FieldRow): 'list' | 'map' | null {
  if (field.value instanceof z.ZodArray) return 'list';
  if (field.value instanceof z.ZodRecord) return 'map';
  return null;
}

/** The value itself of `hiddenAs`. */
export function hiddenValue(hidden: ReturnType<typeof hiddenAs>): [] | Record<string, never> | null {
  return hidden === 'list' ? [] : hidden === 'map' ? {} : null;
}

/** The answer's schema of a field: nullable when others may get null in its place. */
export type AnswerOf<F extends FieldRow> = F['shown'] extends 'everyone'
  ? F['value']
  : F['value'] extends z.ZodArray | z.ZodRecord | z.ZodNullable
    ? F['value']
    : z.ZodNullable<F['value']>;
export type AnswersOf<G extends FieldGroup> = { [K in keyof G]: AnswerOf<G[K]> };

export function answerOf(field: FieldRow): z.ZodType {
  const schema = field.shown !== 'everyone' && hiddenAs(field) === null && !(field.value instanceof z.ZodNullable) ? field.value.nullable() : field.value;
  return field.note === undefined ? schema : schema.describe(field.note);
}

type Mapped<G extends FieldGroup, T> = { [K in keyof G]: T };
export function mapFields<G extends FieldGroup, T>(group: G, map: (field: G[keyof G]) => T): Mapped<G, T> {
  return Object.fromEntries(Object.entries(group).map(([name, field]) => [name, map(field as G[keyof G])])) as Mapped<G, T>;
}

export type InputsOf<G extends FieldGroup> = { [K in keyof G]: G[K]['input'] };
export const inputsOf = <G extends FieldGroup>(group: G) => mapFields(group, (field) => field.input) as InputsOf<G>;
export const answersOf = <G extends FieldGroup>(group: G) => mapFields(group, answerOf) as AnswersOf<G>;

/** The stored fields' values of a table, as its record holds them. */
export type ValuesOf<G extends FieldGroup> = { [K in keyof G]: z.output<G[K]['value']> };

/** The fields of a table that have a default. */
export type DefaultedOf<G extends FieldGroup> = { [K in keyof G]: G[K]['default'] extends undefined ? never : K }[keyof G];

/** What a new record stores for each field its create (or import) leaves out. */
export function defaultsOf<G extends FieldGroup>(group: G): Pick<ValuesOf<G>, DefaultedOf<G>> {
  return Object.fromEntries(Object.entries(group).flatMap(([name, field]) => (field.default === undefined ? [] : [[name, field.default]]))) as Pick<
    ValuesOf<G>,
    DefaultedOf<G>
  >;
}

/** The fields of `names` that `source` has (undefined ones left out), in the table's order. */
export function pickFields<T extends object, N extends string>(source: T, names: readonly N[]): Pick<T, N & keyof T> {
  const picked: Record<string, unknown> = {};
  for (const name of names) {
    const value = (source as Record<string, unknown>)[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked as Pick<T, N & keyof T>;
}

type CreateShapeOf<G extends FieldGroup> = { [K in keyof G]: G[K]['default'] extends undefined ? G[K]['input'] : z.ZodOptional<G[K]['input']> };

/** A create's fields: those without a default must be given, the rest may be left out. */
export function createShapeOf<G extends FieldGroup>(group: G): CreateShapeOf<G> {
  return mapFields(group, (field) => (field.default === undefined ? field.input : field.input.optional())) as CreateShapeOf<G>;
}
