// Server settings over HTTP with real tokens, on every dialect: only a first-party client can hold
// `guilds:manage` (refused to third parties at registration and at the token endpoint, through
// openid-client), only its client-credentials token may use it; reads revalidate by ETag; partial
// edits follow the alters' error rules and land in the audit log; the proxy profile tells the
// settings revision on 200 and 304.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../src/auth/clients.js';
import { listAuditEntries } from '../../../src/db/repositories/audit-log.js';
import { updateClientPermissions } from '../../../src/db/repositories/oauth-clients.js';
import type { GuildSettings } from '../../../src/domain/guild.js';
import { errorFields, errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const GUILD = '120000000000000001';
const ADMIN = '320000000000000001';
const CHANNEL = '220000000000000001';
const actor = { userId: ADMIN, permission: 'manage-guild' };

describe.each(DIALECTS)('server settings API (%s)', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const bot = await createTestClient(server, { name: 'Bot', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['guilds:manage', 'messages:read'], firstParty: true });
    token = (await oidc.clientCredentialsGrant(bot.config, { scope: 'guilds:manage' })).access_token;
  });
  afterAll(async () => server?.stop());

  const read = (guild = GUILD, headers: Record<string, string> = {}) => request<GuildSettings>(server, 'GET', `/v1/guilds/${guild}/settings`, { token, headers });
  const edit = (body: unknown, guild = GUILD) => request<GuildSettings>(server, 'POST', `/v1/guilds/${guild}/settings/edit`, { token, body });
  const expectProblem = (response: ApiResponse, status: number, type: string) =>
    expect({ status: response.status, types: errorTypes(response) }).toEqual({ status, types: [type] });

  describe('who may', () => {
    it('refuses guilds:manage to third-party clients at registration', async () => {
      await expect(registerClient(server.database.db, { name: 'Mod tool', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['guilds:manage'], public: false, firstParty: false })).rejects.toThrow(/first-party/);
    });

    it('never grants it to a third-party client, even one whose row says so', async () => {
      const third = await createTestClient(server, { name: 'Mod tool', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['alters:read'] });
      await updateClientPermissions(server.database.db, third.id, ['client_credentials'], ['alters:read', 'guilds:manage']);
      const refused = await oidc.clientCredentialsGrant(third.config, { scope: 'guilds:manage' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
      expect((refused as oidc.ResponseBodyError).error).toBe('invalid_scope');
      const limited = await oidc.clientCredentialsGrant(third.config, { scope: 'alters:read' });
      expectProblem(await request(server, 'GET', `/v1/guilds/${GUILD}/settings`, { token: limited.access_token }), 403, 'invalid-scopes');
    });

    it('refuses users’ tokens, and tokens without the scope', async () => {
      const user: ApiUser = await signIn(server, '320000000000000002');
      expectProblem(await user.call('GET', `/v1/guilds/${GUILD}/settings`), 403, 'invalid-scopes');
      expectProblem(await request(server, 'GET', `/v1/guilds/${GUILD}/settings`), 401, 'no-access-token');
      // A first-party client's user token with the scope still cannot act for the server.
      const firstParty = await createTestClient(server, { name: 'First', firstParty: true, scopes: ['openid', 'guilds:manage'] });
      const asUser = await signIn(server, '320000000000000003', { client: firstParty, scope: 'openid guilds:manage' });
      expectProblem(await asUser.call('GET', `/v1/guilds/${GUILD}/settings`), 403, 'client-token-required');
    });
  });

  describe('reading', () => {
    it('answers the defaults at revision 0, with an ETag that revalidates to 304', async () => {
      const guild = '120000000000000002';
      const response = await read(guild);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        guildId: guild,
        revision: 0,
        logChannel: { channelId: null, changedBy: null, changedAt: null },
        logIgnored: [],
        blacklist: [],
        blocks: [],
        requireTag: { enabled: false, changedBy: null, changedAt: null },
        managerRoles: [],
        proxyDelay: { milliseconds: 0, changedBy: null, changedAt: null },
        logCleanupBots: [],
      });
      const etag = response.headers.get('etag') ?? '';
      const again = await read(guild, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      await edit({ actor, requireTag: true }, guild);
      const changed = await read(guild, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.body.revision).toBe(1);
      expect(changed.headers.get('etag')).not.toBe(etag);
    });

    it('refuses a malformed server id', async () => {
      expectProblem(await read('12'), 400, 'validation');
    });
  });

  describe('editing', () => {
    it('applies a partial edit, stamps who and when, and writes the audit log', async () => {
      const before = Date.now();
      const response = await edit({ actor: { userId: ADMIN, permission: 'manager-role' }, logChannel: CHANNEL, blacklist: { add: ['220000000000000002', '220000000000000003'] }, blocks: { add: [{ id: '320000000000000009', kind: 'user', reason: 'spam' }] }, proxyDelayMs: 1500 });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe(`"g1-${response.body.revision}"`);
      expect(response.body.logChannel).toMatchObject({ channelId: CHANNEL, changedBy: ADMIN });
      expect(Date.parse(response.body.logChannel.changedAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
      expect(response.body.blocks).toEqual([expect.objectContaining({ id: '320000000000000009', kind: 'user', reason: 'spam', changedBy: ADMIN })]);
      expect(response.body.requireTag.changedBy).toBeNull();
      expect((await read()).body).toEqual(response.body);
      const [entry] = await listAuditEntries(server.database.db, { kinds: ['guild-settings-changed'], userId: ADMIN, limit: 1 });
      expect(entry?.details).toMatchObject({ guild: GUILD, permission: 'manager-role', revision: response.body.revision });
      expect(entry?.details?.changes).toEqual(expect.arrayContaining([`logChannel none → ${CHANNEL}`, 'proxyDelayMs 0 → 1500', 'blacklist +220000000000000002']));
      expect(entry?.clientId).toBeTruthy();
    });

    it('changes nothing for {} (no actor needed) and for a restated value', async () => {
      const current = (await read()).body;
      const empty = await edit({});
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(current);
      const restated = await edit({ actor, proxyDelayMs: current.proxyDelay.milliseconds, blacklist: { remove: ['229999999999999999'] } });
      expect(restated.body.revision).toBe(current.revision);
    });

    it('reports every bad field at once, refuses unknown keys by name, and changes nothing', async () => {
      const current = (await read()).body;
      const response = await edit({ actor, proxyDelayMs: 3001, logChannel: 'general', blacklist: { add: [CHANNEL], remove: [CHANNEL] }, blocks: { add: [{ id: ADMIN, kind: 'member' }] }, colour: 'red' });
      expect(response.status).toBe(400);
      expect(errorFields(response).sort()).toEqual(['blacklist.remove', 'blocks.add.0.kind', 'colour', 'logChannel', 'proxyDelayMs']);
      const noActor = await edit({ requireTag: true });
      expect(noActor.status).toBe(400);
      expect(errorFields(noActor)).toEqual(['actor']);
      expect(errorFields(await edit({ actor: { userId: ADMIN, permission: 'owner' }, requireTag: true }))).toEqual(['actor.permission']);
      expect((await read()).body).toEqual(current);
    });

    it('refuses to pass a cap (409 too-many-entries) and changes nothing', async () => {
      const guild = '120000000000000003';
      const roles = Array.from({ length: 25 }, (_, i) => `2300000000000000${String(i).padStart(2, '0')}`);
      expect((await edit({ actor, managerRoles: { add: roles } }, guild)).status).toBe(200);
      const response = await edit({ actor, requireTag: true, managerRoles: { add: ['240000000000000001'] } }, guild);
      expectProblem(response, 409, 'too-many-entries');
      expect(errorFields(response)).toEqual(['managerRoles']);
      expect((await read(guild)).body.requireTag.enabled).toBe(false);
    });
  });

  describe('the proxy profile', () => {
    it('carries the server’s settings revision on 200 and 304, and the next one after a change', async () => {
      const guild = '120000000000000004';
      const member = await signIn(server, '320000000000000005');
      expect((await member.call('GET', '/v1/users/@me/system')).status).toBe(200);
      const path = `/v1/users/@me/proxy-profile?guild=${guild}`;
      const first = await member.call('GET', path);
      expect(first.status).toBe(200);
      expect(first.headers.get('switchboard-guild-settings-revision')).toBe('0');
      const etag = first.headers.get('etag') ?? '';
      const revalidate = () => request(server, 'GET', path, { token: member.token, headers: { 'if-none-match': etag } });
      expect((await revalidate()).headers.get('switchboard-guild-settings-revision')).toBe('0');
      await edit({ actor, blacklist: { add: [CHANNEL] } }, guild);
      const after = await revalidate();
      expect(after.status).toBe(304);
      expect(after.headers.get('switchboard-guild-settings-revision')).toBe('1');
    });
  });
});
