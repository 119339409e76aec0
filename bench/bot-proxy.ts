// The bot's message path, end to end: the real bot (discord.js), the real service (SQLite) and the
// fake Discord, all in this one process, as `npm start` runs the service and the bot together.
// The system has 1,000 alters × 3 proxy tags. Measured, each next to a baseline of the same run:
//   1. latency of one tagged message, MESSAGE_CREATE sent → webhook execute received, against the
//      fake gateway's own delivery (MESSAGE_CREATE sent → the bot's messageCreate event);
//   2. proxied messages per second with many in flight, against how fast the same gateway
//      delivers messages the bot ignores;
//   3. messages from members who are not systems, per second, in-process (no websocket): our
//      handling against discord.js's own MESSAGE_CREATE dispatch, with store reads and service
//      calls counted (there must be none).
// Alone: `node --import tsx bench/bot-proxy.ts [--quick]`.
import type { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Events, type Client, type GatewayMessageCreateDispatchData, type Message } from 'discord.js';
import { sql } from 'kysely';
import type { RunningBot } from '../src/bot/bot.js';
import { runBot } from '../src/run-bot.js';
import type { MessageOutcome } from '../src/bot/proxy/message-path.js';
import type { ProxyingEvents } from '../src/bot/proxy/index.js';
import { findSystemByUser } from '../src/db/repositories/systems.js';
import { usernameKey } from '../src/domain/username-key.js';
import { signIn } from '../test/support/api.js';
import { approveWithLoginLink, quietLog } from '../test/support/bot.js';
import { startFakeDiscord, user, type FakeDiscord } from '../test/support/fake-discord.js';
import { startTestServer, type TestServer } from '../test/support/server.js';

export interface BotProxyBench {
  alters: number;
  tagsPerAlter: number;
  latency: {
    messages: number;
    /** MESSAGE_CREATE sent by the fake → the webhook execute request received by the fake. */
    p50Ms: number;
    p99Ms: number;
    /** The baseline: MESSAGE_CREATE sent → the bot's messageCreate event (websocket + discord.js). */
    gatewayP50Ms: number;
    gatewayP99Ms: number;
    /** The bot's own share: messageCreate event → webhook execute received. */
    botP50Ms: number;
    botP99Ms: number;
    /** Profile revalidations answered 304 / made, while measuring (each message revalidates). */
    profileNotModified: number;
    profileCalls: number;
    /** Server settings read while measuring (with a log channel, 100 blacklisted channels and 20 blocked roles set): must be 0. */
    settingsCalls: number;
    /** Part of the bot's share: its profile revalidation, a round trip to the service. */
    profileP50Ms: number;
    profileP99Ms: number;
    /** Times discord.js held a request for its global budget while measuring (must be 0). */
    rateLimitWaits: number;
  };
  throughput: {
    messages: number;
    channels: number;
    /**
     * Proxied messages per second, all in flight at once, until every one is sent and its original
     * deleted, with discord.js's global budget (50 requests/s) lifted: the bot's own capacity.
     */
    perSecond: number;
    /** The same over one channel (discord.js sends one request at a time per webhook and per channel). */
    oneChannelPerSecond: number;
    /** Seconds after the last message until every record was stored by the service. */
    recordsDrainSeconds: number;
    /** As shipped: `shippedMessages` messages over the same channels, within discord.js's global budget. */
    shippedMessages: number;
    shippedPerSecond: number;
    shippedRateLimitWaits: number;
    /** The baseline: messages from a non-system member per second, sent → the bot's `handled` event. */
    gatewayPerSecond: number;
  };
  ignored: {
    calls: number;
    authors: number;
    /** proxying.onMessage on messages of members who are not systems. */
    oursPerSecond: number;
    /** discord.js's MESSAGE_CREATE handling alone (the bot's listener detached). */
    dispatchPerSecond: number;
    /** Both: the dispatch with the bot's listener attached, as in production. */
    bothPerSecond: number;
    /** The same dispatch plus JSON.parse of the frame's text, for scale. */
    parseAndDispatchPerSecond: number;
    /** Counted over the measured calls of (b) and (c): must be 0. */
    storeReads: number;
    profileCalls: number;
    /** Store reads while warming up: one per author, the first time they speak. */
    warmupStoreReads: number;
  };
}

