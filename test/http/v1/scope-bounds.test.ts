// What a token's scopes bound, whatever route carries the data (issue 26, items 5 and 11):
// - an alter record only with `alters:read`: the front (`system:read`) and message info
//   (`messages:read`) name alters by id without it, hidden ones included for their owner only;
// - a message record only from the bot's own first-party client: any app holding `messages:write`
//   could otherwise record a message id first (its sender knows the original's id) and be named by
//   message info as who sent it.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Front, FrontHistory } from '../../../src/domain/front.js';
import type { MessageInfo } from '../../../src/domain/proxied-message.js';
import { errorTypes, request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, type TestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000000701';
const OTHER = '200000000000000702';
const SQUATTER = '200000000000000703';
const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';

let seq = 0;
const snowflake = (time: number) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(++seq)).toString();
const ids = () => ({ messageId: snowflake(Date.now()), originalMessageId: snowflake(Date.now() - 50) });

describe.each(DIALECTS)('what scopes bound (%s)', (dialect) => {
  let server: TestServer;
  /** The bot's kind of client: first-party, as `ensureBotClient` and `clients create --first-party` register it. */
  let firstParty: TestClient;
  let owner: ApiUser;
  let shown: Alter;
  let hidden: Alter;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    firstParty = await createTestClient(server, { name: 'The bot', firstParty: true });
    owner = await signIn(server, OWNER, { client: firstParty });
    const create = async (username: string, pub: number) =>
      (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username, displayName: username.toUpperCase(), public: pub, description: `${username}'s secrets` })).body;
    shown = await create('shown', 1 | 2);
    hidden = await create('hidden', 0);
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: 1 | 64 })).status).toBe(200);
    expect((await owner.call('POST', '/v1/users/@me/front', { alters: [hidden.alterId, shown.alterId] })).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  const front = async (user: ApiUser, who = '@me') => {
    const response = await user.call<{ data: Front }>('GET', `/v1/users/${who}/front`);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const history = async (user: ApiUser, who = '@me') => {
    const response = await user.call<{ data: FrontHistory }>('GET', `/v1/users/${who}/front/history`);
    expect(response.status).toBe(200);
    return response.body.data;
  };

  describe('issue 26 item 5: alters are read with alters:read only', () => {
    it('gives the owner’s system:read token the front by alter id, hidden alters’ records not included', async () => {
      const systemOnly = await signIn(server, OWNER, { scope: 'openid system:read' });
      const now = await front(systemOnly);
      expect(now.current?.alterIds).toEqual([hidden.alterId, shown.alterId]);
      expect(now.alters).toEqual([]);
      expect(now.redacted).toEqual(['alters']);
      const past = await history(systemOnly);
      expect(past.switches.map((entry) => entry.alterIds)).toEqual([[hidden.alterId, shown.alterId]]);
      expect(past.alters).toEqual([]);
      expect(past.redacted).toEqual(['alters']);
      expect(JSON.stringify([now, past])).not.toContain('secrets');
    });

    it('gives another user’s system:read token only the ids of alters that exist for them', async () => {
      const stranger = await signIn(server, OTHER, { scope: 'openid system:read' });
      const now = await front(stranger, OWNER);
      expect(now.current?.alterIds).toEqual([shown.alterId]);
      expect(now.alters).toEqual([]);
      expect((await history(stranger, OWNER)).alters).toEqual([]);
    });

    it('still gives the records with alters:read (the owner all, others the visible ones)', async () => {
      const both = await signIn(server, OWNER, { scope: 'openid system:read alters:read' });
      expect((await front(both)).alters.map((alter) => alter.alterId)).toEqual([hidden.alterId, shown.alterId]);
      expect((await history(both)).redacted).toEqual([]);
      const stranger = await signIn(server, OTHER, { scope: 'openid system:read alters:read' });
      expect((await front(stranger, OWNER)).alters.map((alter) => alter.alterId)).toEqual([shown.alterId]);
    });

    it('gives a messages:read token the message and the alter’s id, not the alter or system records', async () => {
      const message = ids();
      expect((await owner.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId: hidden.alterId })).status).toBe(201);
      const info = async (user: ApiUser) => {
        const response = await request<{ data: MessageInfo }>(server, 'GET', `/v1/messages/${message.originalMessageId}`, { token: user.token });
        expect(response.status).toBe(200);
        return response.body.data;
      };
      const messagesOnly = await signIn(server, OWNER, { scope: 'openid messages:read' });
      const own = await info(messagesOnly);
      expect(own).toMatchObject({ messageId: message.messageId, senderId: OWNER, system: null, alter: null, alterId: hidden.alterId, alterDeleted: false, redacted: ['alter', 'system'] });
      expect(JSON.stringify(own)).not.toContain('secrets');
      // A stranger never learns a hidden alter's id; the sender is always shown.
      const stranger = await info(await signIn(server, OTHER, { scope: 'openid messages:read' }));
      expect(stranger).toMatchObject({ senderId: OWNER, system: null, alter: null, alterId: null, alterDeleted: null, redacted: ['system'] });
      const full = await info(await signIn(server, OWNER, { scope: 'openid messages:read alters:read system:read' }));
      expect(full).toMatchObject({ alterId: hidden.alterId, alter: { alterId: hidden.alterId, description: 'hidden\'s secrets' }, system: { associatedUserId: OWNER }, redacted: [] });
    });
  });

  describe('issue 26 item 11: only the bot’s first-party client records messages', () => {
    it('refuses a third-party app with messages:write (403), so it cannot take a message id before the bot', async () => {
      const app = await createTestClient(server, { name: 'Some app' });
      const squatter = await signIn(server, SQUATTER, { client: app });
      const alter = (await squatter.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'squat', displayName: 'Squat' })).body;
      // The squatter sent the original, so knows its id before the bot records the proxied copy.
      const message = ids();
      const taken = await squatter.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId: alter.alterId });
      expect(taken.status).toBe(403);
      expect(errorTypes(taken)).toEqual(['first-party-only']);
      // The bot's record is the one message info names.
      const sent = await owner.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId: shown.alterId });
      expect(sent.status).toBe(201);
      const looked = await request<{ data: MessageInfo }>(server, 'GET', `/v1/messages/${message.originalMessageId}`, { token: squatter.token });
      expect(looked.body.data.senderId).toBe(OWNER);
    });

    it('refuses a third-party app moving a record onto another message id (reproxy)', async () => {
      const message = ids();
      expect((await owner.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId: shown.alterId })).status).toBe(201);
      const elsewhere = await signIn(server, OWNER, { client: await createTestClient(server, { name: 'Another app' }) });
      const moved = await elsewhere.call('POST', `/v1/users/@me/messages/${message.messageId}/reproxy`, { messageId: snowflake(Date.now()), alterId: hidden.alterId });
      expect(moved.status).toBe(403);
      expect(errorTypes(moved)).toEqual(['first-party-only']);
    });

    it('refuses a first-party client acting as itself: a record names the user who sent the message', async () => {
      const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['messages:write'], firstParty: true });
      const token = (await oidc.clientCredentialsGrant(machine.config, { scope: 'messages:write' })).access_token;
      const response = await request(server, 'POST', `/v1/users/${OWNER}/messages`, { token, body: { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: shown.alterId } });
      expect(response.status).toBe(403);
    });
  });
});
