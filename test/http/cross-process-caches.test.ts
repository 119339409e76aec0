// Two service processes on one database: each holds verified tokens and `{user}` → system (with
// the system's privacy settings) in memory. What one process changes must be in effect in the
// other at once: the next request after the change's answer. A token revoked through one is
// refused by the other; a privacy setting changed through one hides the data in the other; a
// process's cache never answers with what the other has changed since (PostgreSQL: LISTEN/NOTIFY;
// SQLite: the file's data version). The dashboard's backend refreshes a due session in one process
// only (a refresh token is used once; a second use would be taken for theft and end the grant).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { loadSecrets } from '../../src/config/secrets.js';
import { openDatabase } from '../../src/db/database.js';
import { dashboardCookieNames } from '../../src/dashboard/routes.js';
import type { Tokens } from '../../src/dashboard/sessions.js';
import { ALTER_PRIVACY_MASK, SYSTEM_PRIVACY_MASK, SystemPrivacy } from '../../src/domain/privacy-bits.js';
import { createStorageCrypto } from '../../src/security/crypto.js';
import { ALL_API_SCOPES } from '../support/api.js';
import { TestBrowser } from '../support/browser.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { createTestClient, obtainTokens, type TestClient } from '../support/oauth.js';
import { freePort, type TestServer } from '../support/server.js';
import { startService, stopService, waitReady, type Service } from '../support/service-process.js';