const ALTERS = 1000;
/** One tagged message per 45 ms at most: 2 requests each stay under discord.js's 50 per second. */
const PACE_MS = 45;
const SYSTEM_USER = user('700000000000000001', 'bench-system');
const BYSTANDER = user('700000000000000002', 'bench-bystander');

const tagsOf = (n: number) => [
  { id: 'a', prefix: `a${n}:`, suffix: null },
  { id: 'b', prefix: `[a${n}`, suffix: ']' },
  { id: 'c', prefix: null, suffix: ` -a${n}` },
];

/** The i-th tagged message: alters spread over the system, the three tag forms in turn. */
function tagged(i: number, text: string): { content: string; alter: number } {
  const alter = 1 + ((i * 7919) % ALTERS);
  const form = i % 3;
  const content = form === 0 ? `a${alter}: ${text}` : form === 1 ? `[a${alter} ${text}]` : `${text} -a${alter}`;
  return { content, alter };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Rig {
  fake: FakeDiscord;
  server: TestServer;
  bot: RunningBot;
  stop(): Promise<void>;
}

/**
 * The service and the bot as `npm start` runs them: one process, the bot calling the service on
 * its own address (unlike test/support/bot.ts, no fault-injecting proxy in between).
 */
async function startRig(): Promise<Rig> {
  const fake = await startFakeDiscord();
  const storeDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-bot-'));
  const server = await startTestServer('sqlite', {
    DISCORD_TOKEN: fake.botToken,
    DISCORD_API_BASE: fake.apiBase,
    DISCORD_GUILD_ID: fake.guild.id,
    BOT_STORE_URL: `sqlite://${join(storeDir, 'links.sqlite')}`,
    RATE_LIMIT_ENABLED: 'false',
  });
  const bot = await runBot(server.config, quietLog, { address: server.address, db: server.database.db });
  return {
    fake,
    server,
    bot,
    async stop() {
      await bot.stop();
      await fake.close();
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** Links `userId` through the device flow, as test/support/bot.ts does. */
async function link(bot: RunningBot, userId: string): Promise<void> {
  const { api, accounts } = bot.context;
  const device = await api.startDeviceAuthorization();
  const verification = new URL(device.verificationUriComplete);
  await approveWithLoginLink(await api.mintLoginLink(userId, `${verification.pathname}${verification.search}`));
  const poll = await api.pollDeviceToken(device.deviceCode);
  if (poll.status !== 'approved') throw new Error(`device code not approved: ${poll.status}`);
  await accounts.save(userId, { ...poll.tokens, linkedAt: Date.now() });
}

/** 1,000 alters × 3 tags written straight into the database; the revision moves, so the profile's ETag does. */
async function seedSystem(rig: Rig): Promise<void> {
  const db = rig.server.database.db;
  let system = await findSystemByUser(db, SYSTEM_USER.id);
  if (!system) {
    await signIn(rig.server, SYSTEM_USER.id);
    system = await findSystemByUser(db, SYSTEM_USER.id);
  }
  if (!system) throw new Error('the benchmark user has no system');
  const now = Date.now();
  for (let start = 1; start <= ALTERS; start += 200) {
    const rows = [];
    for (let n = start; n < Math.min(ALTERS + 1, start + 200); n++) {
      rows.push({ system_id: system.id, username: `a${n}`, username_key: usernameKey(`a${n}`), display_name: `Alter ${n}`, proxy_tags: JSON.stringify(tagsOf(n)), created_at: now });
    }
    await db.insertInto('alters').values(rows).execute();
  }
  await db.updateTable('systems').set({ revision: sql`revision + 1` }).where('id', '=', system.id).execute();
}

/** Outcomes and their times, by message id, from `proxying.outcomes`; and messageCreate times. */
function watch(client: Client, outcomes: EventEmitter<ProxyingEvents>) {
  const handled = new Map<string, { outcome: MessageOutcome; at: bigint }>();
  const created = new Map<string, bigint>();
  const waiting = new Map<string, (value: { outcome: MessageOutcome; at: bigint }) => void>();
  const onHandled = (id: string, outcome: MessageOutcome) => {
    const value = { outcome, at: process.hrtime.bigint() };
    const resolve = waiting.get(id);
    if (resolve) {
      waiting.delete(id);
      resolve(value);
    } else {
      handled.set(id, value);
    }
  };
  // First in line, so it is stamped before the bot's own listener runs.
  const onCreate = (message: Message) => void created.set(message.id, process.hrtime.bigint());
  outcomes.on('handled', onHandled);
  client.prependListener(Events.MessageCreate, onCreate);
  return {
    created,
    outcomeOf(id: string, timeoutMs = 30_000): Promise<{ outcome: MessageOutcome; at: bigint }> {
      const known = handled.get(id);
      if (known) {
        handled.delete(id);
        return Promise.resolve(known);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`message ${id} was not handled within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(id, (value) => (clearTimeout(timer), resolve(value)));
      });
    },
    clear() {
      handled.clear();
      created.clear();
    },
    detach() {
      outcomes.off('handled', onHandled);
      client.off(Events.MessageCreate, onCreate);
    },
  };
}

/** Wraps the store's reads and the profile call, counting them (as test/bot/proxying.test.ts does). */
function countCalls(bot: RunningBot) {
  const store = bot.store;
  const api = bot.context.api;
  const read = store.get.bind(store);
  const fetchProfile = api.getProxyProfile.bind(api);
  const fetchSettings = api.getGuildSettings.bind(api);
  const counts = { storeReads: 0, profileCalls: 0, notModified: 0, settingsCalls: 0 };
  /** Milliseconds each profile call took (the bot's round trip to the service). */
  const profileMs: number[] = [];
  store.get = (userId) => ((counts.storeReads += 1), read(userId));
  api.getProxyProfile = async (...args) => {
    counts.profileCalls += 1;
    const started = process.hrtime.bigint();
    const result = await fetchProfile(...args);
    profileMs.push(ms(started, process.hrtime.bigint()));
    if (result.notModified) counts.notModified += 1;
    return result;
  };
  api.getGuildSettings = (...args) => ((counts.settingsCalls += 1), fetchSettings(...args));
  return {
    counts,
    profileMs,
    reset: () => (Object.assign(counts, { storeReads: 0, profileCalls: 0, notModified: 0, settingsCalls: 0 }), profileMs.splice(0)),
    restore() {
      store.get = read;
      api.getProxyProfile = fetchProfile;
      api.getGuildSettings = fetchSettings;
    },
  };
}

/** Polls `done` (what changes is the bot's state, which the fake's waitFor does not watch). */
async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function benchBotProxy(opts: { quick: boolean }): Promise<BotProxyBench> {
  const latencyCount = opts.quick ? 50 : 500;
  const burst = opts.quick ? 100 : 1000;
  const calls = opts.quick ? 20_000 : 200_000;
  const shippedCount = opts.quick ? 50 : 250;
  const channelCount = 10;

  const rig = await startRig();
  const { fake, bot } = rig;
  const client = bot.client;
  const proxying = bot.context.proxying;
  const watcher = watch(client, proxying.outcomes);
  const counter = countCalls(bot);
  try {
    await link(bot, SYSTEM_USER.id);
    fake.addMember({ user: SYSTEM_USER });
    fake.addMember({ user: BYSTANDER });
    await seedSystem(rig);
    const channel = fake.channelId;
    const executions = () => fake.webhookExecutions().filter((e) => e.kind === 'execute');

    // @discordjs/rest holds each client's requests to 50 per second (`globalRequestsPerSecond`):
    // the bot's own (the delete of the original) and, on their own client, the webhook executes. One
    // message at a time is paced to stay under that, and waits are counted.
    let rateLimitWaits = 0;
    const onRateLimited = () => void (rateLimitWaits += 1);
    const restClients = [client.rest, bot.context.proxying.webhookRest];
    for (const rest of restClients) rest.on('rateLimited', onRateLimited);
    let lastSent = 0;
    /** Sends one tagged message (paced) and waits until it is handled; check() then checks its execution. */
    async function proxyOne(i: number, channelId = channel) {
      const { content, alter } = tagged(i, `hello there ${i}`);
      const wait = lastSent + PACE_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastSent = performance.now();
      const sentAt = process.hrtime.bigint();
      const message = fake.sendUserMessage({ author: SYSTEM_USER, channelId, content });
      const { outcome } = await watcher.outcomeOf(message.id);
      if (outcome !== 'proxied') throw new Error(`message ${i} (${content}) was ${outcome}`);
      const createdAt = watcher.created.get(message.id);
      if (createdAt === undefined) throw new Error('no messageCreate seen');
      return { i, alter, sentAt, createdAt };
    }
    /**
     * The executions since `from` (the fake copies its whole list on each read, so it is read once
     * per run, not per message): one per message sent, in order, each as the right alter.
     */
    function check(from: number, sent: Array<{ i: number; alter: number }>): bigint[] {
      const list = executions().slice(from);
      if (list.length !== sent.length) throw new Error(`${sent.length} messages proxied, ${list.length} webhook executions`);
      return list.map((execution, k) => {
        const { i, alter } = sent[k] as { i: number; alter: number };
        if (execution.body.content !== `hello there ${i}` || execution.body.username !== `Alter ${alter}`) {
          throw new Error(`message ${i} was proxied wrongly: ${JSON.stringify(execution.body)}`);
        }
        return execution.receivedAt;
      });
    }

    // A busy server's settings (issue 24): a log channel, 100 blacklisted channels (not this one)
    // and 20 blocked roles (not the sender's). Messages are checked against them and logged.
    const logChannel = fake.addChannel({ name: 'mod-log' }).id;
    await bot.context.api.editGuildSettings(fake.guild.id, {
      actor: { userId: BYSTANDER.id, permission: 'manage-guild' },
      logChannel,
      blacklist: { add: Array.from({ length: 100 }, (_, i) => String(510_000_000_000_000_000n + BigInt(i))) },
      blocks: { add: Array.from({ length: 20 }, (_, i) => ({ id: String(520_000_000_000_000_000n + BigInt(i)), kind: 'role', reason: 'bench' })) },
    });

    // Warm-up: the first message fetches the profile (1,000 alters) and creates the webhook; then
    // enough messages that the JIT has compiled the path.
    const warmFrom = executions().length;
    const warm = [];
    for (let i = 0; i < 30; i++) warm.push(await proxyOne(100_000 + i));
    check(warmFrom, warm);
    await proxying.deliveries.drain(10_000);

    // 1. Latency, one message at a time. Each record reaches the service before the next message
    // (a person types slower than that), so each figure is one message's own cost.
    counter.reset();
    rateLimitWaits = 0;
    const latencyFrom = executions().length;
    const sent = [];
    for (let i = 0; i < latencyCount; i++) {
      sent.push(await proxyOne(i));
      await proxying.deliveries.drain(10_000);
    }
    const executedAt = check(latencyFrom, sent);
    const total = sent.map((t, k) => ms(t.sentAt, executedAt[k] as bigint));
    const gateway = sent.map((t) => ms(t.sentAt, t.createdAt));
    const ours = sent.map((t, k) => ms(t.createdAt, executedAt[k] as bigint));
    const latency = {
      messages: latencyCount,
      p50Ms: percentile(total, 50),
      p99Ms: percentile(total, 99),
      gatewayP50Ms: percentile(gateway, 50),
      gatewayP99Ms: percentile(gateway, 99),
      botP50Ms: percentile(ours, 50),
      botP99Ms: percentile(ours, 99),
      profileNotModified: counter.counts.notModified,
      profileCalls: counter.counts.profileCalls,
      settingsCalls: counter.counts.settingsCalls,
      profileP50Ms: percentile(counter.profileMs, 50),
      profileP99Ms: percentile(counter.profileMs, 99),
      rateLimitWaits,
    };
    watcher.clear();

    // 2. Throughput: every message sent at once, measured until the last one is handled (sent
    // through the webhook and its original deleted). Over several channels, as a bot serving a
    // server sees them, and over one.
    const channels = [channel];
    for (let c = 1; c < channelCount; c++) {
      const added = fake.addChannel({ name: `bench-${c}` });
      await until(() => client.channels.cache.has(added.id), `the bot to see channel ${added.id}`);
      channels.push(added.id);
      const from = executions().length;
      check(from, [await proxyOne(200_000 + c, added.id)]); // creates the channel's webhook
    }
    await proxying.deliveries.drain(10_000);
    async function flood(count: number, over: string[], offset: number) {
      const before = executions().length;
      const deletedBefore = fake.deletedMessages().length;
      const ids: string[] = [];
      const started = process.hrtime.bigint();
      for (let i = 0; i < count; i++) {
        ids.push(fake.sendUserMessage({ author: SYSTEM_USER, channelId: over[i % over.length] as string, content: tagged(offset + i, `burst ${offset + i}`).content }).id);
      }
      const results = await Promise.all(ids.map((id) => watcher.outcomeOf(id, 120_000)));
      const last = results.reduce((latest, r) => (r.at > latest ? r.at : latest), started);
      const lastHandled = process.hrtime.bigint();
      const drained = await proxying.deliveries.drain(120_000);
      const recordsDrainSeconds = ms(lastHandled, process.hrtime.bigint()) / 1000;
      const notProxied = results.filter((r) => r.outcome !== 'proxied').length;
      const executed = executions().length - before;
      const deleted = new Set(fake.deletedMessages().slice(deletedBefore).map((m) => m.id));
      const kept = ids.filter((id) => !deleted.has(id)).length;
      if (notProxied > 0 || executed !== count || kept > 0 || !drained) throw new Error(`burst: ${notProxied} not proxied, ${executed}/${count} executions, ${kept} originals kept, records drained: ${drained}`);
      watcher.clear();
      return { perSecond: count / (ms(started, last) / 1000), recordsDrainSeconds };
    }
    // As shipped: held by discord.js's global budget of 50 requests per second.
    rateLimitWaits = 0;
    const shipped = await flood(shippedCount, channels, 300_000);
    const shippedWaits = rateLimitWaits;
    // The bot's own capacity: the same with that budget lifted (this process only).
    // (Private fields of @discordjs/rest, reached on purpose: the budget is not meant to change.)
    const budgets = restClients.map((client) => client as unknown as { options: { globalRequestsPerSecond: number }; globalRemaining: number });
    const budget = budgets[0]?.options.globalRequestsPerSecond ?? 50;
    for (const rest of budgets) {
      rest.options.globalRequestsPerSecond = 1e9;
      rest.globalRemaining = 1e9;
    }
    let spread: { perSecond: number; recordsDrainSeconds: number };
    let single: { perSecond: number; recordsDrainSeconds: number };
    try {
      await flood(Math.min(100, burst), channels, 400_000); // warm-up
      rateLimitWaits = 0;
      spread = await flood(burst, channels, 500_000);
      single = await flood(burst, [channel], 600_000);
      if (rateLimitWaits > 0) throw new Error(`${rateLimitWaits} rate-limit waits with the budget lifted`);
    } finally {
      for (const rest of budgets) rest.options.globalRequestsPerSecond = budget;
    }

    // Baseline: the same number of messages from a member who is not a system, through the same
    // fake gateway and discord.js, until the bot has handled (ignored) each.
    const bystanderMessages = async (count: number) => {
      const ids: string[] = [];
      const started = process.hrtime.bigint();
      for (let i = 0; i < count; i++) ids.push(fake.sendUserMessage({ author: BYSTANDER, channelId: channels[i % channels.length] as string, content: tagged(i, 'not a system').content }).id);
      const results = await Promise.all(ids.map((id) => watcher.outcomeOf(id, 120_000)));
      if (results.some((r) => r.outcome !== 'ignored')) throw new Error('a bystander’s message was not ignored');
      const last = results.reduce((latest, r) => (r.at > latest ? r.at : latest), started);
      watcher.clear();
      return count / (ms(started, last) / 1000);
    };
    await bystanderMessages(Math.min(100, burst));
    const gatewayPerSecond = await bystanderMessages(burst);
    const throughput = {
      messages: burst,
      channels: channelCount,
      perSecond: spread.perSecond,
      oneChannelPerSecond: single.perSecond,
      recordsDrainSeconds: spread.recordsDrainSeconds,
      shippedMessages: shippedCount,
      shippedPerSecond: shipped.perSecond,
      shippedRateLimitWaits: shippedWaits,
      gatewayPerSecond,
    };
    client.rest.off('rateLimited', onRateLimited);

    // 3. Ignored messages, in-process. A real MESSAGE_CREATE of a member who is not a system, as
    // the gateway delivered it, is the template for 1,000 authors' packets with fresh ids.
    watcher.detach();
    let template: GatewayMessageCreateDispatchData | undefined;
    const onRaw = (packet: { t?: string; d?: GatewayMessageCreateDispatchData }) => {
      if (packet.t === 'MESSAGE_CREATE' && packet.d?.author.id === BYSTANDER.id) template ??= packet.d;
    };
    const events = client as unknown as EventEmitter;
    events.on(Events.Raw, onRaw);
    fake.sendUserMessage({ author: BYSTANDER, channelId: channel, content: 'just chatting, nothing to proxy here' });
    await until(() => template !== undefined, 'a raw MESSAGE_CREATE');
    events.off(Events.Raw, onRaw);
    if (!template) throw new Error('no MESSAGE_CREATE template');
    const base = template;
    const frame = JSON.stringify({ op: 0, t: 'MESSAGE_CREATE', s: 1, d: base });
    const authors = 1000;
    const authorIds = Array.from({ length: authors }, (_, i) => String(710000000000000000n + BigInt(i)));
    let nextId = BigInt(base.id);
    const packetFor = (i: number): GatewayMessageCreateDispatchData => {
      nextId += 1n;
      const authorId = authorIds[i % authors] as string;
      return { ...base, id: String(nextId), author: { ...base.author, id: authorId, username: `member${i % authors}` }, ...(base.member ? { member: { ...base.member } } : {}) };
    };
    const dispatch = (client as unknown as { actions: { MessageCreate: { handle(data: GatewayMessageCreateDispatchData): unknown } } }).actions.MessageCreate;

    // The bot's Message objects for 1,000 non-system authors, from discord.js's own dispatch;
    // their first messages fill the bot's memory of who is not linked (one store read each).
    const messages: Message[] = [];
    const collect = (message: Message) => void messages.push(message);
    client.on(Events.MessageCreate, collect);
    let firstHandled = 0;
    const countFirst = () => void (firstHandled += 1);
    proxying.outcomes.on('handled', countFirst);
    counter.reset();
    for (let i = 0; i < authors; i++) dispatch.handle(packetFor(i));
    client.off(Events.MessageCreate, collect);
    await until(() => firstHandled >= authors, 'the first messages handled');
    proxying.outcomes.off('handled', countFirst);
    const warmupStoreReads = counter.counts.storeReads;
    if (messages.length !== authors) throw new Error(`expected ${authors} messages, got ${messages.length}`);

    const botListeners = client.listeners(Events.MessageCreate) as Array<(message: Message) => void>;
    const noop = () => undefined;
    const BATCH = 1000;
    /** Nanoseconds for `count` calls in batches, each batch followed by a turn of the loop (promises settle). */
    async function timed(count: number, prepare: (i: number) => unknown[], run: (items: unknown[]) => void): Promise<bigint> {
      let spent = 0n;
      for (let done = 0; done < count; done += BATCH) {
        const items = prepare(done);
        const started = process.hrtime.bigint();
        run(items);
        await nextTurn();
        spent += process.hrtime.bigint() - started;
      }
      return spent;
    }
    const packets = (from: number) => Array.from({ length: BATCH }, (_, k) => packetFor(from + k));
    const frames = () => Array.from({ length: BATCH }, () => frame);
    const handleAll = (items: unknown[]) => {
      for (const item of items) dispatch.handle(item as GatewayMessageCreateDispatchData);
    };
    const parseAndHandleAll = (items: unknown[]) => {
      for (const item of items) {
        const parsed = JSON.parse(item as string) as { d: GatewayMessageCreateDispatchData };
        nextId += 1n;
        parsed.d.id = String(nextId);
        dispatch.handle(parsed.d);
      }
    };
    const ownMessages = (from: number) => Array.from({ length: BATCH }, (_, k) => messages[(from + k) % authors]);
    const onMessageAll = (items: unknown[]) => {
      for (const item of items) proxying.onMessage(item as Message).catch(noop);
    };
    const detachBot = () => client.removeAllListeners(Events.MessageCreate);
    const attachBot = () => {
      for (const listener of botListeners) client.on(Events.MessageCreate, listener);
    };

    // Rounds of (a), (b), (c) alternate, so a slow moment of the machine falls on all three.
    const rounds = opts.quick ? 2 : 5;
    const perRound = Math.ceil(calls / rounds / BATCH) * BATCH;
    const spent = { dispatch: 0n, ours: 0n, both: 0n, parse: 0n };
    // Warm-up of each, not counted.
    detachBot();
    await timed(10 * BATCH, packets, handleAll);
    await timed(2 * BATCH, frames, parseAndHandleAll);
    attachBot();
    await timed(10 * BATCH, ownMessages, onMessageAll);
    await timed(10 * BATCH, packets, handleAll);
    counter.reset();
    for (let round = 0; round < rounds; round++) {
      detachBot();
      spent.dispatch += await timed(perRound, packets, handleAll);
      spent.parse += await timed(perRound / 5, frames, parseAndHandleAll);
      attachBot();
      spent.ours += await timed(perRound, ownMessages, onMessageAll);
      spent.both += await timed(perRound, packets, handleAll);
    }
    const measured = perRound * rounds;
    const rate = (count: number, ns: bigint) => count / (Number(ns) / 1e9);
    const ignored = {
      calls: measured,
      authors,
      oursPerSecond: rate(measured, spent.ours),
      dispatchPerSecond: rate(measured, spent.dispatch),
      bothPerSecond: rate(measured, spent.both),
      parseAndDispatchPerSecond: rate((perRound / 5) * rounds, spent.parse),
      storeReads: counter.counts.storeReads,
      profileCalls: counter.counts.profileCalls,
      warmupStoreReads,
    };
    return { alters: ALTERS, tagsPerAlter: 3, latency, throughput, ignored };
  } finally {
    watcher.detach();
    counter.restore();
    await rig.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const started = performance.now();
  benchBotProxy({ quick }).then(
    (result) => {
      const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
      const { latency: l, throughput: t, ignored: g } = result;
      console.log(`system: ${f(result.alters)} alters × ${result.tagsPerAlter} proxy tags${quick ? ' (quick)' : ''}`);
      console.log(`1. latency, ${f(l.messages)} messages one at a time, MESSAGE_CREATE → webhook execute: p50 ${f(l.p50Ms, 2)} ms, p99 ${f(l.p99Ms, 2)} ms (target p99 <= 15 ms)`);
      console.log(`   gateway alone (sent → messageCreate): p50 ${f(l.gatewayP50Ms, 2)} ms, p99 ${f(l.gatewayP99Ms, 2)} ms; the bot's share (messageCreate → execute): p50 ${f(l.botP50Ms, 2)} ms, p99 ${f(l.botP99Ms, 2)} ms`);
      console.log(`   profile revalidations (within the bot's share): p50 ${f(l.profileP50Ms, 2)} ms, p99 ${f(l.profileP99Ms, 2)} ms; ${l.profileCalls} made, ${l.profileNotModified} answered 304; settings calls: ${l.settingsCalls}; discord.js rate-limit waits: ${l.rateLimitWaits} (paced: one message per ${PACE_MS} ms at most)`);
      console.log(`2. throughput as shipped, ${f(t.shippedMessages)} messages at once over ${t.channels} channels: ${f(t.shippedPerSecond, 1)} proxied/s (discord.js global budget of 50 requests/s; ${t.shippedRateLimitWaits} waits)`);
      console.log(`   with that budget lifted, ${f(t.messages)} messages at once: ${f(t.perSecond)} proxied/s over ${t.channels} channels, ${f(t.oneChannelPerSecond)} proxied/s in one channel; records stored ${f(t.recordsDrainSeconds, 2)} s after the last message`);
      console.log(`   gateway baseline (non-system messages, sent → handled): ${f(t.gatewayPerSecond)} messages/s`);
      console.log(`3. ignored (non-system authors, ${f(g.authors)} cycling), ${f(g.calls)} calls each: ours ${f(g.oursPerSecond)}/s (${f(1e6 / g.oursPerSecond, 2)} µs), discord.js dispatch ${f(g.dispatchPerSecond)}/s (${f(1e6 / g.dispatchPerSecond, 2)} µs), both ${f(g.bothPerSecond)}/s, JSON.parse + dispatch ${f(g.parseAndDispatchPerSecond)}/s; ratio ours/dispatch ${f(g.oursPerSecond / g.dispatchPerSecond, 2)} (target >= 20,000/s)`);
      console.log(`   store reads ${g.storeReads}, profile calls ${g.profileCalls} while measuring; ${g.warmupStoreReads} store reads warming up (one per author)`);
      console.log(`(${f((performance.now() - started) / 1000, 1)} s)`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
