// `switchboard audit`: the audit log (src/domain/audit.ts), newest first, as a table or JSON.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Kysely } from 'kysely';
import { listAuditEntries } from '../db/repositories/audit-log.js';
import type { Schema } from '../db/tables.js';
import { AUDIT_KIND_DESCRIPTIONS, AUDIT_KINDS, type AuditEntry, type AuditKind } from '../domain/audit.js';
import { table } from './support.js';

interface AuditOptions {
  user?: string;
  client?: string;
  since?: number;
  kind?: AuditKind[];
  limit: number;
  json?: boolean;
}

export interface AuditCommandContext {
  out(text: string): void;
  withDatabase(action: (db: Kysely<Schema>) => unknown): Promise<void>;
}

const MAX_LIMIT = 10_000;

/** Adds `audit` to the program (through program.command, so it inherits exit and output handling). */
export function registerAuditCommand(program: Command, { out, withDatabase }: AuditCommandContext): void {
  program
    .command('audit')
    .description('show the audit log of security events, newest first')
    .option('--user <id>', 'only events of this Discord user id')
    .option('--client <id>', 'only events of this client id')
    .option('--since <date>', 'only events at or after this date or time (2026-11-01, or ISO 8601 with a time)', parseSince)
    .addOption(new Option('--kind <kinds>', 'only these kinds (comma-separated or repeated)').argParser(collectKinds))
    .option('--limit <n>', `at most this many events (1 to ${MAX_LIMIT})`, parseLimit, 50)
    .option('--json', 'print the events as a JSON array')
    .addHelpText('after', `\nKinds:\n${AUDIT_KINDS.map((kind) => `  ${kind.padEnd(22)} ${AUDIT_KIND_DESCRIPTIONS[kind]}`).join('\n')}`)
    .action((options: AuditOptions) =>
      withDatabase(async (db) => {
        const entries = await listAuditEntries(db, {
          userId: options.user,
          clientId: options.client,
          since: options.since,
          kinds: options.kind,
          limit: options.limit,
        });
        if (options.json) out(JSON.stringify(entries.map(entryJson), null, 2));
        else if (entries.length === 0) out('no audit events match');
        else out(table([['TIME (UTC)', 'KIND', 'USER', 'CLIENT', 'IP', 'DETAILS'], ...entries.map(entryRow)]));
      }),
    );
}

function entryJson(entry: AuditEntry) {
  return {
    at: new Date(entry.at).toISOString(),
    kind: entry.kind,
    user_id: entry.userId ?? null,
    client_id: entry.clientId ?? null,
    ip: entry.ip ?? null,
    details: entry.details ?? {},
  };
}

function entryRow(entry: AuditEntry): string[] {
  const details = Object.entries(entry.details ?? {})
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(' ') : String(value)}`)
    .join(', ');
  return [new Date(entry.at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ''), entry.kind, entry.userId ?? '-', entry.clientId ?? '-', entry.ip ?? '-', details];
}

/** A date (midnight UTC) or an ISO 8601 date and time. */
function parseSince(value: string): number {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidArgumentError('expected a date such as 2026-11-01, or an ISO 8601 time such as 2026-11-01T12:00:00Z');
  return at;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_LIMIT) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

function collectKinds(value: string, previous: AuditKind[] = []): AuditKind[] {
  const kinds = value.split(',').map((kind) => kind.trim()).filter(Boolean);
  const unknown = kinds.filter((kind) => !(AUDIT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown kind ${unknown.map((kind) => JSON.stringify(kind)).join(', ')}; one of ${AUDIT_KINDS.join(', ')}`);
  return [...previous, ...(kinds as AuditKind[])];
}
