// When each app could see a user's events (event_grant_periods, migration 2026-11-27T10): kept by
// the storage of the authorization server's grants (auth/adapter.ts, oidc-payloads.ts) and read by
// every path that lets an app see an event (the dispatcher, replays, the feed) through one rule,
// `mayReceive` below.
import { sql, type Expression, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { EVENT_SCOPES, EVENT_TYPES } from '../../../domain/events.js';
import type { Schema } from '../../tables.js';

type Executor = Kysely<Schema> | Transaction<Schema>;

/** ' a b c ': sorted, space-padded, so `like '% scope %'` matches whole scopes only. */
export function paddedScopes(scopes: Iterable<string>): string {
  const list = [...new Set([...scopes].filter(Boolean))].sort();
  return ` ${list.join(' ')} `;
}

export interface GrantSaved {
  grantId: string;
  accountId: string;
  clientId: string;
  scopes: string[];
  /** The grant's expiry (ms), null for none. */
  expiresAt: number | null;
  /** When the grant was first made (ms): the start of a row that had none (made before the table). */
  issuedAt: number;
  now: number;
}

/**
 * A grant was saved: its open row goes on when the scopes are the same (with the new expiry), and
 * otherwise ends now and a row with the new scopes starts now, so that an event is judged by the
 * scopes of its own time.
 */
export async function recordGrantSaved(db: Executor, grant: GrantSaved): Promise<void> {
  const scopes = paddedScopes(grant.scopes);
  const open = await db
    .selectFrom('event_grant_periods')
    .select(['id', 'scopes', 'session_expires_at'])
    .where('grant_id', '=', grant.grantId)
    .where('ended_at', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (open && (open.scopes === scopes || open.scopes === null)) {
    await db
      .updateTable('event_grant_periods')
      .set({ expires_at: grant.expiresAt, ...(open.scopes === null ? { scopes, started_at: grant.issuedAt } : {}) })
      .where('id', '=', open.id)
      .execute();
    return;
  }
  if (open) await db.updateTable('event_grant_periods').set({ ended_at: grant.now }).where('id', '=', open.id).execute();
  await db
    .insertInto('event_grant_periods')
    .values({
      grant_id: grant.grantId,
      account_id: grant.accountId,
      client_id: grant.clientId,
      scopes,
      started_at: grant.now,
      ended_at: null,
      expires_at: grant.expiresAt,
      // A grant that now holds offline_access outlives the session; otherwise the binding carries over.
      session_expires_at: grant.scopes.includes('offline_access') ? null : (open?.session_expires_at ?? null),
    })
    .execute();
}

/** A grant's end moved (a token request slid it). */
export async function recordGrantExpiry(db: Executor, grantId: string, expiresAt: number): Promise<void> {
  await db.updateTable('event_grant_periods').set({ expires_at: expiresAt }).where('grant_id', '=', grantId).where('ended_at', 'is', null).execute();
}

/** Grants revoked (by id, or every grant of a deleted client): their rows end now. */
export async function recordGrantsEnded(db: Executor, which: { grantIds: string[] } | { clientId: string }, now: number): Promise<void> {
  if ('grantIds' in which && which.grantIds.length === 0) return;
  await db
    .updateTable('event_grant_periods')
    .set({ ended_at: now })
    .where('ended_at', 'is', null)
    .$if('grantIds' in which, (q) => q.where('grant_id', 'in', 'grantIds' in which ? which.grantIds : []))
    .$if('clientId' in which, (q) => q.where('client_id', '=', 'clientId' in which ? which.clientId : ''))
    .execute();
}

/**
 * Grants whose tokens end with a browser session (oidc-provider's authorizations without
 * `persistsLogout`: no offline_access): their events end when the session does. Sign-out revokes
 * them (auth/browser-session.ts); this bounds them by the session's expiry when nobody signs out.
 */
export async function recordGrantsBoundToSession(db: Executor, grantIds: string[], sessionExpiresAt: number): Promise<void> {
  if (grantIds.length === 0) return;
  await db
    .updateTable('event_grant_periods')
    .set({ session_expires_at: sessionExpiresAt })
    .where('grant_id', 'in', grantIds)
    .where('ended_at', 'is', null)
    .execute();
}

/** Rows made before the table existed, whose scopes are still sealed in the grant: for `clientId`, with their grant. */
export async function unreadGrantPeriods(db: Executor, clientId: string): Promise<Array<{ id: number; idHash: string | null; payload: string | null }>> {
  const rows = await db
    .selectFrom('event_grant_periods as p')
    .leftJoin('oidc_payloads as g', (join) => join.onRef('g.grant_id', '=', 'p.grant_id').on('g.model', '=', 'Grant'))
    .select(['p.id', 'g.id_hash', 'g.payload'])
    .where('p.client_id', '=', clientId)
    .where('p.scopes', 'is', null)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), idHash: row.id_hash, payload: row.payload }));
}

export async function fillGrantPeriod(db: Executor, id: number, scopes: string[], startedAt: number): Promise<void> {
  await db.updateTable('event_grant_periods').set({ scopes: paddedScopes(scopes), started_at: startedAt }).where('id', '=', id).where('scopes', 'is', null).execute();
}

/** Deletes rows that ended before `before` (nothing older is kept to be judged by them). */
export async function purgeGrantPeriods(db: Executor, before: number): Promise<void> {
  await db
    .deleteFrom('event_grant_periods')
    .where((eb) =>
      eb.or([
        eb('ended_at', '<', before),
        eb('expires_at', '<', before),
        eb('session_expires_at', '<', before),
      ]),
    )
    .execute();
}

