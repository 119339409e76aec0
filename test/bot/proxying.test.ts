// Proxying end to end: the real service, the real bot (discord.js) and the fake Discord. A linked
// member's message is re-sent through the channel's webhook as the alter, the original deleted,
// and the record reaches the service; autoproxy, escapes, threads, attachments, replies, mentions,
// permissions, a sick service, moderation and the sender's own edit/delete/reproxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import type { MessageInfo } from '../../src/domain/proxied-message.js';
import { MESSAGES_PER_CHANNEL } from '../../src/bot/discord-caches.js';
import { REPROXY_TARGET_WINDOW_MS, namedTarget } from '../../src/bot/proxy/reproxy-target.js';
import { request, signIn, type ApiUser } from '../support/api.js';
import { runBot } from '../../src/run-bot.js';
import { quietLog, startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { DEFAULT_BOT_PERMISSIONS, Permission, rateLimited, user, type ApiMessage, type RecordedResponse, type WebhookExecution } from '../support/fake-discord.js';
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
    const executions = () => h.fake.webhookExecutions().filter((e) => e.kind === 'execute');
  const say = (content: string, extra: Partial<Parameters<BotHarness['fake']['sendUserMessage']>[0]> = {}) =>
    h.fake.sendUserMessage({ author: ALICE, channelId: channel, content, ...extra });
  const outcomes = new Map<string, string>();
  const waiting = new Map<string, (outcome: string) => void>();
  /** What the bot made of a message (it emits each outcome once handled). */
  function outcomeOf(messageId: string, timeoutMs = 10_000): Promise<string> {
    const known = outcomes.get(messageId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${messageId} was not handled`)), timeoutMs);
      waiting.set(messageId, (outcome) => (clearTimeout(timer), resolve(outcome)));
    });
  }
  /** Sends a message and waits until it is proxied. */
  async function proxied(content: string, extra: Partial<Parameters<BotHarness['fake']['sendUserMessage']>[0]> = {}): Promise<{ original: ApiMessage; execution: WebhookExecution }> {
    const before = executions().length;
    const original = say(content, extra);
    expect(await outcomeOf(original.id)).toBe('proxied');
    const execution = executions()[before];
    if (!execution) throw new Error('proxied without a webhook execution');
    expect(h.fake.deletedMessages().some((m) => m.id === original.id)).toBe(true);
    return { original, execution };
  }
  /** Proves a message is left alone: handled without a webhook execution or a deletion. */
  async function ignored(send: () => ApiMessage, expected: 'ignored' | 'not-proxied' = 'not-proxied'): Promise<void> {
    const before = executions().length;
    const message = send();
    expect(await outcomeOf(message.id)).toBe(expected);
    expect(executions().length).toBe(before);
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
    h.bot.context.proxying.outcomes.on('handled', (id, outcome) => {
      outcomes.set(id, outcome);
      waiting.get(id)?.(outcome);
    });
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
    await ignored(() => h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'k: not a system' }), 'ignored');
    await ignored(() => h.fake.sendUserMessage({ author: user('410000000000000099', 'otherbot'), channelId: channel, content: 'k: beep', bot: true }), 'ignored');
    // The bot's own proxied messages come back over the gateway too (with webhook_id).
    const { execution } = await proxied('k: echo');
    expect(await outcomeOf(execution.messageId)).toBe('ignored');
  });

  const slash = (name: string, subcommand: string | undefined, options: Json[] = [], who = ALICE, channelId = channel) =>
    h.run(h.fake.slashCommand({ name, user: who, channelId, ...(subcommand ? { subcommand } : {}), options }), isAnswer);
  const contentOf = (response: RecordedResponse) => String(response.body.content ?? '');

  it('follows autoproxy set with /autoproxy: alter mode in the server, a channel entry over it, escapes', async () => {
    const set = await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'alter' }, { name: 'alter', type: 3, value: String(wren.alterId) }]);
    expect(contentOf(set.response)).toContain('Wren');
    expect((await proxied('plain words')).execution.body).toMatchObject({ content: 'plain words', username: 'Wren' });
    // Tags still win over autoproxy, and a message is proxied once.
    const before = executions().length;
    expect((await proxied('k: tagged')).execution.body.username).toBe('Kestrel');
    expect(executions().length).toBe(before + 1);
    // A backslash skips autoproxy for one message.
    await ignored(() => say('\\ not this one'));
    // The channel's own entry (off) shadows the server's.
    await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'off' }, { name: 'where', type: 3, value: 'channel' }]);
    await ignored(() => say('quiet here'));
    await slash('autoproxy', 'clear', [{ name: 'where', type: 3, value: 'channel' }]);
    await slash('autoproxy', 'clear', []);
    await ignored(() => say('all off again'));
  });

  it('latches onto the last alter proxied, and \\\\ ends the latch', async () => {
    await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'latch' }]);
    await ignored(() => say('nobody latched yet'));
    expect((await proxied('see -w')).execution.body.username).toBe('Wren');
    expect((await proxied('still me')).execution.body).toMatchObject({ content: 'still me', username: 'Wren' });
    expect((await proxied('k: switching')).execution.body.username).toBe('Kestrel');
    expect((await proxied('now kestrel')).execution.body.username).toBe('Kestrel');
    // The latch reached the service with the record.
    await h.bot.context.proxying.deliveries.drain(5000);
    const entries = (await alice.call<{ data: Array<{ serverId: string; autoproxyAlter: string | null }> }>('GET', '/v1/users/@me/autoproxy')).body.data;
    expect(entries.find((entry) => entry.serverId === h.fake.guild.id)?.autoproxyAlter).toBe(String(kestrel.alterId));
    await ignored(() => say('\\\\ unlatch'));
    await ignored(() => say('free again'));
    await h.bot.context.proxying.deliveries.drain(5000);
    const after = (await alice.call<{ data: Array<{ serverId: string; autoproxyAlter: string | null }> }>('GET', '/v1/users/@me/autoproxy')).body.data;
    expect(after.find((entry) => entry.serverId === h.fake.guild.id)?.autoproxyAlter).toBeNull();
    await slash('autoproxy', 'clear', []);
  });

  it('speaks as whoever an integration pushed to the front (front mode)', async () => {
    const tracker = await signIn(h.server, ALICE.id, { client: await createTestClient(h.server, { name: 'Switch tracker' }), scope: 'system:ai-ap' });
    await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'front' }]);
    await ignored(() => say('nobody fronting yet'));
    await tracker.call('POST', '/v1/users/@me/front', { alter: String(wren.alterId) });
    expect((await proxied('front says hi')).execution.body.username).toBe('Wren');
    await tracker.call('POST', '/v1/users/@me/front', { alter: String(kestrel.alterId) });
    expect((await proxied('and now')).execution.body.username).toBe('Kestrel');
    // Co-fronting through the bot: the primary (the first named) speaks; after a switch-out nobody does.
    await slash('front', 'set', [{ name: 'alter', type: 3, value: String(wren.alterId) }, { name: 'alter-2', type: 3, value: String(kestrel.alterId) }]);
    expect((await proxied('the primary speaks')).execution.body.username).toBe('Wren');
    await slash('front', 'out');
    await ignored(() => say('nobody fronting again'));
    await slash('autoproxy', 'clear', []);
  });

  it('leaves an alter out of front and latch autoproxy (autoproxyEnabled false), still proxying its tags', async () => {
    const off = await alice.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { autoproxyEnabled: false });
    expect(off.status).toBe(200);
    try {
      await slash('front', 'set', [{ name: 'alter', type: 3, value: String(wren.alterId) }]);
      await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'front' }]);
      await ignored(() => say('wren fronts, but is left out'));
      expect((await proxied('tagged still -w')).execution.body.username).toBe('Wren');
      await slash('autoproxy', 'set', [{ name: 'mode', type: 3, value: 'latch' }]);
      expect((await proxied('latched on wren -w')).execution.body.username).toBe('Wren');
      await ignored(() => say('the latch does not speak as wren'));
      expect((await proxied('k: kestrel takes it')).execution.body.username).toBe('Kestrel');
      expect((await proxied('and the latch follows kestrel')).execution.body.username).toBe('Kestrel');
    } finally {
      await slash('autoproxy', 'clear', []);
      await slash('front', 'out');
      await alice.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { autoproxyEnabled: true });
    }
  });

  it('proxies in a thread through the parent channel’s webhook with thread_id', async () => {
    const thread = h.fake.addChannel({ name: 'a thread', type: 11, parentId: channel });
    const { execution } = await proxied('k: in the thread', { channelId: thread.id });
    expect(execution.threadId).toBe(thread.id);
    expect(h.fake.webhooks().filter((webhook) => webhook.channel_id === thread.id)).toEqual([]);
    expect(execution.webhookId).toBe(h.fake.webhooks(channel)[0]?.id);
    expect((await waitForRecord(execution.messageId)).channelId).toBe(thread.id);
  });

  it('re-sends attachments, and says which were too big for the server', async () => {
    const small = { filename: 'note.txt', contentType: 'text/plain', data: Buffer.from('hello file') };
    const { execution } = await proxied('k: with a file', { attachments: [small] });
    expect(execution.files.map((file) => [file.filename, file.data.toString()])).toEqual([['note.txt', 'hello file']]);
    const big = { filename: 'huge.bin', data: Buffer.alloc(11 * 1024 * 1024) };
    const both = await proxied('k: two files', { attachments: [small, big] });
    expect(both.execution.files.map((file) => file.filename)).toEqual(['note.txt']);
    await h.fake.waitFor(() => h.fake.directMessages(ALICE.id).find((m) => String(m.content).includes('huge.bin')), 5000, 'a notice');
    // Image-only: the tags alone with an attachment.
    expect((await proxied('[]', { attachments: [small] })).execution.body.content).toBe('');
  });

  it('keeps a visible reference to the message replied to', async () => {
    const earlier = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'a question from bob' });
    const { execution } = await proxied('k: an answer', { messageReference: { messageId: earlier.id } });
    const embed = (execution.body.embeds as Json[])[0] as { author: { name: string }; description: string };
    expect(embed.author.name).toContain('bob');
    expect(embed.description).toContain('a question from bob');
    expect(embed.description).toContain(earlier.id);
  });

  it('quotes a reply to a message it no longer holds, and holds only the last messages of a channel', async () => {
    const old = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'an old question from bob' });
    let last = old;
    for (let i = 0; i <= MESSAGES_PER_CHANNEL; i++) last = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: `chatter ${i}` });
    await outcomeOf(last.id);
    const held = (h.bot.client.channels.cache.get(channel) as unknown as { messages: { cache: Map<string, unknown> } }).messages.cache;
    expect(held.size).toBeLessThanOrEqual(MESSAGES_PER_CHANNEL);
    expect(held.has(last.id)).toBe(true);
    expect(held.has(old.id)).toBe(false);
    // Fetched again for the quote.
    const { execution } = await proxied('k: a late answer', { messageReference: { messageId: old.id } });
    const embed = (execution.body.embeds as Json[])[0] as { description: string };
    expect(embed.description).toContain('an old question from bob');
  });

  it('never lets a proxied message ping what its sender could not', async () => {
    const role = h.fake.addRole({ name: 'pingable', permissions: 0n, mentionable: true });
    const quiet = h.fake.addRole({ name: 'quiet', permissions: 0n, mentionable: false });
    const plain = await proxied(`k: @everyone <@&${role.id}> <@&${quiet.id}> <@${BOB.id}>`);
    expect(plain.execution.body.allowed_mentions).toEqual({ parse: ['users'], roles: [role.id] });
    const mod = h.fake.addRole({ name: 'mods', permissions: Permission.MentionEveryone });
    h.fake.addMember({ user: ALICE, roles: [mod.id] });
    const allowed = await proxied('k: @everyone listen', { member: { roles: [mod.id] } });
    expect(allowed.execution.body.allowed_mentions).toEqual({ parse: ['users', 'roles', 'everyone'] });
    h.fake.addMember({ user: ALICE, roles: [] });
  });

  it('turns off in a server with /proxy server, and for a disabled system', async () => {
    await slash('proxy', 'server', [{ name: 'enabled', type: 5, value: false }]);
    await ignored(() => say('k: not here'), 'ignored');
    await slash('proxy', 'server', [{ name: 'enabled', type: 5, value: true }]);
    await proxied('k: back on');
    await alice.call('POST', '/v1/users/@me/system/edit', { disabled: true });
    await ignored(() => say('k: disabled everywhere'), 'ignored');
    await alice.call('POST', '/v1/users/@me/system/edit', { disabled: false });
  });

  it('adds and removes proxy tags with /proxy, and the next message uses them', async () => {
    const added = await slash('proxy', 'tag-add', [{ name: 'alter', type: 3, value: String(wren.alterId) }, { name: 'prefix', type: 3, value: 'w>' }]);
    expect(contentOf(added.response)).toContain('w>text');
    expect((await proxied('w> via the new tag')).execution.body.username).toBe('Wren');
    await slash('proxy', 'tag-remove', [{ name: 'alter', type: 3, value: String(wren.alterId) }, { name: 'prefix', type: 3, value: 'w>' }]);
    await ignored(() => say('w> not any more'));
  });

  it('says once, privately, when it lacks Manage Webhooks, and leaves the message', async () => {
    const locked = h.fake.addChannel({ name: 'locked' });
    h.fake.setBotPermissions(locked.id, Permission.ViewChannel | Permission.SendMessages | Permission.ManageMessages | Permission.ReadMessageHistory);
    const dms = h.fake.directMessages(ALICE.id).length;
    const first = h.fake.sendUserMessage({ author: ALICE, channelId: locked.id, content: 'k: one' });
    expect(await outcomeOf(first.id)).toBe('failed');
    const second = h.fake.sendUserMessage({ author: ALICE, channelId: locked.id, content: 'k: two' });
    expect(await outcomeOf(second.id)).toBe('failed');
    expect(h.fake.messages(locked.id).map((m) => m.content)).toEqual(['k: one', 'k: two']);
    const notices = await h.fake.waitFor(() => {
      const sent = h.fake.directMessages(ALICE.id).slice(dms);
      return sent.length > 0 && sent;
    }, 5000, 'a notice');
    expect(notices).toHaveLength(1);
    expect(String(notices[0]?.content)).toContain('Manage Webhooks');
  });

  it('says what is missing in a thread: Send Messages in Threads', async () => {
    const parent = h.fake.addChannel({ name: 'no-threads' });
    h.fake.setBotPermissions(
      parent.id,
      Permission.ViewChannel | Permission.SendMessages | Permission.ManageWebhooks | Permission.ManageMessages | Permission.ReadMessageHistory,
    );
    const thread = h.fake.addChannel({ name: 'a locked-out thread', type: 11, parentId: parent.id });
    const message = h.fake.sendUserMessage({ author: ALICE, channelId: thread.id, content: 'k: in a thread' });
    expect(await outcomeOf(message.id)).toBe('failed');
    expect(h.fake.getMessage(message.id)).toBeDefined();
    await h.fake.waitFor(() => h.fake.directMessages(ALICE.id).find((m) => String(m.content).includes('Send Messages in Threads')), 5000, 'a notice');
  });

  it('sends but keeps the original when it lacks Manage Messages (never neither)', async () => {
    const room = h.fake.addChannel({ name: 'no-delete' });
    h.fake.setBotPermissions(room.id, Permission.ViewChannel | Permission.SendMessages | Permission.ManageWebhooks | Permission.ReadMessageHistory);
    const before = executions().length;
    const original = h.fake.sendUserMessage({ author: ALICE, channelId: room.id, content: 'k: kept twice' });
    expect(await outcomeOf(original.id)).toBe('proxied');
    expect(executions()[before]?.body.content).toBe('kept twice');
    expect(h.fake.getMessage(original.id)).toBeDefined();
    await h.fake.waitFor(() => h.fake.directMessages(ALICE.id).find((m) => String(m.content).includes('Manage Messages')), 5000, 'a notice');
  });

  it('replaces a webhook that was deleted, and retries a rate-limited send', async () => {
    const [old] = h.fake.webhooks(channel);
    if (!old) throw new Error('no webhook yet');
    h.fake.deleteWebhook(old.id);
    const { execution } = await proxied('k: after the webhook was deleted');
    expect(execution.webhookId).not.toBe(old.id);
    expect(h.fake.webhooks(channel)).toHaveLength(1);
    h.fake.setRestFailure({ method: 'POST', path: /^\/api\/v10\/webhooks\// }, rateLimited(0.05));
    expect((await proxied('k: after a 429')).execution.body.content).toBe('after a 429');
  });

  it('leaves a message over 2,000 characters once its tags are off as typed, and says why', async () => {
    const long = `k: ${'x'.repeat(2001)}`;
    await ignored(() => say(long));
    await h.fake.waitFor(() => h.fake.directMessages(ALICE.id).find((m) => String(m.content).includes('2,000')), 5000, 'a notice');
    // Counted in code points, as Discord does: 1,500 emoji are 3,000 UTF-16 units and still fit.
    expect((await proxied(`k: ${'😀'.repeat(1500)}`)).execution.body.content).toBe('😀'.repeat(1500));
  });

  describe('moderation and the sender’s own messages', () => {
    const proxiedMessage = (execution: WebhookExecution) => {
      const message = h.fake.getMessage(execution.messageId);
      if (!message) throw new Error('the proxied message is not in the channel');
      return message;
    };

    it('"Message info" shows anyone the sending account, and the rest as privacy allows', async () => {
      const { execution } = await proxied('k: who sent this?');
      await waitForRecord(execution.messageId);
      // Bob never linked: the bot asks with its own client token, and sees the public view.
      const { response } = await h.run(h.fake.messageContextMenu({ name: 'Message info', user: BOB, targetMessage: proxiedMessage(execution) }), isAnswer);
      expect(response.body.flags).toBe(64);
      const embed = (response.body.embeds as Json[])[0] as { fields: Array<{ name: string; value: string }> };
      const field = (name: string) => embed.fields.find((f) => f.name === name)?.value ?? '';
      expect(field('Sent by')).toContain(ALICE.id);
      expect(field('Alter')).toBe('*(profile private, or deleted)*');
      expect(field('Sent as')).toBe('**Kestrel**');
      expect(field('System')).toContain('*(private)*');
      // The owner sees everything.
      const own = await h.run(h.fake.messageContextMenu({ name: 'Message info', user: ALICE, targetMessage: proxiedMessage(execution) }), isAnswer);
      const ownEmbed = (own.response.body.embeds as Json[])[0] as { fields: Array<{ name: string; value: string }> };
      expect(ownEmbed.fields.find((f) => f.name === 'Alter')?.value).toContain('Kestrel');
      // A message that is not proxied gets a short private answer.
      const plain = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'just me' });
      const refused = await h.run(h.fake.messageContextMenu({ name: 'Message info', user: BOB, targetMessage: plain }), isAnswer);
      expect(String(refused.response.body.content)).toContain('not a proxied message');
    });

    it('❓ sends the info privately and removes the reaction; ❌ deletes only for the sender', async () => {
      const { execution } = await proxied('k: react to me');
      await waitForRecord(execution.messageId);
      const dms = h.fake.directMessages(BOB.id).length;
      h.fake.addReaction({ userId: BOB.id, messageId: execution.messageId, emoji: '❓' });
      const dm = await h.fake.waitFor(() => h.fake.directMessages(BOB.id)[dms], 5000, 'message info by DM');
      expect(JSON.stringify(dm.embeds)).toContain(ALICE.id);
      await h.fake.waitFor(() => h.fake.requests.find((r) => r.method === 'DELETE' && r.path.includes(`/messages/${execution.messageId}/reactions/`)), 5000, 'the reaction removed');

      h.fake.addReaction({ userId: MALLORY.id, messageId: execution.messageId, emoji: '❌' });
      h.fake.addReaction({ userId: ALICE.id, messageId: execution.messageId, emoji: '❌' });
      await h.fake.waitFor(() => h.fake.deletedMessages().find((m) => m.id === execution.messageId), 5000, 'deleted by its sender');
      // Only the sender's ❌ counted: the record stays for moderators.
      expect((await waitForRecord(execution.messageId)).senderId).toBe(ALICE.id);
    });

    it('lets the sender edit a proxied message through a form, and nobody else', async () => {
      const { execution } = await proxied('k: typo hre');
      const target = proxiedMessage(execution);
      const other = await h.run(h.fake.messageContextMenu({ name: 'Edit proxied message', user: MALLORY, targetMessage: target }), isAnswer);
      expect(String(other.response.body.content)).toContain('Only the person who sent');
      const { response } = await h.run(h.fake.messageContextMenu({ name: 'Edit proxied message', user: ALICE, targetMessage: target }), (r) => r.kind === 'callback');
      expect(response.callbackType).toBe(9);
      const customId = String(response.body.custom_id);
      const submitted = await h.run(h.fake.modalSubmit({ user: ALICE, customId, components: [{ type: 1, components: [{ type: 4, custom_id: 'content', value: 'typo here' }] }] }), isAnswer);
      expect(String(submitted.response.body.content)).toBe('Edited.');
      expect(h.fake.getMessage(execution.messageId)?.content).toBe('typo here');
    });

    it('deletes with the context menu for the sender only', async () => {
      const { execution } = await proxied('k: delete me');
      const target = proxiedMessage(execution);
      const other = await h.run(h.fake.messageContextMenu({ name: 'Delete proxied message', user: MALLORY, targetMessage: target }), isAnswer);
      expect(String(other.response.body.content)).toContain('Only the person who sent');
      expect(h.fake.getMessage(execution.messageId)).toBeDefined();
      const own = await h.run(h.fake.messageContextMenu({ name: 'Delete proxied message', user: ALICE, targetMessage: target }), isAnswer);
      expect(String(own.response.body.content)).toBe('Deleted.');
      expect(h.fake.deletedMessages().some((m) => m.id === execution.messageId)).toBe(true);
    });

    it('reproxies the last message as another alter, moving the record and the count', async () => {
      const { execution } = await proxied('k: wrong alter');
      await waitForRecord(execution.messageId);
      const wrenBefore = (await alice.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${wren.alterId}`)).body.data.messageCount ?? 0;
      const before = executions().length;
      const { response } = await slash('reproxy', undefined, [{ name: 'alter', type: 3, value: String(wren.alterId) }]);
      expect(contentOf(response)).toContain('Re-sent as **Wren');
      const again = executions()[before];
      expect(again?.body).toMatchObject({ content: 'wrong alter', username: 'Wren' });
      expect(h.fake.deletedMessages().some((m) => m.id === execution.messageId)).toBe(true);
      await h.bot.context.proxying.deliveries.drain(5000);
      const moved = await waitForRecord(String(again?.messageId));
      expect(moved.alter?.alterId).toBe(wren.alterId);
      expect((await alice.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${wren.alterId}`)).body.data.messageCount).toBe(wrenBefore + 1);
      // Someone without a recent message here has nothing to reproxy.
      const nothing = await slash('reproxy', undefined, [{ name: 'alter', type: 3, value: String(wren.alterId) }], ALICE, h.fake.addChannel({ name: 'empty' }).id);
      expect(contentOf(nothing.response)).toContain('no proxied message here');
    });

    it('reproxies an earlier message named by its link, leaving the later one alone; only the sender’s', async () => {
      const first = (await proxied('k: the earlier one')).execution;
      const later = (await proxied('k: the later one')).execution;
      await waitForRecord(first.messageId);
      const link = `https://discord.com/channels/${h.fake.guild.id}/${channel}/${first.messageId}`;
      const stranger = await slash('reproxy', undefined, [{ name: 'alter', type: 3, value: 'wren' }, { name: 'message', type: 3, value: link }], MALLORY);
      expect(contentOf(stranger.response)).toContain('Only the person who sent');
      // A message this process no longer remembers (sent before a restart, say) is found in Discord and checked with the service.
      h.bot.context.proxying.recent.replace(first.messageId);
      const before = executions().length;
      const { response } = await slash('reproxy', undefined, [{ name: 'alter', type: 3, value: 'wren' }, { name: 'message', type: 3, value: `<${link}>` }]);
      expect(contentOf(response)).toContain('Re-sent as **Wren');
      expect(executions()[before]?.body).toMatchObject({ content: 'the earlier one', username: 'Wren' });
      expect(h.fake.deletedMessages().some((m) => m.id === first.messageId)).toBe(true);
      expect(h.fake.deletedMessages().some((m) => m.id === later.messageId)).toBe(false);
      await h.bot.context.proxying.deliveries.drain(5000);
      expect((await waitForRecord(String(executions()[before]?.messageId))).alter?.alterId).toBe(wren.alterId);
      // A link from elsewhere, or to nothing, is refused in words.
      const foreign = await slash('reproxy', undefined, [{ name: 'alter', type: 3, value: 'wren' }, { name: 'message', type: 3, value: `https://discord.com/channels/999999999999999999/${channel}/${later.messageId}` }]);
      expect(contentOf(foreign.response)).toContain('message link from this server');
    });

    it('refuses a named message older than an hour', async () => {
      const { execution } = await proxied('k: an old one');
      const textChannel = await h.bot.client.channels.fetch(channel);
      if (!textChannel?.isTextBased()) throw new Error('cannot fetch the channel');
      const fetched = await textChannel.messages.fetch(execution.messageId);
      const { api, accounts, proxying } = h.bot.context;
      await expect(namedTarget({ api, accounts, recent: proxying.recent, webhooks: proxying.webhooks }, fetched, ALICE.id, Date.now() + REPROXY_TARGET_WINDOW_MS + 60_000)).rejects.toThrow(/last 60 minutes/);
      await expect(namedTarget({ api, accounts, recent: proxying.recent, webhooks: proxying.webhooks }, fetched, ALICE.id)).resolves.toMatchObject({
        messageId: execution.messageId,
        alterId: kestrel.alterId,
      });
    });

    it('reproxies from the message context menu through a form asking which alter', async () => {
      const { execution } = await proxied('k: from the menu');
      await waitForRecord(execution.messageId);
      const target = proxiedMessage(execution);
      const other = await h.run(h.fake.messageContextMenu({ name: 'Reproxy message', user: MALLORY, targetMessage: target }), isAnswer);
      expect(String(other.response.body.content)).toContain('Only the person who sent');
      const { response } = await h.run(h.fake.messageContextMenu({ name: 'Reproxy message', user: ALICE, targetMessage: target }), (r) => r.kind === 'callback');
      expect(response.callbackType).toBe(9);
      const customId = String(response.body.custom_id);
      const unknown = await h.run(h.fake.modalSubmit({ user: ALICE, customId, components: [{ type: 1, components: [{ type: 4, custom_id: 'alter', value: 'nobody' }] }] }), isAnswer);
      expect(String(unknown.response.body.content)).toContain('No alter called “nobody”');
      const before = executions().length;
      const submitted = await h.run(h.fake.modalSubmit({ user: ALICE, customId, components: [{ type: 1, components: [{ type: 4, custom_id: 'alter', value: 'Wren' }] }] }), isAnswer);
      expect(String(submitted.response.body.content)).toContain('Re-sent as **Wren');
      expect(executions()[before]?.body).toMatchObject({ content: 'from the menu', username: 'Wren' });
      expect(h.fake.deletedMessages().some((m) => m.id === execution.messageId)).toBe(true);
    });
  });

  it('keeps proxying from the cached profile while the service is down; records arrive later', async () => {
    await proxied('k: warm the cache');
    h.proxy.mode = 'reset';
    try {
      const { execution } = await proxied('k: while the service is down');
      expect(execution.body.username).toBe('Kestrel');
      expect(h.bot.context.proxying.deliveries.size()).toBeGreaterThan(0);
      h.proxy.mode = 'pass';
      expect((await waitForRecord(execution.messageId, 15_000)).senderId).toBe(ALICE.id);
    } finally {
      h.proxy.mode = 'pass';
    }
  }, 30_000);

  it('ignores the first message of a forum post (the post itself)', async () => {
    const forum = h.fake.addChannel({ name: 'forum', type: 15 });
    const post = h.fake.addChannel({ name: 'a post', type: 11, parentId: forum.id });
    await ignored(() => h.fake.sendUserMessage({ author: ALICE, channelId: post.id, id: post.id, content: 'k: the post' }), 'ignored');
  });

  it('sets the member’s nickname when a nickname-mode alter is pushed to the front', async () => {
    const moth = (await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'moth', displayName: 'Moth', alterMode: 'nickname', proxyTags: [{ prefix: 'm:' }] })).body;
    await alice.call('POST', '/v1/users/@me/system/edit', { nicknameFormat: '%display% (Flock)' });
    h.bot.context.alters.invalidate(ALICE.id); // made through the API, not the bot: drop its 30 s list
    const refused = await slash('front', 'set', [{ name: 'alter', type: 3, value: String(moth.alterId) }]);
    expect(contentOf(refused.response)).toContain('Manage Nicknames');
    h.fake.setBotPermissions('guild', DEFAULT_BOT_PERMISSIONS | Permission.ManageNicknames);
    const { response } = await slash('front', 'set', [{ name: 'alter', type: 3, value: String(moth.alterId) }]);
    expect(contentOf(response)).toContain('Moth (Flock)');
    expect(h.fake.member(ALICE.id)?.nick).toBe('Moth (Flock)');
    h.fake.setBotPermissions('guild', null);
    // Nickname-mode alters never speak through the webhook: their tags stay in the text.
    await ignored(() => say('m: as myself'));
  });

  it('costs nothing for members who never linked, until they link (and again after /unlink)', async () => {
    let storeReads = 0;
    let profileCalls = 0;
    const store = h.bot.store;
    const api = h.bot.context.api;
    const read = store.get.bind(store);
    const fetchProfile = api.getProxyProfile.bind(api);
    store.get = (userId) => ((storeReads += 1), read(userId));
    api.getProxyProfile = (...args) => ((profileCalls += 1), fetchProfile(...args));
    try {
      await ignored(() => h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'k: first' }), 'ignored');
      const afterFirst = storeReads;
      for (let i = 0; i < 20; i += 1) await ignored(() => h.fake.sendUserMessage({ author: BOB, channelId: channel, content: `k: again ${i}` }), 'ignored');
      expect(storeReads).toBe(afterFirst);
      expect(profileCalls).toBe(0);

      await h.link(BOB.id);
      const bob = await signIn(h.server, BOB.id);
      await bob.call('POST', '/v1/users/@me/system/create-alter', { username: 'finch', displayName: 'Finch', proxyTags: [{ prefix: 'f:' }] });
      const before = executions().length;
      const message = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'f: hello, I linked' });
      expect(await outcomeOf(message.id)).toBe('proxied');
      expect(executions()[before]?.body.username).toBe('Finch');

      await slash('unlink', undefined, [], BOB);
      await ignored(() => h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'f: unlinked' }), 'ignored');
    } finally {
      store.get = read;
      api.getProxyProfile = fetchProfile;
    }
  });

  it('asks a member whose link predates proxying (no messages:write) to link again, once', async () => {
    const erin = user('410000000000000005', 'erin');
    h.fake.addMember({ user: erin });
    const old = await signIn(h.server, erin.id, { scope: 'openid offline_access alters:read alters:write system:read' });
    await old.call('POST', '/v1/users/@me/system/create-alter', { username: 'heron', displayName: 'Heron', proxyTags: [{ prefix: 'h:' }] });
    await h.bot.context.accounts.save(erin.id, { accessToken: old.token, refreshToken: old.refreshToken, expiresAt: Date.now() + 3_600_000, scope: 'alters:read alters:write system:read', linkedAt: Date.now() });
    for (const content of ['h: one', 'h: two']) {
      const message = h.fake.sendUserMessage({ author: erin, channelId: channel, content });
      expect(await outcomeOf(message.id)).toBe('ignored');
    }
    const notices = await h.fake.waitFor(() => h.fake.directMessages(erin.id).length > 0 && h.fake.directMessages(erin.id), 5000, 'a notice');
    expect(notices).toHaveLength(1);
    expect(String(notices[0]?.content)).toContain('/link');
  });

  it('after a restart reuses its webhook and still acts on messages sent before it', async () => {
    const { execution: before } = await proxied('k: before the restart');
    await waitForRecord(before.messageId);
    const webhookId = before.webhookId;
    await h.bot.stop();
    h.bot = await runBot(h.server.config, quietLog, { address: h.server.address, db: h.server.database.db });
    h.bot.context.proxying.outcomes.on('handled', (id, outcome) => {
      outcomes.set(id, outcome);
      waiting.get(id)?.(outcome);
    });
    const { execution: after } = await proxied('k: after the restart');
    expect(after.webhookId).toBe(webhookId);
    expect(h.fake.webhooks(channel)).toHaveLength(1);
    // The new process never saw the old message: the sender is checked with the service's record.
    h.fake.addReaction({ userId: ALICE.id, messageId: before.messageId, emoji: '❌' });
    await h.fake.waitFor(() => h.fake.deletedMessages().find((m) => m.id === before.messageId), 5000, 'deleted after the restart');
  });
});
