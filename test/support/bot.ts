// The service and the bot as shipped (runBot, as `npm start` runs it) against a fake Discord,
// plus shortcuts tests need: linking a user through the real device flow, running a command and
// waiting for its answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient, TokenSet } from '../../src/bot/api-client.js';
import type { RunningBot } from '../../src/bot/bot.js';
import { runBot } from '../../src/run-bot.js';
import type { Environment } from '../../src/config/config.js';
import { TestBrowser } from './browser.js';
import type { TestDialect } from './dialects.js';
import { startFakeDiscord, type FakeDiscord, type InteractionHandle, type InteractionPayload, type RecordedResponse } from './fake-discord.js';
import { startFaultyProxy, type FaultyProxy } from './faulty-proxy.js';
import { startTestServer, type TestServer } from './server.js';

export const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface BotHarness {
  fake: FakeDiscord;
  server: TestServer;
  bot: RunningBot;
  /** Between the bot and the service: switch its mode to make the service misbehave. */
  proxy: FaultyProxy;
  /** Links `userId` through the device flow the way a person would, without waiting to poll. */
  link(userId: string): Promise<void>;
  /** Dispatches an interaction and waits for its first answer (callback). */
  run(
    payload: InteractionPayload,
    predicate?: (response: RecordedResponse) => boolean,
    timeoutMs?: number,
  ): Promise<{ handle: InteractionHandle; response: RecordedResponse }>;
  stop(): Promise<void>;
}

/** Approves a device code in a browser signed in by a one-time login link. */
export async function approveWithLoginLink(url: string): Promise<string> {
  const browser = new TestBrowser();
  const autoPost = await browser.navigate(url);
  const confirm = await browser.submit(autoPost, '/auth/oauth2/device', {});
  const consent = await browser.submit(confirm, '/auth/oauth2/device', {});
  const done = await browser.submit(consent, '/consent', { decision: 'approve' });
  if (!done.body.includes('is now connected')) throw new Error(`approval failed: ${done.status} ${done.body.slice(0, 300)}`);
  return done.body;
}

/** Links `userId` through the bot's device flow (a login link approved in a browser); its tokens. */
export async function linkThroughDeviceFlow(api: ApiClient, userId: string): Promise<TokenSet> {
  const device = await api.startDeviceAuthorization(userId);
  const verification = new URL(device.verificationUriComplete);
  await approveWithLoginLink(await api.mintLoginLink(userId, `${verification.pathname}${verification.search}`));
  const poll = await api.pollDeviceToken(device.deviceCode);
  if (poll.status !== 'approved') throw new Error(`device code not approved: ${poll.status}`);
  return poll.tokens;
}

export async function startBotHarness(options: { dialect?: TestDialect; env?: Environment } = {}): Promise<BotHarness> {
  const fake = await startFakeDiscord();
  const proxy = await startFaultyProxy();
  const storeDir = mkdtempSync(join(tmpdir(), 'switchboard-bot-'));
  const server = await startTestServer(options.dialect ?? 'sqlite', {
    DISCORD_TOKEN: fake.botToken,
    DISCORD_API_BASE: fake.apiBase,
    DISCORD_GUILD_ID: fake.guild.id,
    BOT_STORE_URL: `sqlite://${join(storeDir, 'links.sqlite')}`,
    SWITCHBOARD_API_URL: proxy.url,
    ...options.env,
  });
  proxy.target = server.address;
  const bot = await runBot(server.config, quietLog, { address: server.address, db: server.database.db });
  const { api, accounts } = bot.context;
  return {
    fake,
    server,
    bot,
    proxy,
    async link(userId) {
      await accounts.save(userId, { ...(await linkThroughDeviceFlow(api, userId)), linkedAt: Date.now() });
    },
    async run(payload, predicate, timeoutMs = 10_000) {
      const handle = fake.dispatchInteraction(payload);
      const response = await handle.waitForResponse(predicate, timeoutMs);
      return { handle, response };
    },
    async stop() {
      await bot.stop();
      await fake.close();
      await proxy.close();
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
