// How the settings table (config.ts) becomes what start-up needs, so that a setting is declared
// once: the table has the Config's shape with each leaf naming its variable and the zod schema
// that reads it (default included); from it follow the zod object over the environment, the
// Config's type and the mapping from the parsed environment to the Config.
import type { z } from 'zod';

/** One environment variable and the zod schema that reads it, its default included. */
export class Setting<Variable extends string = string, Schema extends z.ZodType = z.ZodType> {
  constructor(
    readonly variable: Variable,
    readonly schema: Schema,
  ) {}
}

/**
 * Variables that only make sense together (a client id and its secret): the value is all of them,
 * or undefined when none is set; some set without the others stops start-up. The members' schemas
 * are declared as required; each is optional in the environment.
 */
export class Together<Members extends Record<string, Setting> = Record<string, Setting>> {
  constructor(readonly members: Members) {}
}

export function setting<const Variable extends string, Schema extends z.ZodType>(variable: Variable, schema: Schema): Setting<Variable, Schema> {
  return new Setting(variable, schema);
}

export function together<const Members extends Record<string, Setting>>(members: Members): Together<Members> {
  return new Together(members);
}

export interface SettingsTree {
  readonly [key: string]: Setting | Together | SettingsTree;
}

/** The value a table gives: its shape, with each leaf replaced by what its schema outputs. */
export type Resolved<T> =
  T extends Setting<string, infer Schema>
    ? z.output<Schema>
    : T extends Together<infer Members>
      ? { -readonly [K in keyof Members]: Resolved<Members[K]> } | undefined
      : { -readonly [K in keyof T]: Resolved<T[K]> };

type Leaves<T> =
  T extends Setting
    ? T
    : T extends Together<infer Members>
      ? { [K in keyof Members]: Members[K] extends Setting<infer Variable, infer Schema> ? Setting<Variable, z.ZodOptional<Schema>> : never }[keyof Members]
      : T extends SettingsTree
        ? { [K in keyof T]: Leaves<T[K]> }[keyof T]
        : never;

/** The shape of the zod object over the environment: each variable of the table, with its schema. */
export type EnvironmentShape<T> = {
  [Leaf in Leaves<T> as Leaf extends Setting<infer Variable> ? Variable : never]: Leaf extends Setting<string, infer Schema> ? Schema : never;
};

function each(tree: SettingsTree, visit: (node: Setting | Together, path: string[]) => void, path: string[] = []): void {
  for (const [key, node] of Object.entries(tree)) {
    if (node instanceof Setting || node instanceof Together) visit(node, [...path, key]);
    else each(node, visit, [...path, key]);
  }
}

/** The zod shape over the environment, in the table's order (which orders the error messages). */
export function environmentShape<T extends SettingsTree>(tree: T): EnvironmentShape<T> {
  const shape: Record<string, z.ZodType> = {};
  const add = (entry: Setting, path: string[]) => {
    if (entry.variable in shape) throw new Error(`${entry.variable} is declared twice in the settings table (again at ${path.join('.')})`);
    shape[entry.variable] = entry.schema;
  };
  each(tree, (node, path) => {
    if (node instanceof Setting) add(node, path);
    else for (const [key, member] of Object.entries(node.members)) add(new Setting(member.variable, member.schema.optional()), [...path, key]);
  });
  // The walk above builds exactly the mapped type, which TypeScript cannot follow through a loop.
  return shape as EnvironmentShape<T>;
}

/** Groups with some members set and others not: the first missing variable, and which go together. */
export function incompleteGroups(tree: SettingsTree, env: Record<string, unknown>): { missing: string; message: string }[] {
  const problems: { missing: string; message: string }[] = [];
  each(tree, (node) => {
    if (!(node instanceof Together)) return;
    const variables = Object.values(node.members).map((member) => member.variable);
    const missing = variables.filter((variable) => env[variable] === undefined);
    if (missing.length === 0 || missing.length === variables.length) return;
    const names = `${variables.slice(0, -1).join(', ')} and ${variables.at(-1)}`;
    problems.push({ missing: missing[0] as string, message: `${names} must be set together` });
  });
  return problems;
}

/** The table's value for a parsed environment: each leaf replaced by its variable's value. */
export function resolve<T extends SettingsTree>(tree: T, env: Record<string, unknown>): Resolved<T> {
  const value = (node: Setting | Together | SettingsTree): unknown => {
    if (node instanceof Setting) return env[node.variable];
    if (node instanceof Together) {
      const members = Object.entries(node.members).map(([key, member]) => [key, env[member.variable]] as const);
      return members.every(([, member]) => member !== undefined) ? Object.fromEntries(members) : undefined;
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, value(child)]));
  };
  // The walk mirrors Resolved<T> node for node; TypeScript cannot check a recursive walk against it.
  return value(tree) as Resolved<T>;
}
