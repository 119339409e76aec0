// The four requests the bot once sent that Discord refuses (issue 28), each reproduced end to end
// against the fake Discord, which now refuses what Discord refuses: an avatar URL with a space in
// an embed and as a webhook avatar, an alter named "Everyone" with no system tag, and "View
// system" of a large public system (two embeds over 6,000 characters together).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import { ALTER_PRIVACY_MASK, SYSTEM_PRIVACY_MASK } from '../../src/domain/privacy-bits.js';
import { signIn, type ApiUser } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user, type RecordedResponse, type WebhookExecution } from '../support/fake-discord.js';

const ALICE = user('420000000000000001', 'alice');
const MOD = user('420000000000000002', 'moderator');

type Json = Record<string, unknown>;
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
/** What Discord counts toward a message's 6,000 characters, in code points. */
const embedTotal = (embeds: Json[]) =>
  embeds.reduce<number>((sum, embed) => {
    const fields = (embed.fields ?? []) as Array<{ name: string; value: string }>;
    const texts = [
      embed.title,
      embed.description,
      (embed.footer as Json | undefined)?.text,
      (embed.author as Json | undefined)?.name,
      ...fields.flatMap((f) => [f.name, f.value]),
    ];
    return sum + texts.reduce<number>((n, text) => n + [...(typeof text === 'string' ? text : '')].length, 0);
  }, 0);

describe('what Discord refuses, the bot no longer sends', () => {
  let h: BotHarness;
  let alice: ApiUser;

  const slash = (name: string, subcommand: string, options: Json[]) => h.run(h.fake.slashCommand({ name, user: ALICE, subcommand, options }), isAnswer);
  const createAlter = async (body: Json): Promise<Alter> => {
    const response = await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', body);
    expect(response.status).toBe(201);
    return response.body;
  };
  /** An image URL stored before the service percent-encoded them (written past the API). */
  const storeRawAvatar = async (alterId: number, url: string) => {
    await h.server.database.db.updateTable('alters').set({ avatar_url: url, webhook_avatar_url: url }).where('id', '=', alterId).execute();
  };
  /** Sends `content` and waits for the webhook message saying `said`. */
  const proxied = async (content: string, said: string): Promise<WebhookExecution> => {
    h.fake.sendUserMessage({ author: ALICE, channelId: h.fake.channelId, content });
    const message = await h.fake.waitForMessage((m) => typeof m.webhook_id === 'string' && m.content === said, 10_000);
    const execution = h.fake.webhookExecutions().find((e) => e.kind === 'execute' && e.messageId === message.id);
    if (!execution) throw new Error('a webhook message without its execution');
    return execution;
  };

  beforeAll(async () => {
    h = await startBotHarness({ env: { RATE_LIMIT_ENABLED: 'false' } });
    await h.link(ALICE.id);
    h.fake.addMember({ user: ALICE });
    h.fake.addMember({ user: MOD });
    alice = await signIn(h.server, ALICE.id);
  }, 60_000);
  afterAll(async () => h?.stop());

  it('1. an avatar URL with a space: stored percent-encoded, and the embed thumbnail is one Discord takes', async () => {
    const ash = await createAlter({ username: 'ash', displayName: 'Ash' });
    const { response } = await slash('alter', 'edit', [
      { type: 3, name: 'alter', value: String(ash.alterId) },
      { type: 3, name: 'avatar', value: 'https://img.example/my pic.png' },
    ]);
    expect(String(response.body.content)).toMatch(/^Updated/);
    expect((embedsOf(response)[0]?.thumbnail as Json | undefined)?.url).toBe('https://img.example/my%20pic.png');
    const stored = await alice.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${ash.alterId}`);
    expect(stored.body.data.avatarUrl).toBe('https://img.example/my%20pic.png');

    // A URL stored as typed before this rule existed is encoded on its way to Discord.
    await storeRawAvatar(ash.alterId, 'https://img.example/old pic.png');
    const shown = await slash('alter', 'show', [{ type: 3, name: 'alter', value: String(ash.alterId) }]);
    expect((embedsOf(shown.response)[0]?.thumbnail as Json | undefined)?.url).toBe('https://img.example/old%20pic.png');
  });

  it('2. the same URL as a webhook avatar: the alter still speaks', async () => {
    const birch = await createAlter({ username: 'birch', displayName: 'Birch', proxyTags: [{ prefix: 'b:' }] });
    await storeRawAvatar(birch.alterId, 'https://img.example/birch pic.png');
    const execution = await proxied('b: hello', 'hello');
    expect(execution.body).toMatchObject({ content: 'hello', username: 'Birch', avatar_url: 'https://img.example/birch%20pic.png' });
  });

  it('3. an alter named "Everyone" with no system tag proxies, its name defused with a hair space', async () => {
    await createAlter({ username: 'everyone', displayName: 'Everyone', proxyTags: [{ prefix: 'e:' }] });
    const execution = await proxied('e: hi all', 'hi all');
    expect(execution.body).toMatchObject({ content: 'hi all', username: 'E\u200averyone' });
  });

  it('4. "View system" of a large public system answers within 6,000 characters', async () => {
    const long = (text: string, length: number) => text.padEnd(length, text);
    const edited = await alice.call('POST', '/v1/users/@me/system/edit', {
      systemName: long('Name', 100),
      systemDisplayTag: long('|tag', 100),
      systemDescription: long('description ', 1000),
      systemPronouns: long('they/', 100),
      public: SYSTEM_PRIVACY_MASK,
    });
    expect(edited.status).toBe(200);
    const crowd: Alter[] = [];
    for (let i = 0; i < 26; i++) {
      crowd.push(await createAlter({ username: long(`member${i}-`, 100), displayName: long(`Member ${i} `, 100), pronouns: long('xe/', 100), public: ALTER_PRIVACY_MASK }));
    }
    const front = await alice.call('POST', '/v1/users/@me/front', { alters: crowd.slice(0, 10).map((alter) => alter.alterId) });
    expect(front.status).toBe(200);

    const { response } = await h.run(h.fake.userContextMenu({ name: 'View system', targetUser: ALICE, user: MOD }), isAnswer);
    const embeds = embedsOf(response);
    expect(embeds).toHaveLength(2);
    expect(String(embeds[0]?.title)).toContain('NameName');
    expect(String(embeds[1]?.description)).toContain('Member 0');
    expect(embedTotal(embeds)).toBeLessThanOrEqual(6000);
  });
});
