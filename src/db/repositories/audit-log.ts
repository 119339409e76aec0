// The audit log's rows: appended by the service and the CLI, read newest first by `switchboard
// audit`, purged by age.
import type { Kysely } from 'kysely';
import type { AuditDetails, AuditEntry, AuditEvent, AuditKind } from '../../domain/audit.js';
import type { Schema } from '../tables.js';

type Db = Kysely<Schema>;

export async function insertAuditEntry(db: Db, event: AuditEvent, at: number): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at,
      kind: event.kind,
      user_id: event.userId ?? null,
      client_id: event.clientId ?? null,
      ip: event.ip ?? null,
      details: event.details && Object.keys(event.details).length > 0 ? JSON.stringify(event.details) : null,
    })
    .execute();
}

export interface AuditFilter {
  userId?: string | undefined;
  clientId?: string | undefined;
  /** Epoch milliseconds: entries at or after. */
  since?: number | undefined;
  kinds?: AuditKind[] | undefined;
  limit: number;
}

/** Entries matching every given filter, newest first. */
export async function listAuditEntries(db: Db, filter: AuditFilter): Promise<AuditEntry[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
  if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.kinds !== undefined && filter.kinds.length > 0) query = query.where('kind', 'in', filter.kinds);
  const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    kind: row.kind as AuditKind,
    userId: row.user_id ?? undefined,
    clientId: row.client_id ?? undefined,
    ip: row.ip ?? undefined,
    details: row.details === null ? undefined : (JSON.parse(row.details) as AuditDetails),
  }));
}

/** Deletes entries older than `before` (epoch milliseconds); returns how many. */
export async function purgeAuditLog(db: Db, before: number): Promise<number> {
  const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