// ---------------------------------------------------------------------------------------------
// The rule

/** SQL: the scope an event of type `type` needs (EVENT_SCOPES). */
export function scopeOfType(type: Expression<string>): RawBuilder<string> {
  return sql<string>`case ${type} ${sql.join(
    EVENT_TYPES.map((t) => sql`when ${sql.lit(t)} then ${sql.lit(EVENT_SCOPES[t])}`),
    sql` `,
  )} end`;
}

/**
 * SQL: whether one of the system's users (its owner or a sub-account) had a grant to the client
 * that was live at `at` and held `scope` (any scope when undefined). A number is "now", a column
 * an event's time.
 */
export function grantCovered(
  client: Expression<string>,
  systemId: Expression<number>,
  at: Expression<number> | number,
  scope?: Expression<string>,
  options: { endingThen?: boolean } = {},
): RawBuilder<boolean> {
  const time = typeof at === 'number' ? sql.val(at) : at;
  // endingThen: a grant that ended at that very instant counts (a system's deletion ends them).
  const ended = options.endingThen ? sql`p.ended_at >= ${time}` : sql`p.ended_at > ${time}`;
  return sql<boolean>`exists (select 1 from event_grant_periods p
    where p.client_id = ${client}
      and (p.account_id = (select s.user_id from systems s where s.id = ${systemId})
        or p.account_id in (select sub.user_id from system_sub_accounts sub where sub.system_id = ${systemId}))
      and p.started_at <= ${time}
      and (p.ended_at is null or ${ended})
      and (p.expires_at is null or p.expires_at > ${time})
      and (p.session_expires_at is null or p.session_expires_at > ${time})
      ${scope === undefined ? sql`` : sql`and p.scopes like ${sql.lit('% ')} || ${scope} || ${sql.lit(' %')}`}
      ${
        typeof at === 'number'
          ? // Now: the grant itself must still be stored, however it was removed.
            sql`and exists (select 1 from oidc_payloads g where g.grant_id = p.grant_id and g.model = ${sql.lit('Grant')} and (g.expires_at is null or g.expires_at > ${time}))`
          : sql``
      })`;
}

/**
 * The one rule of who sees an event, for the feed, every delivery and every replay: an app sees an
 * event only if, when the event happened, a grant of one of the system's users to it was live and
 * held the scope the event needs, and such a grant is still live now (a revocation or a removed
 * scope stops what was not yet sent).
 *
 * One exception: `system.deleted`. Deleting a system revokes every grant of its users in the same
 * transaction, so no grant is live afterwards; the event goes to the apps whose grant (with
 * `system:read`) was live until that instant, so that they learn to forget what they kept. The
 * deletion moves the system's grant periods to the tombstone's placeholder owner
 * (system-deletion.ts), so an app the same person authorizes later is not among them.
 */
export function mayReceive(
  refs: { client: Expression<string>; systemId: Expression<number>; eventType: Expression<string>; eventAt: Expression<number> },
  now: number,
): RawBuilder<boolean> {
  const scope = scopeOfType(refs.eventType);
  return sql<boolean>`(case when ${refs.eventType} = ${sql.lit('system.deleted')}
    then ${grantCovered(refs.client, refs.systemId, refs.eventAt, scope, { endingThen: true })}
    else (${grantCovered(refs.client, refs.systemId, refs.eventAt, scope)} and ${grantCovered(refs.client, refs.systemId, now, scope)}) end)`;
}

export interface DeliveryAccess {
  /** The rule (mayReceive) holds. */
  allowed: boolean;
  /** Some grant of the system's users to the client is live now (whatever its scopes). */
  authorizedNow: boolean;
  /** A grant was live when the event happened (whatever its scopes). */
  authorizedThen: boolean;
  /** The client has grants whose scopes are still sealed (made before event_grant_periods): read them first. */
  unread: boolean;
}

/** What the rule says of one delivery now, with what the log's reason needs. */
export async function deliveryAccess(db: Executor, deliveryId: number, now: number): Promise<DeliveryAccess | undefined> {
  const refs = { client: sql.ref<string>('e.client_id'), systemId: sql.ref<number>('ev.system_id'), eventType: sql.ref<string>('ev.type'), eventAt: sql.ref<number>('ev.created_at') };
  const row = await db
    .selectFrom('event_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .innerJoin('event_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      mayReceive(refs, now).as('allowed'),
      // As mayReceive: a system's last event is judged by the grant that ended with the system.
      sql<boolean>`(case when ev.type = ${sql.lit('system.deleted')} then ${grantCovered(refs.client, refs.systemId, refs.eventAt, undefined, { endingThen: true })} else ${grantCovered(refs.client, refs.systemId, now)} end)`.as('authorized_now'),
      sql<boolean>`(case when ev.type = ${sql.lit('system.deleted')} then ${grantCovered(refs.client, refs.systemId, refs.eventAt, undefined, { endingThen: true })} else ${grantCovered(refs.client, refs.systemId, refs.eventAt)} end)`.as('authorized_then'),
      sql<boolean>`exists (select 1 from event_grant_periods u where u.client_id = e.client_id and u.scopes is null)`.as('unread'),
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row) return undefined;
  // SQLite answers 0/1, PostgreSQL booleans.
  const yes = (value: unknown) => value === true || Number(value) === 1;
  return { allowed: yes(row.allowed), authorizedNow: yes(row.authorized_now), authorizedThen: yes(row.authorized_then), unread: yes(row.unread) };
}
