// Proxying end to end: the real service, the real bot (discord.js) and the fake Discord. A linked
// member's message is re-sent through the channel's webhook as the alter, the original deleted,
// and the record reaches the service; autoproxy, escapes, threads, attachments, replies, mentions,
// permissions, a sick service, moderation and the sender's own edit/delete/reproxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import type { MessageInfo } from '../../src/domain/proxied-message.js';
import { request, signIn, type ApiUser } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { Permission, user, type ApiMessage, type RecordedResponse, type WebhookExecution } from '../support/fake-discord.js';
import { createTestClient } from '../support/oauth.js';

const ALICE = user('410000000000000001', 'alice');
const BOB = user('410000000000000002', 'bob');
const MALLORY = user('410000000000000003', 'mallory');

type Json = Record<string, unknown>;
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';

describe.each(DIALECTS)('proxying through the bot (%s)', (dialect) => {
  let h: BotHarness;
  let alice: ApiUser;
  let kestrel: Alter;
  let wren: Alter;
  let channel: string;

  /** Waits for the next webhook execution after `since` executions. */
  const nextExecution = (since: number, timeoutMs = 10_000) => h.fake.waitFor(() => h.fake.webhookExecutions().filter((e) => e.kind === 'execute')[since], timeoutMs, 'a webhook execution');
  const executions = () => h.fake.webhookExecutions().filter((e) => e.kind === 'execute');
  const say = (content: string, extra: Partial<Parameters<BotHarness['fake']['sendUserMessage']>[0]> = {}) =>
    h.fake.sendUserMessage({ author: ALICE, channelId: channel, content, ...extra });
  /** Sends a message and waits until it is proxied. */
  async function proxied(content: string, extra: Partial<Parameters<BotHarness['fake']['sendUserMessage']>[0]> = {}): Promise<{ original: ApiMessage; execution: WebhookExecution }> {
    const before = executions().length;
    const original = say(content, extra);
    const execution = await nextExecution(before);
    await h.fake.waitFor(() => h.fake.deletedMessages().some((m) => m.id === original.id), 5000, 'the original deleted');
    return { original, execution };
  }
  /** Proves a message is left alone: a later proxied marker arrives and this one was not sent. */
  async function ignored(send: () => ApiMessage): Promise<void> {
    const before = executions().length;
    const message = send();
    await proxied('k: marker');
    expect(executions().slice(before).map((e) => e.body.content)).toEqual(['marker']);
    expect(h.fake.deletedMessages().some((m) => m.id === message.id)).toBe(false);
  }
  async function waitForRecord(messageId: string, timeoutMs = 10_000): Promise<MessageInfo> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await request<{ data: MessageInfo }>(h.server, 'GET', `/v1/messages/${messageId}`, { token: alice.token });
      if (response.status === 200) return response.body.data;
      if (Date.now() > deadline) throw new Error(`no record of ${messageId}: ${response.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    h = await startBotHarness({ dialect, env: { RATE_LIMIT_ENABLED: 'false' } });
    channel = h.fake.channelId;
    await h.link(ALICE.id);
    h.fake.addMember({ user: ALICE });
    h.fake.addMember({ user: BOB });
    h.fake.addMember({ user: MALLORY });
    alice = await signIn(h.server, ALICE.id);
    kestrel = (await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
      username: 'kestrel',
      displayName: 'Kestrel',
      pronouns: 'she/her',
      avatarUrl: 'https://img.example/kestrel.png',
      proxyTags: [{ prefix: 'k:' }, { prefix: '[', suffix: ']' }],
    })).body;
    wren = (await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'wren', displayName: 'Wren', proxyTags: [{ suffix: ' -w' }] })).body;
  }, 60_000);
  afterAll(async () => h?.stop());

  it('re-sends a tagged message as the alter, deletes the original and records it', async () => {
    const { original, execution } = await proxied('k: hello there');
    expect(execution.body).toMatchObject({ content: 'hello there', username: 'Kestrel', avatar_url: 'https://img.example/kestrel.png' });
    expect(execution.body.allowed_mentions).toEqual({ parse: ['users'], roles: [] });
    expect(execution.threadId).toBeUndefined();
    const info = await waitForRecord(execution.messageId);
    expect(info).toMatchObject({ messageId: execution.messageId, originalMessageId: original.id, senderId: ALICE.id, channelId: channel });
    expect(info.alter?.alterId).toBe(kestrel.alterId);
    const counted = (await alice.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${kestrel.alterId}`)).body.data;
    expect(counted.messageCount).toBeGreaterThanOrEqual(1);
    // One webhook for the channel, made by the bot.
    expect(h.fake.webhooks(channel)).toHaveLength(1);
  });

  it('picks the heaviest tag and keeps a suffix alter apart', async () => {
    expect((await proxied('[[nested]]')).execution.body.content).toBe('[nested]');
    const { execution } = await proxied('see you -w');
    expect(execution.body).toMatchObject({ content: 'see you', username: 'Wren' });
  });

  it('leaves alone: messages without tags, other people’s, bots’, and its own webhook’s', async () => {
    await ignored(() => say('just talking'));
    await ignored(() => h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'k: not a system' }));
    await ignored(() => h.fake.sendUserMessage({ author: user('410000000000000099', 'otherbot'), channelId: channel, content: 'k: beep', bot: true }));
  });
});
