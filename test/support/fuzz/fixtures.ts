// The fuzzed server's fixtures: users with systems, alters, tags, messages, clients and tokens of
// every kind, and the ids the generators aim at.
import * as oidc from 'openid-client';
import { expect } from 'vitest';
import { type ApiUser, request, signIn } from '../api.js';
import { createTestClient, obtainTokens, type TestClient } from '../oauth.js';
import type { TestServer } from '../server.js';
import { secretNames } from './exchange.js';

export const OWNER = '200000000000000041';
export const OTHER = '200000000000000042';
export const VICTIM = '200000000000000043';
/** Never signed in: has no system. */
export const STRANGER = '200000000000000049';
export const GUILD = '300000000000000041';
export const OTHER_GUILD = '300000000000000042';
export const CHANNEL = '400000000000000041';
/** The owner's latch entry, which the engine state changes aim at and no generated set or removal names. */
export const LATCH_SCOPE = `${GUILD}/400000000000000049`;
/** The autoproxy scopes generated sets and removals mostly name, so the entries stay few. */
export const AUTOPROXY_SCOPES = ['@global', GUILD, OTHER_GUILD, `${GUILD}/${CHANNEL}`, `${OTHER_GUILD}/${CHANNEL}`];

export interface Fixtures {
  owner: ApiUser;
  other: ApiUser;
  readOnlyToken: string;
  machineToken: string;
  appClientId: string;
  ownerAlterId: number;
  /** An alter of the owner no generated request edits: its integration field stays findable. */
  anchorAlterId: number;
  otherShownId: number;
  otherHiddenId: number;
  /** Switches of the owner and of the other user, for history cursors. */
  ownerSwitchId: number;
  otherSwitchId: number;
  fieldValue: string;
  /** The revision of the owner's latch entry (LATCH_SCOPE), which only engine state changes touch. */
  latchRevision: number;
  /** The proxy profile's ETag when the fuzzing starts (stale once anything it shows changes). */
  profileETag: string;
  /** A message the owner recorded, for replays, conflicts and lookups. */
  ownerMessage: RecordedMessage;
  /** A message the other user recorded as their shown alter, for others' lookups. */
  otherMessage: RecordedMessage;
  /** Messages the owner recorded to re-send (reproxy), each with an id to move it to and back. */
  reproxyPairs: Array<[string, string]>;
  /** Alters and tags of the owner that only the delete properties name (the others never vanish). */
  doomedAlterIds: number[];
  doomedTagIds: number[];
  /** A tag of the owner that edits and membership changes aim at, and the other system's shown and hidden tags. */
  ownerTagId: number;
  otherShownTagId: number;
  otherHiddenTagId: number;
  /** A profile field of the owner that edits aim at; fields only the delete property names. */
  ownerFieldId: number;
  doomedFieldIds: number[];
  /** The other system's fields: one anyone may see, one only its owner. */
  otherShownFieldId: number;
  otherHiddenFieldId: number;
  fuzzClient: TestClient;
  bot: TestClient;
  publicClient: TestClient;
  victim: TestClient;
  victimCode: string;
  victimAccess: string;
  victimRefresh: string;
  victimRotatedRefresh: string;
  deviceCode: string;
  /** A client-credentials token (events:manage) of a client no user authorized: its endpoints never get deliveries. */
  eventsToken: string;
  /** A first-party client's client-credentials token with guilds:manage (the bot's, for servers' settings). */
  guildsToken: string;
  /** Endpoints of that client that generated requests edit but never delete. */
  endpointIds: string[];
  /** Endpoints the deleteEndpoint cases may delete. */
  doomedEndpointIds: string[];
  userCode: string;
}

export interface RecordedMessage {
  messageId: string;
  originalMessageId: string;
  channelId: string;
  guildId: string;
  alterId: number;
}

export const ALL_SCOPES = 'openid profile offline_access alters:read alters:write system:read system:write system:ai-ap messages:read messages:write';

/** Discord's epoch (2015-01-01T00:00:00Z) in epoch milliseconds. */
export const DISCORD_EPOCH = 1_420_070_400_000;
/** A snowflake created at `time` (epoch ms), with `low` in its 22 low bits. */
export const snowflakeAt = (time: number, low: number) => ((BigInt(time - DISCORD_EPOCH) << 22n) | BigInt(low & 0x3fffff)).toString();

