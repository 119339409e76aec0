// Frozen. When each app could see a user's events: one row per stretch of a grant's life with one
// set of scopes (a new row when the scopes change), ended when the grant is revoked, and bounded
// by the grant's expiry and, for a grant whose tokens end with a browser session (no
// offline_access), by that session's. An app receives, replays or reads an event only when a row
// of its client and one of the system's users covered the event's time with the event's scope
// (src/events/eligibility.ts).
//
// Grants made before this migration get a row with unknown scopes (null) and an unknown start:
// the first use opens the sealed grant and fills both in (src/events/grant-periods.ts), since the
// scopes are sealed in the grant and a migration holds no key.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? (c: any) => c.primaryKey().generatedByDefaultAsIdentity() : (c: any) => c.primaryKey().autoIncrement();
  await db.schema
    .createTable('event_grant_periods')
    .addColumn('id', postgres ? 'bigint' : 'integer', id)
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // ' scope scope … ': padded with spaces, so `like '% alters:read %'` matches whole scopes.
    .addColumn('scopes', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('session_expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('event_grant_periods_client').on('event_grant_periods').columns(['client_id', 'account_id']).execute();
  await db.schema.createIndex('event_grant_periods_grant').on('event_grant_periods').columns(['grant_id']).execute();
  await sql`insert into event_grant_periods (grant_id, account_id, client_id, scopes, started_at, ended_at, expires_at, session_expires_at)
    select grant_id, account_id, client_id, null, 0, null, expires_at, null from oidc_payloads
    where model = 'Grant' and grant_id is not null and account_id is not null and client_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_grant_periods').execute();
}
