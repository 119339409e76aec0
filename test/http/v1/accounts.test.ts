// Several Discord accounts for one system (issue 29): the owning account makes one-time codes,
// another account redeems one with its own token, and then `{user}` as either id and `@me` from
// either token are the same system, for reads and writes; removal ends the removed account's
// grants and gives it a new, empty system. Over HTTP, on both databases, with these endpoints'
// authorization matrix (the shared matrix's fixtures cannot lend an account to another system).
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CODE_ALPHABET, ACCOUNT_CODE_LENGTH } from '../../../src/domain/accounts.js';
import type { Alter } from '../../../src/domain/alter.js';
import { SystemPrivacy } from '../../../src/domain/privacy-bits.js';
import type { System } from '../../../src/domain/system.js';
import { ALL_API_SCOPES, errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, type TestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { snapshotDatabase } from '../../support/snapshot.js';

let users = 0;
const newUserId = () => `2000000000000029${String(++users).padStart(2, '0')}`;
const CODE_PATTERN = new RegExp(`^[${ACCOUNT_CODE_ALPHABET}]{${ACCOUNT_CODE_LENGTH}}$`);

type Accounts = { data: { associatedUserId: string; subAccounts: string[] } };
const problem = (response: ApiResponse) => ({ status: response.status, types: errorTypes(response) });

describe.each(DIALECTS)('accounts of a system (%s)', (dialect) => {
  let server: TestServer;
  let bot: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    bot = await createTestClient(server, { name: 'Bot', firstParty: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const db = () => server.database.db;
  const newUser = () => signIn(server, newUserId(), { client: bot });
  const makeCode = async (owner: ApiUser) => {
    const made = await owner.call<{ data: { code: string; expiresAt: string } }>('POST', '/v1/users/@me/system/accounts/code');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.data;
  };
  const redeem = (user: ApiUser, body: unknown) => user.call<Accounts>('POST', '/v1/users/@me/system/accounts/redeem', body);
  const systemOf = async (user: ApiUser, as = '@me') => {
    const read = await user.call<{ data: System }>('GET', `/v1/users/${as}/system`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    return read.body.data;
  };
  /** An owner and a second account that joined its system. */
  async function joined() {
    const owner = await newUser();
    const second = await newUser();
    const { code } = await makeCode(owner);
    const answer = await redeem(second, { code });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ associatedUserId: owner.userId, subAccounts: [second.userId] });
    return { owner, second };
  }

  it('makes codes of 10 unambiguous characters valid for 10 minutes, stored only as a hash', async () => {
    const owner = await newUser();
    const before = Date.now();
    const { code, expiresAt } = await makeCode(owner);
    expect(code).toMatch(CODE_PATTERN);
    expect(Date.parse(expiresAt) - before).toBeGreaterThanOrEqual(10 * 60 * 1000 - 1000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(10 * 60 * 1000 + 5000);
    const rows = await db().selectFrom('system_account_codes').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(code);
    // Two codes differ.
    expect((await makeCode(owner)).code).not.toBe(code);
  });

  it('joins an account whose own system is empty, deleting that system, and both ids are one system from then on', async () => {
    const owner = await newUser();
    const second = await newUser();
    const ownSystem = await systemOf(second);
    const alter = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel' })).body;
    const { code } = await makeCode(owner);
    // Typed loosely: lower case, groups split by a dash or a space.
    const typed = `${code.slice(0, 5).toLowerCase()}-${code.slice(5)}`;
    const answer = await redeem(second, { code: typed });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ associatedUserId: owner.userId, subAccounts: [second.userId] });

    // The empty system is gone: nobody owns it any more.
    expect(await db().selectFrom('systems').select('id').where('user_id', '=', second.userId).executeTakeFirst()).toBeUndefined();
    // @me from either token, and {user} as either id, is the owner's system.
    for (const reader of [owner, second]) {
      for (const as of ['@me', owner.userId, second.userId]) {
        const system = await systemOf(reader, as);
        expect(system.associatedUserId).toBe(owner.userId);
        expect(system.subAccounts).toEqual([second.userId]);
        expect(system.redacted).toEqual([]);
      }
    }
    expect(String(ownSystem.associatedUserId)).toBe(second.userId);
    // isSelf for every account.
    const read = await second.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/${owner.userId}/alters/${alter.alterId}`);
    expect(read.status).toBe(200);
    expect(read.body.isSelf).toBe(true);
    // Writes: @me or either id, from either token.
    expect((await second.call('POST', `/v1/users/${owner.userId}/system/edit`, { systemDescription: 'by the second account' })).status).toBe(200);
    expect((await owner.call('POST', `/v1/users/${second.userId}/system/edit`, { systemPronouns: 'they' })).status).toBe(200);
    const created = await second.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'second', displayName: 'Second' });
    expect(created.status).toBe(201);
    expect(created.body.systemId).toBe(alter.systemId);
    const system = await systemOf(owner);
    expect(system).toMatchObject({ systemDescription: 'by the second account', systemPronouns: 'they' });
    expect(system.alterIds).toEqual([alter.alterId, created.body.alterId]);
  });

  it('uses a code once, refuses one past its time, and refuses what is not a code', async () => {
    const { owner } = await joined();
    const third = await newUser();
    const { code } = await makeCode(owner);
    // Redeemed once (by another account), it is gone.
    const fourth = await newUser();
    expect((await redeem(fourth, { code })).status).toBe(200);
    expect(problem(await redeem(third, { code }))).toEqual({ status: 422, types: ['invalid-account-code'] });
    // Past its ten minutes.
    const late = await makeCode(owner);
    await db().updateTable('system_account_codes').set({ expires_at: Date.now() - 1 }).where('system_id', '=', await systemIdOf(owner.userId)).execute();
    expect(problem(await redeem(third, { code: late.code }))).toEqual({ status: 422, types: ['invalid-account-code'] });
    for (const code of ['', 'short', 'O0O0O0O0O0', 'x'.repeat(65)]) {
      expect([400, 422], code).toContain((await redeem(third, { code })).status);
    }
    expect(problem(await redeem(third, { code: 'ABCDEFGHJK', extra: 1 }))).toEqual({ status: 400, types: ['validation'] });
    expect(problem(await redeem(third, {}))).toEqual({ status: 400, types: ['validation'] });
  });

  async function systemIdOf(userId: string): Promise<number> {
    const owned = await db().selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirst();
    const sub = await db().selectFrom('system_sub_accounts').select('system_id').where('user_id', '=', userId).executeTakeFirst();
    const id = owned?.id ?? sub?.system_id;
    if (id === undefined) throw new Error(`${userId} has no system`);
    return Number(id);
  }

  it('refuses an account whose system holds anything with 409 account-has-system, unless discardOwnSystem deletes it in the same transaction', async () => {
    const owner = await newUser();
    const second = await newUser();
    const kept = await second.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'mine', displayName: 'Mine' });
    expect(kept.status).toBe(201);
    const ownId = await systemIdOf(second.userId);
    const { code } = await makeCode(owner);
    const before = await snapshotDatabase(db());
    expect(problem(await redeem(second, { code }))).toEqual({ status: 409, types: ['account-has-system'] });
    expect(problem(await redeem(second, { code, discardOwnSystem: false }))).toEqual({ status: 409, types: ['account-has-system'] });
    // Nothing changed, and the code is still good.
    expect((await snapshotDatabase(db())).digest).toBe(before.digest);
    const answer = await redeem(second, { code, discardOwnSystem: true });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await db().selectFrom('alters').select('id').where('system_id', '=', ownId).execute()).toEqual([]);
    expect((await systemOf(second)).associatedUserId).toBe(owner.userId);
    // The second account's token lives on (its grants are its own), now for the joined system.
    expect((await second.call('GET', `/v1/users/@me/alters/${kept.body.alterId}`)).status).toBe(404);
  });

  it('keeps an account in one system: a member of another, or an owner others joined, is refused', async () => {
    const { owner, second } = await joined();
    const elsewhere = await newUser();
    // second already belongs to owner's system.
    expect(problem(await redeem(second, { code: (await makeCode(elsewhere)).code }))).toEqual({ status: 409, types: ['account-has-system'] });
    // owner's system has another account: owner cannot join elsewhere.
    expect(problem(await redeem(owner, { code: (await makeCode(elsewhere)).code, discardOwnSystem: true }))).toEqual({ status: 409, types: ['account-has-system'] });
    // Nor redeem a code of its own system.
    expect(problem(await redeem(second, { code: (await makeCode(owner)).code }))).toEqual({ status: 409, types: ['account-has-system'] });
  });

  it('lets only the owning account make codes and remove others; an account may remove itself; the owner never', async () => {
    const { owner, second } = await joined();
    const third = await newUser();
    expect((await redeem(third, { code: (await makeCode(owner)).code })).status).toBe(200);
    expect(problem(await second.call('POST', '/v1/users/@me/system/accounts/code'))).toEqual({ status: 403, types: ['not-matching-oauth'] });
    const remove = (actor: ApiUser, account: string, as = '@me') => actor.call<Accounts>('POST', `/v1/users/${as}/system/accounts/${account}/remove`);
    expect(problem(await remove(second, third.userId))).toEqual({ status: 403, types: ['not-matching-oauth'] });
    expect(problem(await remove(second, owner.userId))).toEqual({ status: 409, types: ['owner-account'] });
    expect(problem(await remove(owner, owner.userId))).toEqual({ status: 409, types: ['owner-account'] });
    expect(problem(await remove(owner, newUserId()))).toEqual({ status: 404, types: ['unknown-account'] });
    // Another user cannot remove anyone of this system.
    const stranger = await newUser();
    expect(problem(await remove(stranger, second.userId, owner.userId))).toEqual({ status: 403, types: ['not-matching-oauth'] });

    // The third account leaves by itself; the owner removes the second.
    const left = await remove(third, third.userId);
    expect(left.status, JSON.stringify(left.body)).toBe(200);
    expect(left.body.data).toEqual({ associatedUserId: owner.userId, subAccounts: [second.userId] });
    const removed = await remove(owner, second.userId, second.userId);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.data.subAccounts).toEqual([]);

    // Their grants ended at once: their tokens are refused.
    for (const gone of [second, third]) expect(problem(await gone.call('GET', '/v1/users/@me/system'))).toMatchObject({ status: 401 });
    // Each has a new, empty system of its own, which {user} as its id now names.
    const ownersSystem = await systemIdOf(owner.userId);
    for (const gone of [second, third]) {
      const system = await systemOf(owner, gone.userId);
      expect(system.associatedUserId).toBe(gone.userId);
      expect(system.alterIds).toEqual([]);
      expect(await systemIdOf(gone.userId)).not.toBe(ownersSystem);
    }
    expect((await systemOf(owner)).subAccounts).toEqual([]);
    // Signing in again works, into the new system.
    const back = await signIn(server, second.userId, { client: bot });
    expect((await systemOf(back)).associatedUserId).toBe(second.userId);
  });

  it('shows subAccounts to others only through the system privacy bit 256, off by default', async () => {
    const { owner, second } = await joined();
    const stranger = await newUser();
    const hidden = await systemOf(stranger, owner.userId);
    expect(hidden.subAccounts).toEqual([]);
    expect(hidden.redacted).toContain('subAccounts');
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: SystemPrivacy.subAccounts })).status).toBe(200);
    const shown = await systemOf(stranger, second.userId);
    expect(shown.subAccounts).toEqual([second.userId]);
    expect(shown.redacted).not.toContain('subAccounts');
  });

  it('names the acting account in events, which an app authorized by any account of the system receives', async () => {
    const { owner, second } = await joined();
    const app = await createTestClient(server, {
      name: 'Tracker',
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: ['openid', 'offline_access', 'system:read', 'alters:read', 'events:manage'],
    });
    // Only the second account authorized the app.
    await signIn(server, second.userId, { client: app, scope: 'openid offline_access system:read alters:read' });
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { systemDescription: 'by the owner' })).status).toBe(200);
    expect((await second.call('POST', `/v1/users/${owner.userId}/system/edit`, { systemDescription: 'by the second' })).status).toBe(200);
    const systemId = String(await systemIdOf(owner.userId));
    type FeedEvent = { type: string; data: { systemId: string; userId: string; actor: { accountId: string | null }; system?: System } };
    const events: FeedEvent[] = [];
    let after = '0';
    for (;;) {
      const page = await request<{ data: { events: FeedEvent[]; next: string; more: boolean } }>(server, 'GET', `/v1/events/feed?after=${after}&max=500`, { token: appToken });
      expect(page.status).toBe(200);
      events.push(...page.body.data.events.filter((event) => event.data.systemId === systemId));
      after = page.body.data.next;
      if (!page.body.data.more) break;
    }
    const edits = events.filter((event) => event.type === 'system.updated' && event.data.system?.systemDescription?.startsWith('by the'));
    expect(edits.map((event) => [event.data.system?.systemDescription, event.data.actor.accountId, event.data.userId])).toEqual([
      ['by the owner', owner.userId, owner.userId],
      ['by the second', second.userId, owner.userId],
    ]);
  });

  it('scopes an autoproxy entry to one account, over the system’s entry of that scope, in that account’s proxy profile only', async () => {
    const guild = '300000000000002901';
    const { owner, second } = await joined();
    const kestrel = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel' })).body;
    type Entry = { serverId: string; autoproxyMode: string; account: string | null };
    const set = (user: ApiUser, body: Record<string, unknown>) => user.call<{ data: Entry }>('POST', '/v1/users/@me/autoproxy', body);
    expect((await set(owner, { serverId: guild, autoproxyMode: 'alter', autoproxyAlter: kestrel.alterId })).body.data).toMatchObject({ account: null });
    const own = await set(second, { serverId: guild, account: second.userId, autoproxyMode: 'off' });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.data).toMatchObject({ serverId: guild, autoproxyMode: 'off', account: second.userId });
    expect(problem(await set(owner, { serverId: guild, account: newUserId(), autoproxyMode: 'off' }))).toEqual({ status: 404, types: ['unknown-account'] });

    const listed = (await owner.call<{ data: Entry[] }>('GET', '/v1/users/@me/autoproxy')).body.data;
    expect(listed.map((entry) => [entry.serverId, entry.account, entry.autoproxyMode])).toEqual([
      [guild, null, 'alter'],
      [guild, second.userId, 'off'],
    ]);
    const profileOf = async (user: ApiUser) => (await user.call<{ autoproxy: Entry[] }>('GET', `/v1/users/@me/proxy-profile?guild=${guild}`)).body.autoproxy;
    expect((await profileOf(owner)).map((entry) => [entry.autoproxyMode, entry.account])).toEqual([['alter', null]]);
    expect((await profileOf(second)).map((entry) => [entry.autoproxyMode, entry.account])).toEqual([['off', second.userId]]);

    // The engine's state change names the account's entry (as stateChangeFor sends it), and moves that one only.
    const latch = await set(second, { serverId: `${guild}/400000000000002901`, account: second.userId, autoproxyMode: 'latch' });
    const revision = (latch.body.data as Entry & { revision: number }).revision;
    const state = (account?: string) =>
      second.call<{ applied: boolean }>('POST', '/v1/users/@me/autoproxy/state', {
        serverId: `${guild}/400000000000002901`,
        ...(account ? { account } : {}),
        revision,
        at: new Date().toISOString(),
        latch: { alterId: kestrel.alterId },
      });
    expect((await state()).body).toMatchObject({ applied: false });
    expect((await state(second.userId)).body).toMatchObject({ applied: true });
    expect((await second.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: `${guild}/400000000000002901`, account: second.userId })).body).toEqual({ removed: true });

    // Removing the account's own entry brings the system's back for it; removing the account takes its entries.
    expect((await second.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: guild, account: second.userId })).body).toEqual({ removed: true });
    expect((await profileOf(second)).map((entry) => entry.autoproxyMode)).toEqual(['alter']);
    expect((await set(second, { serverId: guild, account: second.userId, autoproxyMode: 'front' })).status).toBe(200);
    expect((await owner.call('POST', `/v1/users/@me/system/accounts/${second.userId}/remove`)).status).toBe(200);
    expect((await owner.call<{ data: Entry[] }>('GET', '/v1/users/@me/autoproxy')).body.data.map((entry) => entry.account)).toEqual([null]);
  });

  describe('authorization', () => {
    const ENDPOINTS = [
      { path: '/v1/users/{user}/system/accounts/code', body: {} },
      { path: '/v1/users/{user}/system/accounts/redeem', body: { code: 'ABCDEFGHJK' } },
      { path: `/v1/users/{user}/system/accounts/200000000000002999/remove`, body: {} },
    ];

    it.each(ENDPOINTS)('$path: needs a token, system:write, a user token and the caller’s own system', async ({ path, body }) => {
      const owner = await newUser();
      const stranger = await newUser();
      const at = (user: string) => path.replace('{user}', user);
      expect(problem(await request(server, 'POST', at('@me'), { body }))).toEqual({ status: 401, types: ['no-access-token'] });
      const readOnly = await signIn(server, owner.userId, { client: bot, scope: ['openid', ...ALL_API_SCOPES.split(' ').filter((scope) => scope !== 'system:write')].join(' ') });
      expect(problem(await readOnly.call('POST', at('@me'), body))).toEqual({ status: 403, types: ['invalid-scopes'] });
      const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['system:write'] });
      const machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: 'system:write' })).access_token;
      expect(problem(await request(server, 'POST', at(owner.userId), { token: machineToken, body }))).toEqual({ status: 403, types: ['user-token-required'] });
      expect(problem(await stranger.call('POST', at(owner.userId), body))).toEqual({ status: 403, types: ['not-matching-oauth'] });
    });
  });
});