export async function setUp(server: TestServer): Promise<Fixtures> {
  // First-party, the bot's kind: only such a client records proxied messages.
  const app = await createTestClient(server, { name: 'Fuzz app', firstParty: true });
  const owner = await signIn(server, OWNER, { client: app });
  const other = await signIn(server, OTHER, { client: app });
  const readOnly = await signIn(server, OWNER, { client: app, scope: 'alters:read system:read' });
  const machine = await createTestClient(server, { name: 'Fuzz machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['alters:read', 'system:read', 'messages:read'] });
  const machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: 'alters:read system:read messages:read' })).access_token;

  const created = await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'steady', displayName: 'Steady', fields: { [app.id]: 'ext-steady' } });
  expect(created.status).toBe(201);
  const fieldValue = 'ext-anchor';
  const anchor = await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'anchor', displayName: 'Anchor', fields: { [app.id]: fieldValue } });
  expect(anchor.status).toBe(201);
  const ownerSwitch = await owner.call<{ data: { switchId: number } }>('POST', '/v1/users/@me/front', { alter: String(created.body.alterId) });
  expect(ownerSwitch.status).toBe(200);
  expect((await other.call('POST', '/v1/users/@me/system/edit', { public: 64 | 1 })).status).toBe(200);
  const shown = await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'shown', displayName: 'Shown', public: 1 | 2 | 512 });
  const hidden = await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'hidden', displayName: 'Hidden' });
  const otherSwitch = await other.call<{ data: { switchId: number } }>('POST', '/v1/users/@me/front', { alters: [shown.body.alterId, hidden.body.alterId] });
  expect(otherSwitch.status).toBe(200);

  const latch = await owner.call<{ data: { revision: number } }>('POST', '/v1/users/@me/autoproxy', { serverId: LATCH_SCOPE, autoproxyMode: 'latch' });
  expect(latch.status).toBe(200);
  expect((await owner.call('POST', '/v1/users/@me/autoproxy', { serverId: '@global', autoproxyMode: 'front' })).status).toBe(200);
  const now = Date.now();
  const ownerMessage = {
    messageId: snowflakeAt(now, 1),
    originalMessageId: snowflakeAt(now - 1, 2),
    channelId: CHANNEL,
    guildId: GUILD,
    alterId: created.body.alterId,
  };
  const otherMessage = {
    messageId: snowflakeAt(now, 3),
    originalMessageId: snowflakeAt(now - 1, 4),
    channelId: CHANNEL,
    guildId: GUILD,
    alterId: shown.body.alterId,
  };
  expect((await owner.call('POST', '/v1/users/@me/messages', ownerMessage)).status).toBe(201);
  expect((await other.call('POST', '/v1/users/@me/messages', otherMessage)).status).toBe(201);
  const reproxyPairs: Array<[string, string]> = [];
  for (let i = 0; i < 3; i++) {
    const message = {
      messageId: snowflakeAt(now, 10 + i),
      originalMessageId: snowflakeAt(now - 1, 20 + i),
      channelId: CHANNEL,
      guildId: GUILD,
      alterId: created.body.alterId,
    };
    expect((await owner.call('POST', '/v1/users/@me/messages', message)).status).toBe(201);
    reproxyPairs.push([message.messageId, snowflakeAt(now, 30 + i)]);
  }
  // Tags: the other system shows its tags too, one visible with its members, one hidden.
  expect((await other.call('POST', '/v1/users/@me/system/edit', { public: 64 | 128 | 1 })).status).toBe(200);
  const tagOf = async (user: ApiUser, body: Record<string, unknown>) => {
    const tag = await user.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', body);
    expect(tag.status).toBe(201);
    return tag.body.tagId;
  };
  const ownerTagId = await tagOf(owner, { name: 'steady crew' });
  const otherShownTagId = await tagOf(other, { name: 'shown crew', public: 63 });
  const otherHiddenTagId = await tagOf(other, { name: 'hidden crew' });
  expect((await other.call('POST', `/v1/users/@me/tags/${otherShownTagId}/alters`, { add: [shown.body.alterId, hidden.body.alterId] })).status).toBe(200);
  const doomedAlterIds: number[] = [];
  const doomedTagIds: number[] = [];
  for (let i = 0; i < 4; i++) {
    const doomed = await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: `doomed${i}`, displayName: 'Doomed' });
    expect(doomed.status).toBe(201);
    doomedAlterIds.push(doomed.body.alterId);
    doomedTagIds.push(await tagOf(owner, { name: `doomed ${i}` }));
  }
  // Profile fields: the owner's (one with a value on the steady alter), the other system's shown and hidden.
  const fieldOf = async (user: ApiUser, body: Record<string, unknown>) => {
    const field = await user.call<{ fieldId: number }>('POST', '/v1/users/@me/system/create-profile-field', body);
    expect(field.status).toBe(201);
    return field.body.fieldId;
  };
  const ownerFieldId = await fieldOf(owner, { name: 'steady field', kind: 'text', privacy: 'everyone' });
  const doomedFieldIds: number[] = [];
  for (let i = 0; i < 3; i++) doomedFieldIds.push(await fieldOf(owner, { name: `doomed field ${i}`, kind: i === 0 ? 'date' : 'text' }));
  expect((await owner.call('POST', `/v1/users/@me/alters/${created.body.alterId}/edit`, { profileFields: { [ownerFieldId]: 'steady value' } })).status).toBe(200);
  const otherShownFieldId = await fieldOf(other, { name: 'shown field', privacy: 'everyone' });
  const otherHiddenFieldId = await fieldOf(other, { name: 'hidden field' });
  const profile = await owner.call('GET', `/v1/users/@me/proxy-profile?guild=${GUILD}`);
  expect(profile.status).toBe(200);

  const fuzzClient = await createTestClient(server, { name: 'Fuzz client', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] });
  const bot = await createTestClient(server, { name: 'Fuzz bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
  const publicClient = await createTestClient(server, { name: 'Fuzz public', public: true });
  // The victim's code is spent and its first refresh token rotated: both would be replays if
  // the victim presented them; the generators never authenticate as the victim.
  const victim = await createTestClient(server, { name: 'Victim' });
  const victimFlow = await obtainTokens(victim, { userId: VICTIM, scope: 'openid offline_access alters:read system:read' });
  const victimRotatedRefresh = victimFlow.tokens.refresh_token ?? '';
  const rotated = await oidc.refreshTokenGrant(victim.config, victimRotatedRefresh);
  const device = await oidc.initiateDeviceAuthorization(bot.config, { scope: 'openid alters:read' });

  const hooks = await createTestClient(server, { name: 'Fuzz hooks', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['events:manage'] });
  const eventsToken = (await oidc.clientCredentialsGrant(hooks.config, { scope: 'events:manage' })).access_token;
  const guildsClient = await createTestClient(server, { name: 'Fuzz guilds', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['guilds:manage'], firstParty: true });
  const guildsToken = (await oidc.clientCredentialsGrant(guildsClient.config, { scope: 'guilds:manage' })).access_token;
  const endpointIds: string[] = [];
  for (let i = 0; i < 5; i++) {
    const endpoint = await request<{ data: { id: string } }>(server, 'POST', '/v1/events/endpoints', { token: eventsToken, body: { url: `https://hooks.example/fuzz/${i}`, eventTypes: ['alter.created'] } });
    expect(endpoint.status).toBe(201);
    endpointIds.push(endpoint.body.data.id);
  }

  const fixtures: Fixtures = {
    eventsToken,
    guildsToken,
    endpointIds: endpointIds.slice(0, 2),
    doomedEndpointIds: endpointIds.slice(2),
    owner,
    other,
    readOnlyToken: readOnly.token,
    machineToken,
    appClientId: app.id,
    ownerAlterId: created.body.alterId,
    anchorAlterId: anchor.body.alterId,
    otherShownId: shown.body.alterId,
    otherHiddenId: hidden.body.alterId,
    ownerSwitchId: ownerSwitch.body.data.switchId,
    otherSwitchId: otherSwitch.body.data.switchId,
    fieldValue,
    latchRevision: latch.body.data.revision,
    profileETag: profile.headers.get('etag') ?? '',
    ownerMessage,
    otherMessage,
    reproxyPairs,
    doomedAlterIds,
    doomedTagIds,
    ownerTagId,
    otherShownTagId,
    otherHiddenTagId,
    ownerFieldId,
    doomedFieldIds,
    otherShownFieldId,
    otherHiddenFieldId,
    fuzzClient,
    bot,
    publicClient,
    victim,
    victimCode: victimFlow.callbackUrl.searchParams.get('code') ?? '',
    victimAccess: rotated.access_token,
    victimRefresh: rotated.refresh_token ?? '',
    victimRotatedRefresh,
    deviceCode: device.device_code,
    userCode: device.user_code,
  };
  const names: Array<[string | undefined, string]> = [
    [eventsToken, '<events token>'],
    [guildsToken, '<guilds token>'],
    [owner.token, '<owner token>'],
    [owner.refreshToken, '<owner refresh token>'],
    [other.token, '<other token>'],
    [readOnly.token, '<read-only token>'],
    [machineToken, '<client-credentials token>'],
    [fuzzClient.secret, '<fuzz client secret>'],
    [bot.secret, '<bot secret>'],
    [victim.secret, '<victim secret>'],
    [fixtures.victimCode, '<victim spent code>'],
    [fixtures.victimAccess, '<victim token>'],
    [fixtures.victimRefresh, '<victim refresh token>'],
    [fixtures.victimRotatedRefresh, '<victim rotated refresh token>'],
    [fixtures.deviceCode, '<pending device code>'],
  ];
  for (const [secret, name] of names) if (secret) secretNames.set(secret, name);
  return fixtures;
}
