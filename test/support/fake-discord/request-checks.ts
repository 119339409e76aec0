// Checks a REST request's body as Discord does before any route sees it: against the schema of its
// row in request-table.ts (Discord's OpenAPI document) and the limits beside it, refusing with
// Discord's "Invalid Form Body" (code 50035) and every problem at its path, as
// `{"errors": {"embeds": {"0": {"url": {"_errors": [{code, message}]}}}}}`.
import type { IncomingMessage } from 'node:http';
import { safeParse, type ZodMiniType } from 'zod/mini';
import type { z } from 'zod';
import { HttpError } from './refusals.js';
import type { Path, Problems } from './request-limits.js';
import { rowFor, type RouteRow } from './request-table.js';
import type { Json } from './types.js';
import { readBody } from './routes/http.js';

interface DiscordError {
  code: string;
  message: string;
}

/** Problems gathered at their paths, as Discord nests them. */
class ErrorTree implements Problems {
  readonly root: Json = {};
  empty = true;

  add(path: Path, code: string, message: string): void {
    this.empty = false;
    let node = this.root;
    for (const key of path) {
      const name = String(key);
      node[name] ??= {};
      node = node[name] as Json;
    }
    ((node._errors ??= []) as DiscordError[]).push({ code, message });
  }
}

// The document's lengths are JSON Schema lengths, counted in code points as Discord counts them;
// zod counts UTF-16 units. Strings are checked in a view where each astral character is one unit.
// Permission bit sets are int64s, which the document types as numbers; Discord takes (and
// discord.js sends) them as strings of digits, so the view gives the schema their number.
const ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/g;
const HIGH_SURROGATE = /[\ud800-\udbff]/;
const INT64_STRINGS = new Set(['default_member_permissions', 'permissions']);
// Where the document lags Discord's own documentation: its ChannelTypes enum has no GUILD_MEDIA
// (16), which Discord documents and takes in a channel option's `channel_types`.
const GUILD_MEDIA = 16;
function codePointView(value: unknown, key?: string): unknown {
  if (key === 'channel_types' && Array.isArray(value)) return value.filter((type) => type !== GUILD_MEDIA);
  if (typeof value === 'string') {
    if (key !== undefined && INT64_STRINGS.has(key) && /^\d{1,20}$/.test(value)) return Number(value);
    return HIGH_SURROGATE.test(value) ? value.replace(ASTRAL, '\u2b1a') : value;
  }
  if (Array.isArray(value)) return value.map((item) => codePointView(item));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, codePointView(item, name)]));
  return value;
}

/** The value at `path` in `body`, to tell a missing field from a wrong one. */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let node = body;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  missing?: boolean;
  origin?: string;
  format?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  /** invalid_union: each branch's issues, paths relative to the union. */
  errors?: Issue[][];
}

/**
 * The issues to report: a union of objects told apart by `type` (components, options, callbacks)
 * reports the problems of the branch whose `type` matched, as Discord does, not "Invalid input".
 */
function flatten(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors) return [issue];
  const typeMatched = issue.errors.filter((branch) => !branch.some((inner) => inner.path.length === 1 && inner.path[0] === 'type'));
  if (typeMatched.length !== 1) return [issue];
  return (typeMatched[0] ?? []).flatMap((inner) => flatten({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** A zod issue in Discord's words (the codes Discord answers for the same refusals). */
function discordError(issue: Issue): DiscordError {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'number' ? { code: 'NUMBER_TYPE_MAX', message: `int value should be less than or equal to ${issue.maximum}.` } : { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${issue.maximum} or fewer in length.` };
    case 'too_small':
      return issue.origin === 'number' ? { code: 'NUMBER_TYPE_MIN', message: `int value should be greater than or equal to ${issue.minimum}.` } : { code: 'BASE_TYPE_MIN_LENGTH', message: `Must be ${issue.minimum} or more in length.` };
    case 'invalid_format':
      return issue.format === 'url' ? { code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' } : { code: 'BASE_TYPE_INVALID', message: issue.message };
    case 'invalid_type':
      return issue.missing ? { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } : { code: 'BASE_TYPE_INVALID', message: issue.message };
    case 'invalid_value':
    case 'invalid_union':
      return { code: 'BASE_TYPE_CHOICES', message: issue.message };
    default:
      return { code: 'BASE_TYPE_INVALID', message: issue.message };
  }
}

function checkSchema(schema: ZodMiniType | z.ZodType, body: unknown, errors: ErrorTree): boolean {
  const view = codePointView(body);
  const result = safeParse(schema as ZodMiniType, view);
  if (result.success) return true;
  for (const issue of (result.error.issues as Issue[]).flatMap(flatten)) {
    const { code, message } = discordError({ ...issue, missing: valueAt(view, issue.path) === undefined });
    errors.add(issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)), code, message);
  }
  return false;
}

function check(row: RouteRow, body: unknown): void {
  const errors = new ErrorTree();
  let schema = row.body;
  if (row.byType) {
    const type = typeof body === 'object' && body !== null ? (body as Json).type : undefined;
    schema = typeof type === 'number' ? (row.byType[type] ?? null) : null;
    if (!schema) errors.add(['type'], 'BASE_TYPE_CHOICES', `Value must be one of {${Object.keys(row.byType).join(', ')}}.`);
  }
  // Limits are checked only on a body of the right shape, as Discord reports shape problems first.
  if (schema && checkSchema(schema, body, errors)) for (const limit of row.limits ?? []) limit(body, errors);
  if (!errors.empty) throw new HttpError(400, { code: 50035, message: 'Invalid Form Body', errors: errors.root });
}

/**
 * The row of a request under /api/v{n} (`path` without that prefix), its body checked; undefined
 * when no row names the route (the server then fails a request a route serves: see server.ts).
 */
export async function checkRequest(req: IncomingMessage, path: string, raw: Buffer): Promise<RouteRow | undefined> {
  const row = rowFor(req.method ?? 'GET', path);
  if (!row || (!row.body && !row.byType)) return row;
  const { json } = await readBody(req, raw);
  check(row, json);
  return row;
}

/** The check alone, for tests of the fake's refusals. */
export function checkBody(method: string, path: string, body: unknown): void {
  const row = rowFor(method, path);
  if (!row) throw new Error(`no row for ${method} /${path}`);
  check(row, body);
}
