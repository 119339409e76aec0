// Operation messages (`systemOperationDM`) end to end: another app changes a linked user's system
// through the API, the service records events, the bot reads its event feed and sends the owner
// one private message saying which app did what; the bot's own changes, other users' changes and
// owners who turned the messages off get nothing; the message's button turns them off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOperations } from '../../../src/bot/notices/operation-summary.js';
import type { FeedEvent } from '../../../src/bot/api-client.js';
import { signIn, type ApiUser } from '../../support/api.js';
import { startBotHarness, type BotHarness } from '../../support/bot.js';
import { user, type ApiMessage } from '../../support/fake-discord.js';
import { createTestClient } from '../../support/oauth.js';

const ALICE = user('400000000000000061', 'alice');
const BOB = user('400000000000000062', 'bob');
const CAROL = user('400000000000000063', 'carol');
const SCOPES = 'openid offline_access alters:read alters:write system:read system:write system:ai-ap';

type Json = Record<string, unknown>;
/** How often the bot reads its event feed here; changes this close together are one message. */
const INTERVAL = 200;

describe('describeOperations (the message text)', () => {
  const actor = (clientId: string | null, clientName: string | null = null) => ({ clientId, clientName, self: false });
  const alter = (alterId: number, displayName: string) => ({ alterId, displayName, username: displayName.toLowerCase() }) as unknown as FeedEvent['data']['alter'];
  const event = (type: string, data: Partial<FeedEvent['data']>, who = actor('app-1', 'PluralTracker')): FeedEvent => ({ type, timestamp: '2026-11-23T00:00:00.000Z', data: { userId: '1', actor: who, ...data } });
  const names = (id: number) => ({ 1: 'Ash', 2: 'Birch', 3: 'Cedar' })[id] ?? `alter ${id}`;

  it.each<[string, FeedEvent[], string[]]>([
    ['a switch', [event('switch.created', { alterIds: [2, 1] })], ['**PluralTracker** switched the front to **Birch**, **Ash**.']],
    ['a switch-out', [event('switch.created', { alterIds: [] })], ['**PluralTracker** switched out (nobody is fronting).']],
    ['several switches: the last counts', [event('switch.created', { alterIds: [1] }), event('switch.created', { alterIds: [3] })], ['**PluralTracker** switched the front 2 times, last to **Cedar**.']],
    ['edits, named once each', [event('alter.updated', { alter: alter(1, 'Ash') }), event('alter.updated', { alter: alter(1, 'Ash') }), event('alter.updated', { alter: alter(2, 'Birch') })], ['**PluralTracker** edited **Ash**, **Birch**.']],
    ['many creations: a count', [1, 2, 3, 4].map((n) => event('alter.created', { alter: alter(n, `A${n}`) })), ['**PluralTracker** created 4 alters.']],
    ['deletes, the profile and tags', [event('alter.deleted', { alterId: 9 }), event('system.updated', {}), event('tag.created', {}), event('tag.deleted', {})], ['**PluralTracker** deleted 1 alter · edited your system profile · created 1 tag · deleted 1 tag.']],
    ['one line per app, in the order they acted', [event('alter.deleted', { alterId: 1 }, actor('b', null)), event('switch.created', { alterIds: [1] })], ['**b** deleted 1 alter.', '**PluralTracker** switched the front to **Ash**.']],
    ['proxied messages and the service’s own changes: nothing', [event('message.proxied', {}), event('alter.created', { alter: alter(1, 'Ash') }, actor(null))], []],
    [
      'past switches edited (each counted once) and deleted',
      [event('switch.updated', { switchId: 4, alterIds: [1] }), event('switch.updated', { switchId: 4, alterIds: [2] }), event('switch.updated', { switchId: 5, alterIds: [] }), event('switch.deleted', { switchId: 6 })],
      ['**PluralTracker** edited 2 switches in your front history · deleted 1 switch from your front history.'],
    ],
    ['markdown in names is escaped', [event('alter.created', { alter: alter(1, '*bold*') }, actor('x', 'App_Name'))], ['**App\\_Name** created **\\*bold\\***.']],
  ])('%s', (_name, events, lines) => {
    expect(describeOperations(events, names)).toEqual(lines);
  });
});

