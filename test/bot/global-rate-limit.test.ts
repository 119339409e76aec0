// DISCORD_GLOBAL_RATE_LIMIT: the budget of the bot's own Discord requests per second (Discord's
// global limit is the bot's; each process gets a share). Proxying spends one of them per message,
// the original's deletion; webhook executions (limited by Discord per webhook, not per bot) queue
// apart with a budget of the same size. With a budget of 2, six messages at once make both queues
// wait for their budget; as shipped (50) the same six would not (bench/bot-proxy.ts counts those
// waits: none).
import type { RateLimitData } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user } from '../support/fake-discord.js';

const ALICE = user('411000000000000001', 'alice');

describe('the bot’s own requests per second (DISCORD_GLOBAL_RATE_LIMIT)', () => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness({ env: { RATE_LIMIT_ENABLED: 'false', DISCORD_GLOBAL_RATE_LIMIT: '2' } });
    h.fake.addMember({ user: ALICE });
    await h.link(ALICE.id);
    const alice = await signIn(h.server, ALICE.id);
    const created = await alice.call('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel', proxyTags: [{ prefix: 'k:' }] });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => h?.stop());

  it('holds the deletions of originals, and apart from them the webhook executions, to the budget', { timeout: 60_000 }, async () => {
    const ownWaits: RateLimitData[] = [];
    const webhookWaits: RateLimitData[] = [];
    h.bot.client.rest.on('rateLimited', (data) => void (data.global && ownWaits.push(data)));
    h.bot.context.proxying.webhookRest.on('rateLimited', (data) => void (data.global && webhookWaits.push(data)));
    const executions = () => h.fake.webhookExecutions().filter((execution) => execution.kind === 'execute').length;
    // The channel's webhook first, so that the burst spends the budget on deletions only.
    h.fake.sendUserMessage({ author: ALICE, channelId: h.fake.channelId, content: 'k: first' });
    for (const deadline = Date.now() + 30_000; executions() < 1 || h.fake.deletedMessages().length < 1; ) {
      if (Date.now() > deadline) throw new Error('the first message was not proxied');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    ownWaits.length = 0;
    webhookWaits.length = 0;

    const originals = Array.from({ length: 6 }, (_, i) => h.fake.sendUserMessage({ author: ALICE, channelId: h.fake.channelId, content: `k: burst ${i}` }).id);
    for (const deadline = Date.now() + 30_000; !originals.every((id) => h.fake.deletedMessages().some((message) => message.id === id)); ) {
      if (Date.now() > deadline) throw new Error('the burst was not proxied');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(executions()).toBe(7);
    expect(ownWaits.length).toBeGreaterThan(0);
    expect(webhookWaits.length).toBeGreaterThan(0);
  });
});