const OWNER = '310000000000000001';
const READER = '310000000000000002';
const DASHBOARD_USER = '310000000000000003';
const DASHBOARD_COOKIE = dashboardCookieNames(false).session;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(DIALECTS)('two service processes on one database (%s)', (dialect) => {
  let testDatabase: TestDatabase | undefined;
  let dataDir: string | undefined;
  const services: Service[] = [];
  /** The process that takes the changes and the one that must see them. */
  let first = '';
  let second = '';
  let client: TestClient;
  let botClient: TestClient;
  /** The environment of the processes (the last one's; they share all but the port). */
  let env: Record<string, string> = {};

  async function signIn(userId: string) {
    const { tokens } = await obtainTokens(client, { userId, scope: `openid offline_access ${ALL_API_SCOPES}` });
    return tokens.access_token;
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    testDatabase = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-two-processes-'));
    const ports = [await freePort(), await freePort()];
    [first, second] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];
    for (const port of ports) {
      env = {
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        // One issuer for both: they are two processes of one deployment.
        PUBLIC_URL: first,
        DATA_DIR: dataDir,
        DATABASE_URL: testDatabase.url,
        AUTH_DEV_LOGIN: 'true',
        RATE_LIMIT_ENABLED: 'false',
        LOG_LEVEL: 'silent',
      };
      const service = startService(env);
      services.push(service);
      // One after the other: the first one creates the keys and migrates.
      await waitReady(service, `http://127.0.0.1:${port}`);
    }
    const registration = openDatabase(testDatabase.url);
    try {
      const server = { url: first, database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer;
      client = await createTestClient(server);
      botClient = await createTestClient(server, { name: 'Bot', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['guilds:manage'], firstParty: true });
    } finally {
      await registration.close();
    }
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await stopService(service);
    await testDatabase?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a token in one process as soon as the other has revoked it', { timeout: 60_000 }, async () => {
    const token = await signIn(OWNER);
    // Both processes have verified (and remembered) the token.
    for (const base of [first, second, first, second]) expect((await call(base, token, 'GET', '/v1/users/@me/system')).status).toBe(200);

    await oidc.tokenRevocation(client.config, token);

    const refused = await call(second, token, 'GET', '/v1/users/@me/system');
    expect(refused.status).toBe(401);
    expect((await call(first, token, 'GET', '/v1/users/@me/system')).status).toBe(401);
  });

  it('refuses a deleted system’s tokens in the other process at once, and answers that its user has no system there', { timeout: 60_000 }, async () => {
    const leaving = '310000000000000003';
    const token = await signIn(leaving);
    const reader = await signIn(READER);
    // Both processes have verified the token and resolved the user to the system.
    for (const base of [first, second, first, second]) {
      expect((await call(base, token, 'GET', '/v1/users/@me/system')).status).toBe(200);
      expect((await call(base, reader, 'GET', `/v1/users/${leaving}/system`)).status).toBe(200);
    }

    expect((await call(first, token, 'POST', '/v1/users/@me/system/delete', { confirm: true })).status).toBe(200);

    expect((await call(second, token, 'GET', '/v1/users/@me/system')).status).toBe(401);
    const gone = await call(second, reader, 'GET', `/v1/users/${leaving}/system`);
    expect({ status: gone.status, body: gone.body }).toMatchObject({ status: 404, body: { errors: [{ type: 'no-system' }] } });
  });

  it('resolves an account that joined or left a system through one process at once in the other', { timeout: 60_000 }, async () => {
    const owning = '310000000000000004';
    const joining = '310000000000000005';
    const ownerToken = await signIn(owning);
    const joiningToken = await signIn(joining);
    const reader = await signIn(READER);
    const associated = async (base: string, token: string, user: string) => ((await call(base, token, 'GET', `/v1/users/${user}/system`)).body.data as { associatedUserId?: string } | undefined)?.associatedUserId;
    // Both processes have resolved the joining account to its own system.
    for (const base of [first, second, first, second]) {
      expect(await associated(base, joiningToken, '@me')).toBe(joining);
      expect(await associated(base, reader, joining)).toBe(joining);
    }
    const code = await call(first, ownerToken, 'POST', '/v1/users/@me/system/accounts/code');
    expect(code.status).toBe(201);
    const joined = await call(first, joiningToken, 'POST', '/v1/users/@me/system/accounts/redeem', { code: (code.body.data as { code: string }).code });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    // The other process answers with the joined system at once, for the account itself and for others.
    expect(await associated(second, joiningToken, '@me')).toBe(owning);
    expect(await associated(second, reader, joining)).toBe(owning);
    expect((await call(second, joiningToken, 'POST', `/v1/users/${owning}/system/edit`, { systemPronouns: 'we' })).status).toBe(200);

    // Removed through the second process: the first refuses its token and resolves it to its new system.
    for (const base of [first, second]) expect(await associated(base, reader, joining)).toBe(owning);
    expect((await call(second, ownerToken, 'POST', `/v1/users/@me/system/accounts/${joining}/remove`)).status).toBe(200);
    expect((await call(first, joiningToken, 'GET', '/v1/users/@me/system')).status).toBe(401);
    expect(await associated(first, reader, joining)).toBe(joining);
  });

  it('applies a privacy change made through one process at once in the other, both ways', { timeout: 60_000 }, async () => {
    const owner = await signIn(OWNER);
    const reader = await signIn(READER);
    const everything = SYSTEM_PRIVACY_MASK;
    const shown = await call(first, owner, 'POST', '/v1/users/@me/system/edit', { systemDescription: 'about us', public: everything });
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    const created = await call(first, owner, 'POST', '/v1/users/@me/system/create-alter', { username: 'ash', displayName: 'Ash', public: ALTER_PRIVACY_MASK });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    // The reader's view, read twice through the second process so that it is cached there.
    for (let read = 0; read < 2; read++) {
      const system = await call(second, reader, 'GET', `/v1/users/${OWNER}/system`);
      expect(system.body.data).toMatchObject({ systemDescription: 'about us' });
      expect((await call(second, reader, 'GET', `/v1/users/${OWNER}/system/list-alters`)).status).toBe(200);
    }

    // Hidden through the first process: the second answers with the new settings at once.
    const hidden = await call(first, owner, 'POST', '/v1/users/@me/system/edit', { public: everything & ~SystemPrivacy.description & ~SystemPrivacy.alters });
    expect(hidden.status).toBe(200);
    const afterHiding = await call(second, reader, 'GET', `/v1/users/${OWNER}/system`);
    expect(afterHiding.status).toBe(200);
    expect(afterHiding.body.data).toMatchObject({ associatedUserId: OWNER });
    expect((afterHiding.body.data as Record<string, unknown>).systemDescription ?? null).toBeNull();
    expect((await call(second, reader, 'GET', `/v1/users/${OWNER}/system/list-alters`)).status).not.toBe(200);

    // And back, this time changed through the second process and read through the first.
    for (let read = 0; read < 2; read++) await call(first, reader, 'GET', `/v1/users/${OWNER}/system`);
    expect((await call(second, owner, 'POST', '/v1/users/@me/system/edit', { public: everything })).status).toBe(200);
    expect((await call(first, reader, 'GET', `/v1/users/${OWNER}/system`)).body.data).toMatchObject({ systemDescription: 'about us' });
    expect((await call(first, reader, 'GET', `/v1/users/${OWNER}/system/list-alters`)).status).toBe(200);
  });

  // The lists of alters hold profile field values in memory (db/repositories/profile-value-cache.ts).
  it('shows a profile field value or privacy changed through one process on the other’s next list', { timeout: 60_000 }, async () => {
    const owning = '310000000000000006';
    const owner = await signIn(owning);
    const reader = await signIn(READER);
    expect((await call(first, owner, 'POST', '/v1/users/@me/system/edit', { public: SYSTEM_PRIVACY_MASK })).status).toBe(200);
    const field = await call(first, owner, 'POST', '/v1/users/@me/system/create-profile-field', { name: 'Likes', privacy: 'everyone' });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const fieldId = String(field.body.fieldId);
    const alterBody = { username: 'fielded', displayName: 'F', public: ALTER_PRIVACY_MASK, profileFields: { [fieldId]: 'tea' } };
    const created = await call(first, owner, 'POST', '/v1/users/@me/system/create-alter', alterBody);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const valuesOn = async (base: string, token: string, of: string) => {
      const listed = await fetch(`${base}/v1/users/${of}/system/list-alters`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);
      const alters = (await listed.json()) as Array<{ alterId: number; profileFields: Record<string, string> }>;
      return alters.find((alter) => alter.alterId === created.body.alterId)?.profileFields;
    };
    // Read twice through the second process, by the owner and by another user, so that both are held there.
    for (let read = 0; read < 2; read++) {
      expect(await valuesOn(second, owner, '@me')).toEqual({ [fieldId]: 'tea' });
      expect(await valuesOn(second, reader, owning)).toEqual({ [fieldId]: 'tea' });
    }

    const edited = await call(first, owner, 'POST', `/v1/users/@me/alters/${String(created.body.alterId)}/edit`, { profileFields: { [fieldId]: 'coffee' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(await valuesOn(second, owner, '@me')).toEqual({ [fieldId]: 'coffee' });
    expect(await valuesOn(second, reader, owning)).toEqual({ [fieldId]: 'coffee' });

    // Made private through the second process: the first, which holds the values too, hides them at once.
    for (let read = 0; read < 2; read++) expect(await valuesOn(first, reader, owning)).toEqual({ [fieldId]: 'coffee' });
    expect((await call(second, owner, 'POST', `/v1/users/@me/profile-fields/${fieldId}/edit`, { privacy: 'owner' })).status).toBe(200);
    expect(await valuesOn(first, reader, owning)).toEqual({});
    expect(await valuesOn(first, owner, '@me')).toEqual({ [fieldId]: 'coffee' });
  });

  it('tells a server settings change made through one process on the next proxy profile answer of the other', { timeout: 60_000 }, async () => {
    const guild = '130000000000000001';
    const owner = await signIn(OWNER);
    const bot = (await oidc.clientCredentialsGrant(botClient.config, { scope: 'guilds:manage' })).access_token;
    const profile = async (base: string, etag?: string) => {
      const response = await fetch(`${base}/v1/users/@me/proxy-profile?guild=${guild}`, { headers: { authorization: `Bearer ${owner}`, ...(etag ? { 'if-none-match': etag } : {}) } });
      await response.arrayBuffer();
      return { status: response.status, etag: response.headers.get('etag') ?? '', revision: response.headers.get('switchboard-guild-settings-revision') };
    };
    const { etag } = await profile(second);
    // Read twice through the second process so that the revision is held there.
    for (let read = 0; read < 2; read++) expect(await profile(second, etag)).toMatchObject({ status: 304, revision: '0' });
    const edited = await call(first, bot, 'POST', `/v1/guilds/${guild}/settings/edit`, { actor: { userId: OWNER, permission: 'manage-guild' }, requireTag: true });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(await profile(second, etag)).toMatchObject({ status: 304, revision: '1' });
    expect((await call(second, bot, 'GET', `/v1/guilds/${guild}/settings`)).body).toMatchObject({ revision: 1, requireTag: { enabled: true } });
  });

  // The revision is cached apart from the system's record (SystemLookup.revisionOf): an alter
  // write through one process must move the other's, while its record stays held.
  it('moves the proxy profile of the other process at once when an alter is created or edited through one', { timeout: 60_000 }, async () => {
    const guild = '130000000000000002';
    const owner = await signIn(OWNER);
    const profile = async (base: string, etag?: string) => {
      const response = await fetch(`${base}/v1/users/@me/proxy-profile?guild=${guild}`, { headers: { authorization: `Bearer ${owner}`, ...(etag ? { 'if-none-match': etag } : {}) } });
      type Body = { revision: number; alters: Array<{ username: string }> };
      const body = response.status === 200 ? ((await response.json()) as Body) : (await response.arrayBuffer(), undefined);
      return { status: response.status, etag: response.headers.get('etag') ?? '', body };
    };
    let { etag } = await profile(second);
    for (let read = 0; read < 2; read++) expect((await profile(second, etag)).status).toBe(304);
    const created = await call(first, owner, 'POST', '/v1/users/@me/system/create-alter', { username: 'crossrev', displayName: 'Cross' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const afterCreate = await profile(second, etag);
    expect(afterCreate.status).toBe(200);
    expect(afterCreate.body?.alters.map((alter) => alter.username)).toContain('crossrev');
    etag = afterCreate.etag;
    expect((await profile(second, etag)).status).toBe(304);
    const edited = await call(first, owner, 'POST', `/v1/users/@me/alters/${String(created.body.alterId)}/edit`, { username: 'crossrev2' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const afterEdit = await profile(second, etag);
    expect(afterEdit.status).toBe(200);
    expect(afterEdit.body?.revision).toBeGreaterThan(afterCreate.body?.revision ?? Infinity);
    expect(afterEdit.body?.alters.map((alter) => alter.username)).toContain('crossrev2');
  });

  it('refreshes a due session in one process only, and both go on with its new tokens', { timeout: 60_000 }, async () => {
    const browser = new TestBrowser();
    const page = await browser.navigate(`${first}/dashboard/`);
    await browser.submit(page, '/dev-login', { user_id: DASHBOARD_USER });
    const cookie = browser.cookie(DASHBOARD_COOKIE);
    expect(cookie).toBeDefined();

    const crypto = createStorageCrypto(loadSecrets(loadConfig(env)).dataEncryptionKey);
    const idHash = crypto.lookupHash('dashboard-session', cookie as string);
    const registration = openDatabase((testDatabase as TestDatabase).url);
    const db = registration.db;
    const tokensNow = async () => crypto.unseal<Tokens>((await db.selectFrom('dashboard_sessions').select('sealed').where('id_hash', '=', idHash).executeTakeFirstOrThrow()).sealed, idHash) as Tokens;

    for (let round = 0; round < 3; round++) {
      const before = await tokensNow();
      // As if the access token were about to expire, seen by both processes at once.
      await db.updateTable('dashboard_sessions').set({ sealed: crypto.seal({ ...before, accessExpiresAt: Date.now() }, idHash) }).where('id_hash', '=', idHash).execute();
      const calls = [first, second, first, second, second, first].map((base) =>
        fetch(`${base}/dashboard/api/v1/users/@me/system`, { headers: { cookie: `${DASHBOARD_COOKIE}=${cookie}` } }).then((response) => response.status),
      );
      expect(await Promise.all(calls)).toEqual([200, 200, 200, 200, 200, 200]);
      const after = await tokensNow();
      expect(after.refreshToken).not.toBe(before.refreshToken);
      expect(after.accessExpiresAt).toBeGreaterThan(Date.now() + 60_000);
    }
    // The grant lives on: no refresh token was used twice.
    for (const base of [first, second]) {
      expect((await fetch(`${base}/dashboard/api/v1/users/@me/front`, { headers: { cookie: `${DASHBOARD_COOKIE}=${cookie}` } })).status).toBe(200);
    }
    const lease = await db.selectFrom('dashboard_sessions').select('refresh_lease_until').where('id_hash', '=', idHash).executeTakeFirstOrThrow();
    expect(lease.refresh_lease_until).toBeNull();
    await registration.close();
  });
});