describe('operation messages from the bot', () => {
  let h: BotHarness;
  let elsewhere: ApiUser;
  let bobElsewhere: ApiUser;

  beforeAll(async () => {
    h = await startBotHarness({ env: { BOT_NOTICE_INTERVAL: String(INTERVAL) } });
    for (const member of [ALICE, BOB, CAROL]) h.fake.addMember({ user: member });
    await h.link(ALICE.id);
    await h.link(BOB.id);
    const app = await createTestClient(h.server, { name: 'Plural Tracker' });
    elsewhere = await signIn(h.server, ALICE.id, { client: app, scope: SCOPES });
    bobElsewhere = await signIn(h.server, BOB.id, { client: app, scope: SCOPES });
    // CAROL uses the app but never linked the bot: the bot's feed has nothing of hers.
    await signIn(h.server, CAROL.id, { client: app, scope: SCOPES });
  }, 60_000);
  afterAll(async () => h?.stop());

  async function waitForDirectMessages(userId: string, count: number, timeoutMs = 10_000): Promise<ApiMessage[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const messages = h.fake.directMessages(userId);
      if (messages.length >= count) return messages;
      if (Date.now() > until) throw new Error(`expected ${count} direct messages to ${userId}, got ${messages.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  /** Long enough for the bot to have read the feed several times, and sent what it holds. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5 * INTERVAL));

  it('tells the owner which app switched and edited, in one message with a button to stop', async () => {
    const ash = (await elsewhere.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'ash', displayName: 'Ash' })).body;
    expect((await elsewhere.call('POST', '/v1/users/@me/front', { alters: [ash.alterId] })).status).toBe(200);
    const [message] = await waitForDirectMessages(ALICE.id, 1);
    expect(message?.content).toContain('**Plural Tracker**');
    expect(message?.content).toContain('created **Ash**');
    expect(message?.content).toContain('switched the front to **Ash**');
    const button = ((message?.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components)[0];
    expect(button).toMatchObject({ label: 'Stop these messages' });
    await settle();
    expect(h.fake.directMessages(ALICE.id)).toHaveLength(1); // one message for changes made together
    expect(h.fake.directMessages(CAROL.id)).toHaveLength(0);
  });

  it('says nothing about the bot’s own changes', async () => {
    const before = h.fake.directMessages(BOB.id).length;
    const created = await h.run(
      h.fake.slashCommand({ name: 'alter', subcommand: 'create', user: BOB, options: [{ type: 3, name: 'username', value: 'birch' }, { type: 3, name: 'display-name', value: 'Birch' }] }),
      (r) => r.kind === 'edit' || r.kind === 'followup' || (r.kind === 'callback' && r.callbackType === 4),
    );
    expect(String(created.response.body.content)).toContain('Created');
    await settle();
    expect(h.fake.directMessages(BOB.id)).toHaveLength(before);
    // The same kind of change from another app is reported.
    await bobElsewhere.call('POST', '/v1/users/@me/system/edit', { systemDescription: 'changed by the app' });
    const messages = await waitForDirectMessages(BOB.id, before + 1);
    expect(messages.at(-1)?.content).toContain('edited your system profile');
  });

  it('stops when the owner presses the button, and the setting shows in the API', async () => {
    const [message] = h.fake.directMessages(ALICE.id);
    if (!message) throw new Error('no message');
    const customId = String(((message.components ?? []) as Array<{ components: Json[] }>)[0]?.components[0]?.custom_id);
    const pressed = await h.run(h.fake.button({ customId, user: ALICE, message }), (r) => r.kind === 'followup');
    expect(String(pressed.response.body.content)).toContain('/system edit operation-messages:True');
    const system = await elsewhere.call<{ data: { systemOperationDM: boolean } }>('GET', '/v1/users/@me/system');
    expect(system.body.data.systemOperationDM).toBe(false);
    await elsewhere.call('POST', '/v1/users/@me/system/edit', { systemDescription: 'quiet now' });
    await settle();
    expect(h.fake.directMessages(ALICE.id)).toHaveLength(1);
  });
});
