// The apps an account authorized, over /v1 (scope apps:manage), on both databases: listing them,
// revoking one (its grant, access and refresh tokens end at once), and the matrix of refusals
// (wrong scope, another account, a client token, bad input, an app revoking itself), each of
// which changes nothing.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorFields, errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, type TestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let users = 0;
const newUserId = () => `2000000000000031${String(++users).padStart(2, '0')}`;

interface App {
  clientId: string;
  name: string;
  scopes: string[];
  calling: boolean;
}
type Apps = { data: App[] };
const problem = (response: ApiResponse) => ({ status: response.status, types: errorTypes(response) });
const MANAGER_SCOPE = 'openid offline_access apps:manage system:read';

describe.each(DIALECTS)('/v1 apps (%s)', (dialect) => {
  let server: TestServer;
  let manager: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    manager = await createTestClient(server, { name: 'Manager', scopes: ['openid', 'offline_access', 'apps:manage', 'system:read'] });
  });
  afterAll(async () => server?.stop());

  /** A fresh account signed in to the manager and to two other apps ("Notes", "Tracker"). */
  async function account() {
    const userId = newUserId();
    const self = await signIn(server, userId, { client: manager, scope: MANAGER_SCOPE });
    const notes = await signIn(server, userId, { client: await createTestClient(server, { name: 'Notes' }), scope: 'openid offline_access system:read alters:read' });
    const tracker = await signIn(server, userId, { client: await createTestClient(server, { name: 'Tracker' }) });
    return { userId, self, notes, tracker };
  }
  const list = async (user: ApiUser) => {
    const answer = await user.call<Apps>('GET', '/v1/users/@me/apps');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data;
  };
  const works = async (user: ApiUser) => (await user.call('GET', '/v1/users/@me/system')).status;

  it('lists the apps the account authorized, by name, with their scopes, marking the calling one', async () => {
    const { self, notes, tracker } = await account();
    expect(await list(self)).toEqual([
      // Scopes in the catalogue's order (src/domain/scopes.ts), whatever order the grants hold them in.
      { clientId: self.client.id, name: 'Manager', scopes: ['openid', 'offline_access', 'system:read', 'apps:manage'], calling: true },
      { clientId: notes.client.id, name: 'Notes', scopes: ['openid', 'offline_access', 'alters:read', 'system:read'], calling: false },
      { clientId: tracker.client.id, name: 'Tracker', scopes: expect.arrayContaining(['alters:write', 'messages:write']) as unknown as string[], calling: false },
    ]);
    // The account's own id works as @me does; another account's apps are not there.
    const byId = await self.call<Apps>('GET', `/v1/users/${self.userId}/apps`);
    expect(byId.status).toBe(200);
    expect(byId.body.data.map((app) => app.name)).toEqual(['Manager', 'Notes', 'Tracker']);
    const stranger = await signIn(server, newUserId(), { client: manager, scope: MANAGER_SCOPE });
    expect(await list(stranger)).toEqual([expect.objectContaining({ name: 'Manager', calling: true })]);
  });

  it('revokes an app: its grant, access token and refresh token end at once; the others keep working', async () => {
    const { self, notes, tracker } = await account();
    expect(await works(notes)).toBe(200);
    const revoked = await self.call<Apps>('POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, {});
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.data.map((app) => app.name)).toEqual(['Manager', 'Tracker']);
    expect(await list(self)).toEqual(revoked.body.data);
    expect(await works(notes)).toBe(401);
    await expect(oidc.refreshTokenGrant(notes.client.config, notes.refreshToken ?? '')).rejects.toThrow();
    expect(await works(tracker)).toBe(200);
    expect(await works(self)).toBe(200);
    // Revoked once is revoked: a second time is 404, and the list is unchanged.
    expect(problem(await self.call('POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, {}))).toEqual({ status: 404, types: ['unknown-app'] });
    expect(await list(self)).toEqual(revoked.body.data);
    // The revocation is in the audit log, naming the app it came through.
    const audit = await server.database.db.selectFrom('audit_log').selectAll().where('kind', '=', 'revocation').where('client_id', '=', notes.client.id).execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({ by: 'user', via: self.client.id });
  });

  describe('refusals, which change nothing', () => {
    let accountUnderTest: Awaited<ReturnType<typeof account>>;
    let before: App[];
    beforeAll(async () => {
      accountUnderTest = await account();
      before = await list(accountUnderTest.self);
    });
    const unchanged = async () => {
      expect(await list(accountUnderTest.self)).toEqual(before);
      expect(await works(accountUnderTest.notes)).toBe(200);
      expect(await works(accountUnderTest.tracker)).toBe(200);
    };

    it('without apps:manage: 403 invalid-scopes on both', async () => {
      const { tracker, notes, userId } = accountUnderTest;
      expect(problem(await tracker.call('GET', '/v1/users/@me/apps'))).toEqual({ status: 403, types: ['invalid-scopes'] });
      expect(problem(await tracker.call('POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, {}))).toEqual({ status: 403, types: ['invalid-scopes'] });
      // The manager's client itself, signed in without the scope.
      const narrow = await signIn(server, userId, { client: manager, scope: 'openid system:read' });
      const refused = await narrow.call('POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, {});
      expect(problem(refused)).toEqual({ status: 403, types: ['invalid-scopes'] });
      expect(refused.headers.get('www-authenticate')).toContain('scope="apps:manage"');
      await unchanged();
    });

    it('without a token: 401', async () => {
      expect(problem(await request(server, 'GET', '/v1/users/@me/apps'))).toEqual({ status: 401, types: ['no-access-token'] });
      expect(problem(await request(server, 'POST', `/v1/users/@me/apps/${accountUnderTest.notes.client.id}/revoke`, { body: {} }))).toEqual({ status: 401, types: ['no-access-token'] });
      await unchanged();
    });

    it('another account’s id: 403 not-matching-oauth, for reading and revoking', async () => {
      const { userId, notes } = accountUnderTest;
      const other = await signIn(server, newUserId(), { client: manager, scope: MANAGER_SCOPE });
      expect(problem(await other.call('GET', `/v1/users/${userId}/apps`))).toEqual({ status: 403, types: ['not-matching-oauth'] });
      expect(problem(await other.call('POST', `/v1/users/${userId}/apps/${notes.client.id}/revoke`, {}))).toEqual({ status: 403, types: ['not-matching-oauth'] });
      // Naming the other account's app from its own @me: not an app it authorized.
      expect(problem(await other.call('POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, {}))).toEqual({ status: 404, types: ['unknown-app'] });
      await unchanged();
    });

    it('a client-credentials token: 403 user-token-required', async () => {
      const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['apps:manage'] });
      const token = (await oidc.clientCredentialsGrant(machine.config, { scope: 'apps:manage' })).access_token;
      expect(problem(await request(server, 'GET', '/v1/users/@me/apps', { token }))).toEqual({ status: 403, types: ['user-token-required'] });
      expect(problem(await request(server, 'GET', `/v1/users/${accountUnderTest.userId}/apps`, { token }))).toEqual({ status: 403, types: ['user-token-required'] });
      expect(problem(await request(server, 'POST', `/v1/users/${accountUnderTest.userId}/apps/${accountUnderTest.notes.client.id}/revoke`, { token, body: {} }))).toEqual({
        status: 403,
        types: ['user-token-required'],
      });
      await unchanged();
    });

    it('bad input: 400 validation naming the field; an unknown app 404 unknown-app', async () => {
      const { self, notes } = accountUnderTest;
      const revoke = (client: string, body: unknown = {}, query = '') => self.call('POST', `/v1/users/@me/apps/${client}/revoke${query}`, body);
      for (const client of ['bad%20id', 'x'.repeat(65), '%E2%9C%93', 'a.b']) {
        const refused = await revoke(client);
        expect({ client, ...problem(refused) }).toEqual({ client, status: 400, types: ['validation'] });
        expect(errorFields(refused)).toEqual(['client']);
      }
      expect(problem(await revoke(notes.client.id, { reason: 'x' }))).toEqual({ status: 400, types: ['validation'] });
      expect(problem(await revoke(notes.client.id, {}, '?now=true'))).toEqual({ status: 400, types: ['validation'] });
      expect(problem(await self.call('GET', '/v1/users/@me/apps?max=5'))).toEqual({ status: 400, types: ['validation'] });
      expect(problem(await self.call('GET', '/v1/users/not-a-user/apps'))).toEqual({ status: 400, types: ['validation'] });
      const unknown = await revoke('A'.repeat(22));
      expect(problem(unknown)).toEqual({ status: 404, types: ['unknown-app'] });
      expect(errorFields(unknown)).toEqual(['client']);
      const asText = await request(server, 'POST', `/v1/users/@me/apps/${notes.client.id}/revoke`, { token: self.token, raw: '{}', headers: { 'content-type': 'text/plain' } });
      expect(problem(asText)).toEqual({ status: 415, types: ['unsupported-media-type'] });
      await unchanged();
    });

    it('the calling app revoking itself: 409 calling-app', async () => {
      const { self } = accountUnderTest;
      const refused = await self.call('POST', `/v1/users/@me/apps/${self.client.id}/revoke`, {});
      expect(problem(refused)).toEqual({ status: 409, types: ['calling-app'] });
      expect(errorFields(refused)).toEqual(['client']);
      expect(await works(self)).toBe(200);
      await unchanged();
    });
  });
});
