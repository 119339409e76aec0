// GET /system/list-alters with `sort`, `tag` and `search` (issue 27, "Lists and lookups"): the owner
// orders and filters by everything; another viewer only by what the alters show them, so neither the
// order nor a search tells what a hidden field holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import { AlterPrivacy, SYSTEM_PRIVACY_MASK, TagPrivacy } from '../../../src/domain/privacy-bits.js';
import type { Tag } from '../../../src/domain/tag.js';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000000501';
const VIEWER = '200000000000000502';
const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';
let seq = 0;
const snowflake = (time = Date.now()) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(++seq)).toString();

const SHOWN = AlterPrivacy.visible | AlterPrivacy.name | AlterPrivacy.username | AlterPrivacy.description | AlterPrivacy.messageStats | AlterPrivacy.tags;

describe.each(DIALECTS)('listing alters sorted, filtered and searched (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let viewer: ApiUser;
  const ids: Record<string, number> = {};
  let crew = 0;
  let hiddenTag = 0;

  const list = (user: ApiUser, query: string) => user.call<Alter[]>('GET', `/v1/users/${OWNER}/system/list-alters?${query}`);
  const names = async (user: ApiUser, query: string) => {
    const response = await list(user, query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.map((alter) => alter.username);
  };
  const record = async (alter: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const body = { messageId: snowflake(), originalMessageId: snowflake(Date.now() - 5), channelId: CHANNEL, guildId: GUILD, alterId: ids[alter] };
      expect((await owner.call('POST', '/v1/users/@me/messages', body)).status).toBe(201);
    }
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    owner = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
    viewer = await signIn(server, VIEWER);
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: SYSTEM_PRIVACY_MASK })).status).toBe(200);
    // Created in this order (ids ascending): the names sort otherwise.
    const alters: Array<[string, string, string | null, number]> = [
      ['delta', 'Delta', 'likes 100% cocoa', SHOWN],
      ['alpha', 'alpha', null, SHOWN],
      ['charlie', 'Charlie', 'Night owl', SHOWN & ~AlterPrivacy.description & ~AlterPrivacy.messageStats],
      ['bravo', 'Zulu', 'owl feathers', SHOWN & ~AlterPrivacy.name & ~AlterPrivacy.tags],
      ['echo', 'Echo', null, 0],
    ];
    for (const [username, displayName, description, visibility] of alters) {
      const created = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username, displayName, description, public: visibility });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids[username] = created.body.alterId;
    }
    crew = (await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: 'crew', public: TagPrivacy.visible | TagPrivacy.members })).body.tagId;
    hiddenTag = (await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: 'secret', public: TagPrivacy.visible })).body.tagId;
    for (const tag of [crew, hiddenTag]) expect((await owner.call('POST', `/v1/users/@me/tags/${tag}/alters`, { add: [ids.alpha, ids.bravo, ids.charlie] })).status).toBe(200);
    await record('charlie', 3);
    await record('alpha', 2);
    await record('delta', 1);
    // Fronts: delta, then bravo, then alpha now (charlie never).
    for (const alter of ['delta', 'bravo', 'alpha']) expect((await owner.call('POST', '/v1/users/@me/front', { alter: ids[alter] })).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  it('sorts the owner’s alters by each key, ties and missing values in id order', async () => {
    expect(await names(owner, '')).toEqual(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
    expect(await names(owner, 'sort=id')).toEqual(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
    expect(await names(owner, 'sort=name')).toEqual(['alpha', 'charlie', 'delta', 'echo', 'bravo']);
    expect(await names(owner, 'sort=created')).toEqual(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
    expect(await names(owner, 'sort=messageCount')).toEqual(['charlie', 'alpha', 'delta', 'bravo', 'echo']);
    expect(await names(owner, 'sort=lastMessage')).toEqual(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
    // alpha fronts now; bravo left the front when alpha came; delta before; charlie and echo never.
    expect(await names(owner, 'sort=lastFronted')).toEqual(['alpha', 'bravo', 'delta', 'charlie', 'echo']);
    // Paging follows the order.
    expect(await names(owner, 'sort=messageCount&max=2&skip=1')).toEqual(['alpha', 'delta']);
  });

  it('filters by tag and searches usernames, display names and descriptions, ignoring case', async () => {
    expect(await names(owner, `tag=${crew}`)).toEqual(['alpha', 'charlie', 'bravo']);
    expect(await names(owner, `tag=${crew}&sort=messageCount`)).toEqual(['charlie', 'alpha', 'bravo']);
    expect(await names(owner, 'search=OWL')).toEqual(['charlie', 'bravo']);
    expect(await names(owner, 'search=zul')).toEqual(['bravo']);
    expect(await names(owner, 'search=ALPH')).toEqual(['alpha']);
    // LIKE's wildcards are plain characters.
    expect(await names(owner, `search=${encodeURIComponent('100%')}`)).toEqual(['delta']);
    expect(await names(owner, `search=${encodeURIComponent('%')}`)).toEqual(['delta']);
    expect(await names(owner, 'search=_')).toEqual([]);
    expect(await names(owner, `tag=${crew}&search=owl`)).toEqual(['charlie', 'bravo']);
  });

  it('lets another viewer sort and search only by what the alters show them', async () => {
    // echo is not visible at all; bravo hides its display name, charlie its description and message stats.
    expect(await names(viewer, 'sort=name')).toEqual(['alpha', 'charlie', 'delta', 'bravo']);
    expect(await names(viewer, 'sort=messageCount')).toEqual(['alpha', 'delta', 'bravo', 'charlie']);
    expect(await names(viewer, 'sort=lastMessage')).toEqual(['delta', 'alpha', 'charlie', 'bravo']);
    expect(await names(viewer, 'search=owl')).toEqual(['bravo']);
    expect(await names(viewer, 'search=zulu')).toEqual([]);
    expect(await names(viewer, 'search=bravo')).toEqual(['bravo']);
    // bravo does not show its tags: it is not listed as a member.
    expect(await names(viewer, `tag=${crew}`)).toEqual(['alpha', 'charlie']);
    const hidden = await list(viewer, `tag=${hiddenTag}`);
    expect({ status: hidden.status, types: errorTypes(hidden) }).toEqual({ status: 404, types: ['unknown-tag'] });
  });

  it('refuses unknown keys, values and tags, and lastFronted without system:read', async () => {
    for (const [query, field] of [['sort=age', 'sort'], ['tag=abc', 'tag'], ['search=', 'search'], [`search=${'x'.repeat(101)}`, 'search'], ['order=desc', undefined]] as const) {
      const refused = await list(owner, query);
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      if (field) expect(errorFields(refused)).toContain(field);
    }
    expect((await list(owner, 'tag=999999')).status).toBe(404);
    const altersOnly = await signIn(server, OWNER, { scope: 'openid alters:read' });
    const refused = await list(altersOnly, 'sort=lastFronted');
    expect({ status: refused.status, types: errorTypes(refused) }).toEqual({ status: 403, types: ['invalid-scopes'] });
    expect((await list(altersOnly, 'sort=name')).status).toBe(200);
  });
});
