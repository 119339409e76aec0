// What moderators get from proxying, end to end (the real service, the real bot and the fake
// Discord; issue 24): message info that always shows the name a message was sent under, the sender,
// when and a link, whatever the alter's privacy; and a copy that never outlives its original when a
// filter bot (or the sender) removed the original before the bot could.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OriginalRemovedFirst } from '../../src/bot/proxy/message-path.js';
import { messageInfoEmbed } from '../../src/bot/proxy/message-info.js';
import type { Alter } from '../../src/domain/alter.js';
import type { MessageInfo } from '../../src/domain/proxied-message.js';
import { request, signIn, type ApiUser } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, user, type ApiMessage, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('410000000000000101', 'alice');
const BOB = user('410000000000000102', 'bob');
const FILTER = user('610000000000000001', 'chatfilter');

type Embed = { fields: Array<{ name: string; value: string }> };
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const field = (embed: Embed, name: string) => embed.fields.find((f) => f.name === name)?.value ?? '';

describe.each(DIALECTS)('moderation through the bot (%s)', (dialect) => {
  let h: BotHarness;
  let alice: ApiUser;
  let kestrel: Alter;
  const outcomes = new Map<string, string>();
  const waiting = new Map<string, (outcome: string) => void>();
  const removedFirst: OriginalRemovedFirst[] = [];

  function outcomeOf(messageId: string, timeoutMs = 10_000): Promise<string> {
    const known = outcomes.get(messageId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${messageId} was not handled`)), timeoutMs);
      waiting.set(messageId, (outcome) => (clearTimeout(timer), resolve(outcome)));
    });
  }
  const executions = () => h.fake.webhookExecutions().filter((e) => e.kind === 'execute');
  const info = (id: string) => request<{ data: MessageInfo }>(h.server, 'GET', `/v1/messages/${id}`, { token: alice.token });
  async function waitForRecord(messageId: string): Promise<MessageInfo> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await info(messageId);
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
    h.bot.context.proxying.outcomes.on('originalRemovedFirst', (event) => removedFirst.push(event));
    await h.link(ALICE.id);
    h.fake.addMember({ user: ALICE });
    h.fake.addMember({ user: BOB });
    h.fake.addOtherBot({ user: FILTER, permissions: DEFAULT_EVERYONE_PERMISSIONS | Permission.ManageMessages });
    alice = await signIn(h.server, ALICE.id);
    // Private, as every new alter is: nobody but Alice may read its profile.
    kestrel = (await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel', proxyTags: [{ prefix: 'k:' }] })).body;
    expect(kestrel.public).toBe(0);
  }, 60_000);
  afterAll(async () => h?.stop());

  async function proxied(content: string): Promise<{ original: ApiMessage; copy: ApiMessage }> {
    const before = executions().length;
    const original = h.fake.sendUserMessage({ author: ALICE, content });
    expect(await outcomeOf(original.id)).toBe('proxied');
    const execution = executions()[before];
    const copy = execution && h.fake.getMessage(execution.messageId);
    if (!copy) throw new Error('no proxied copy');
    return { original, copy };
  }

  describe('message info', () => {
    it('shows a moderator the name it was sent under, the sender, when and a link, though the alter is private', async () => {
      const { copy } = await proxied('k: who said this?');
      const record = await waitForRecord(copy.id);
      expect(record.proxiedName).toBe('Kestrel');
      // Bob never linked: the bot asks with its own client token.
      const { handle, response } = await h.run(h.fake.messageContextMenu({ name: 'Message info', user: BOB, targetMessage: copy }), isAnswer);
      // Private: the first callback (a reply, or a deferral when the bot is slow) is ephemeral.
      expect(handle.responses[0]?.body.flags).toBe(64);
      const embed = (response.body.embeds as Embed[])[0];
      if (!embed) throw new Error('no embed');
      expect(field(embed, 'Sent as')).toBe('**Kestrel**');
      expect(field(embed, 'Sent by')).toBe(`<@${ALICE.id}> (\`${ALICE.id}\`)`);
      const sentAt = Math.floor(Date.parse(record.timestamp) / 1000);
      expect(field(embed, 'Sent')).toContain(`<t:${sentAt}:F>`);
      expect(field(embed, 'Sent')).toContain(`https://discord.com/channels/${h.fake.guild.id}/${copy.channel_id}/${copy.id}`);
      // The profile stays private: only the name everyone saw is shown.
      expect(field(embed, 'Alter')).toBe('*(profile private, or deleted)*');
      expect(field(embed, 'System')).toContain('*(private)*');
    });

    it('❓ sends the same to the reactor privately', async () => {
      const { copy } = await proxied('k: react here');
      await waitForRecord(copy.id);
      const dms = h.fake.directMessages(BOB.id).length;
      h.fake.addReaction({ userId: BOB.id, messageId: copy.id, emoji: '❓' });
      const dm = await h.fake.waitFor(() => h.fake.directMessages(BOB.id)[dms], 5000, 'message info by DM');
      const embed = (dm.embeds as Embed[])[0];
      if (!embed) throw new Error('no embed');
      expect(field(embed, 'Sent as')).toBe('**Kestrel**');
      expect(field(embed, 'Sent by')).toContain(ALICE.id);
      expect(field(embed, 'Sent')).toContain(copy.id);
    });

    it('falls back to the name Discord shows for records made before the name was kept', () => {
      const old: MessageInfo = {
        messageId: '1300000000000000001', originalMessageId: '1300000000000000000', channelId: '1300000000000000002', guildId: '1300000000000000003',
        senderId: ALICE.id, proxiedName: null, timestamp: new Date().toISOString(), system: null, alterId: null, alter: null, alterDeleted: null, systemDeleted: false, redacted: ['system'],
      };
      expect(field(messageInfoEmbed(old, 'Kestrel *she/her*') as Embed, 'Sent as')).toBe('**Kestrel \\*she/her\\***');
      expect(field(messageInfoEmbed({ ...old, proxiedName: 'Recorded' }, 'Shown') as Embed, 'Sent as')).toBe('**Recorded**');
    });
  });

  describe('an original removed before the bot could delete it', () => {
    async function withdrawn(send: () => ApiMessage): Promise<{ original: ApiMessage; copyId: string; event: OriginalRemovedFirst }> {
      const before = executions().length;
      const original = send();
      expect(await outcomeOf(original.id)).toBe('withdrawn');
      const execution = executions()[before];
      if (!execution) throw new Error('the copy was never sent');
      // The copy is gone at once, through the webhook that sent it.
      expect(h.fake.getMessage(execution.messageId)).toBeUndefined();
      expect(h.fake.deletedMessages().some((message) => message.id === execution.messageId)).toBe(true);
      const event = removedFirst.find((entry) => entry.originalMessageId === original.id);
      if (!event) throw new Error('no originalRemovedFirst event');
      return { original, copyId: execution.messageId, event };
    }

    it('deletes the copy when a filter bot removed the original as it arrived, and records nothing', async () => {
      const stop = h.fake.addFilterBot({ botId: FILTER.id, matches: (message) => message.content.includes('slur'), when: 'on-create' });
      try {
        const { original, copyId, event } = await withdrawn(() => h.fake.sendUserMessage({ author: ALICE, content: 'k: a slur here' }));
        expect(event).toEqual({
          guildId: h.fake.guild.id, channelId: h.fake.channelId, originalMessageId: original.id, senderId: ALICE.id,
          alterId: kestrel.alterId, proxiedMessageId: copyId, proxiedName: 'Kestrel', copyDeleted: true,
        });
        await h.bot.context.proxying.deliveries.drain(5000);
        expect((await info(copyId)).status).toBe(404);
        // Messages the filter lets through are proxied as ever.
        await proxied('k: a kind word');
      } finally {
        stop();
      }
    });

    it('deletes the copy when the filter wins the race just before the bot’s delete', async () => {
      const stop = h.fake.addFilterBot({ botId: FILTER.id, matches: (message) => message.content.includes('spam'), when: 'before-bot-deletes' });
      try {
        const { event } = await withdrawn(() => h.fake.sendUserMessage({ author: ALICE, content: 'k: buy spam' }));
        expect(event.copyDeleted).toBe(true);
      } finally {
        stop();
      }
    });

    it('deletes the copy when the sender removed the original at once', async () => {
      const { event } = await withdrawn(() => {
        const original = h.fake.sendUserMessage({ author: ALICE, content: 'k: oops, never mind' });
        h.fake.deleteUserMessage(original.id);
        return original;
      });
      expect(event.senderId).toBe(ALICE.id);
    });
  });
});
