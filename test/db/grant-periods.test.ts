// The record of when each app could see a user's events (event_grant_periods) and the one rule
// read from it (mayReceive), on every dialect: a grant's scopes over time, its revocation, expiry
// and session, and a sub-account's grant.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { mayReceive, recordGrantSaved, recordGrantsBoundToSession, recordGrantsEnded } from '../../src/db/repositories/events/grant-periods.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const OWNER = '700000000000000021';
const SUB = '700000000000000022';
const T = 1_800_000_000_000;

describe.each(DIALECTS)('grant periods and the rule of who sees an event (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;

  /** Whether `client` may receive an event of `type` that happened at `at`, judged at `now`. */
  async function may(client: string, type: string, at: number, now: number): Promise<boolean> {
    const row = await sql<{ ok: unknown }>`select ${mayReceive({ client: sql.val(client), systemId: sql.val(systemId), eventType: sql.val(type), eventAt: sql.val(at) }, now)} as ok`.execute(database.db);
    const value = row.rows[0]?.ok;
    return value === true || Number(value) === 1;
  }
  const grantRow = (id: string, account: string, client: string) =>
    database.db.insertInto('oidc_payloads').values({ id_hash: `h-${id}`, model: 'Grant', payload: 'sealed', grant_id: id, uid_hash: null, user_code_hash: null, account_id: account, client_id: client, expires_at: null, consumed_at: null }).execute();
  const save = (grantId: string, accountId: string, clientId: string, scopes: string[], now: number, expiresAt: number | null = null) =>
    recordGrantSaved(database.db, { grantId, accountId, clientId, scopes, expiresAt, issuedAt: now, now });

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    for (const id of [OWNER, SUB]) await database.db.insertInto('users').values({ id, username: null, created_at: T, last_sign_in_at: null }).execute();
    systemId = (await database.db.insertInto('systems').values({ user_id: OWNER, name: 'S', created_at: T }).returning('id').executeTakeFirstOrThrow()).id;
    await database.db.insertInto('system_sub_accounts').values({ user_id: SUB, system_id: systemId }).execute();
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it('judges each event by the scopes of its own time, and stops everything at revocation', async () => {
    await grantRow('g-scopes', OWNER, 'app');
    await save('g-scopes', OWNER, 'app', ['openid', 'system:read'], T + 100);
    await save('g-scopes', OWNER, 'app', ['openid', 'system:read'], T + 150); // the same scopes: the same row
    await save('g-scopes', OWNER, 'app', ['openid', 'system:read', 'alters:read'], T + 200);
    expect(await database.db.selectFrom('event_grant_periods').select(['scopes', 'started_at', 'ended_at']).where('grant_id', '=', 'g-scopes').orderBy('id').execute()).toEqual([
      { scopes: ' openid system:read ', started_at: expect.anything(), ended_at: expect.anything() },
      { scopes: ' alters:read openid system:read ', started_at: expect.anything(), ended_at: null },
    ]);
    const now = T + 1000;
    expect(await may('app', 'system.updated', T + 50, now)).toBe(false); // before the grant
    expect(await may('app', 'system.updated', T + 120, now)).toBe(true);
    expect(await may('app', 'alter.updated', T + 120, now)).toBe(false); // before alters:read
    expect(await may('app', 'alter.updated', T + 250, now)).toBe(true);
    expect(await may('app', 'message.proxied', T + 250, now)).toBe(false); // never granted
    expect(await may('other-app', 'system.updated', T + 250, now)).toBe(false);

    await recordGrantsEnded(database.db, { grantIds: ['g-scopes'] }, T + 2000);
    expect(await may('app', 'alter.updated', T + 250, T + 1999)).toBe(true);
    expect(await may('app', 'alter.updated', T + 250, T + 2001)).toBe(false); // nothing more once revoked
    expect(await may('app', 'alter.updated', T + 2500, T + 2001)).toBe(false);
  });

  it('counts a sub-account’s grant, ends with the grant’s expiry and, without offline_access, with its session', async () => {
    await grantRow('g-sub', SUB, 'sub-app');
    await save('g-sub', SUB, 'sub-app', ['system:read'], T + 100, T + 500);
    expect(await may('sub-app', 'system.updated', T + 200, T + 300)).toBe(true);
    expect(await may('sub-app', 'system.updated', T + 600, T + 300)).toBe(false); // after its expiry

    await grantRow('g-session', OWNER, 'session-app');
    await save('g-session', OWNER, 'session-app', ['system:read'], T + 100);
    await recordGrantsBoundToSession(database.db, ['g-session'], T + 400);
    expect(await may('session-app', 'system.updated', T + 300, T + 350)).toBe(true);
    expect(await may('session-app', 'system.updated', T + 450, T + 350)).toBe(false);
    // Granted offline_access later: it outlives the session from then on.
    await save('g-session', OWNER, 'session-app', ['system:read', 'offline_access'], T + 380);
    expect(await may('session-app', 'system.updated', T + 450, T + 460)).toBe(true);
  });
});
