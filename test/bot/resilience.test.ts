// A sick service never crashes the bot or leaves an interaction unanswered: down, slow, failing
// and rate-limiting services each get a short private message, and the bot recovers after.
import { MessageFlags } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BOT_CLIENT_ID, ensureBotClient, rotateClientSecret } from '../../src/auth/clients.js';
import { loadBotClientSecret } from '../../src/config/secrets.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user, type RecordedResponse } from '../support/fake-discord.js';

const DANA = user('400000000000000011', 'dana');
const answered = (r: RecordedResponse) => r.kind === 'edit' || r.kind === 'followup' || (r.kind === 'callback' && r.callbackType === 4);

describe('the bot when the service misbehaves', () => {
  let h: BotHarness;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    h = await startBotHarness({ env: { BOT_API_TIMEOUT: '2500', RATE_LIMIT_PER_TOKEN: '40' } });
    await h.link(DANA.id);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await h?.stop();
  });
  afterEach(() => {
    h.proxy.mode = 'pass';
  });

  const show = () => h.run(h.fake.slashCommand({ name: 'system', subcommand: 'show', user: DANA }), answered, 15_000);

  it('says the service cannot be reached when connections fail, then recovers', async () => {
    h.proxy.mode = 'reset';
    const { response } = await show();
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(response.body.content)).toMatch(/cannot be reached/);
    h.proxy.mode = 'pass';
    expect(((await show()).response.body.embeds as unknown[]).length).toBe(1);
  });

  it('defers when the service is slow, then reports the timeout privately', async () => {
    h.proxy.mode = 'hang';
    const handle = h.fake.dispatchInteraction(h.fake.slashCommand({ name: 'system', subcommand: 'show', user: DANA }));
    const deferred = await handle.waitForResponse((r) => r.kind === 'callback', 5000);
    expect(deferred.callbackType).toBe(5);
    expect(Number(handle.sentAt) > 0).toBe(true);
    const reported = await handle.waitForResponse((r) => r.kind === 'followup', 10_000);
    expect(reported.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(reported.body.content)).toMatch(/too long/);
    // The public "thinking…" is removed rather than turned into a public error.
    expect(handle.responses.some((r) => r.kind === 'delete')).toBe(true);
  });

  it('reports a 5xx from the service as a short message', async () => {
    h.proxy.mode = 'error-500';
    const { response } = await show();
    expect(String(response.body.content)).toMatch(/had a problem/);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
  });

  it('says the bot is misconfigured when the service refuses its client secret, keeps the link, and refreshes once it matches', async () => {
    const before = await h.bot.store.get(DANA.id);
    if (!before) throw new Error('DANA is not linked');
    await h.bot.context.accounts.save(DANA.id, { ...before, expiresAt: Date.now() - 1000 });
    // The service's registration no longer matches the bot's BOT_CLIENT_SECRET (a mistyped secret).
    await rotateClientSecret(h.server.database.db, BOT_CLIENT_ID);
    try {
      for (let i = 0; i < 2; i++) {
        const { response } = await show();
        expect(response.body.flags).toBe(MessageFlags.Ephemeral);
        expect(String(response.body.content)).toMatch(/bot is misconfigured/);
        expect(await h.bot.store.get(DANA.id)).toMatchObject({ refreshToken: before.refreshToken });
      }
    } finally {
      await ensureBotClient(h.server.database.db, loadBotClientSecret(h.server.config));
    }
    expect(((await show()).response.body.embeds as unknown[]).length).toBe(1);
    expect((await h.bot.store.get(DANA.id))?.refreshToken).not.toBe(before.refreshToken);
  });

  it('honours the service’s rate limit and says when to try again', async () => {
    let limited: RecordedResponse | undefined;
    for (let i = 0; i < 45 && !limited; i++) {
      const { response } = await show();
      if (/Too many requests/.test(String(response.body.content))) limited = response;
    }
    expect(limited?.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(limited?.body.content)).toMatch(/try again in \d+ s/i);
  });

  it('had no unhandled rejections', () => {
    expect(unhandled).toEqual([]);
  });
});
