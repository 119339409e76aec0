// A gateway session handed from a stopped client to the next, with bare discord.js clients (no bot
// code besides the strategy) against the fake Discord: the stop saves the session (sealed), the
// next client identifies and resumes the saved one beside it, messages sent while no client held
// the shard arrive once, and one Discord sends to both sessions while both are open arrives once;
// a session too old to resume is given up and the client still starts. A client killed with
// SIGKILL (a process of its own) saved nothing at its end: the next resumes its last checkpoint,
// only after its "alive" lease lapsed, and the replay passes on neither the messages deleted in it
// (what a proxy deletes) nor what its author deleted while no client held the shard.
// replayToPass's rules have a table of their own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Events, GatewayIntentBits, type GatewayDispatchPayload, type Message } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCoordination, type Coordination } from '../../../src/bot/processes/coordination.js';
import { openSharedStore, type SharedStore } from '../../../src/bot/processes/shared-store.js';
import { createSessionHandoff, replayToPass, type SessionHandoff, type SessionHandoffDeps } from '../../../src/bot/processes/session-handoff.js';
import { createStorageCrypto } from '../../../src/security/crypto.js';
import { startFakeDiscord, user, type FakeDiscord } from '../../support/fake-discord.js';

const ALICE = user('400000000000000009', 'alice');
const RESUME_WINDOW_MS = 3000;
const storeKey = randomBytes(32);
const sealer = createStorageCrypto(storeKey);
const log = { info: () => undefined, warn: () => undefined };

let fake: FakeDiscord;
let store: SharedStore;
const clients: Client[] = [];

beforeAll(async () => {
  fake = await startFakeDiscord({ resumeWindowMs: RESUME_WINDOW_MS });
  store = await openSharedStore('sqlite://');
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.destroy();
});
afterAll(async () => {
  await store?.close();
  await fake?.close();
});

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A client using the handoff strategy; the ids of the messages it was given, in order. */
async function startClient(
  extra: Partial<SessionHandoffDeps> = {},
  on: SharedStore = store,
): Promise<{ client: Client; handoff: SessionHandoff; seen: string[] }> {
  const handoff = createSessionHandoff({ store: on, sealer, log, ...extra });
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
    rest: { api: fake.apiBase },
    ws: { buildStrategy: (manager) => handoff.buildStrategy(manager) },
  });
  const seen: string[] = [];
  client.on(Events.MessageCreate, (message: Message) => void seen.push(message.id));
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(fake.botToken);
  await ready;
  clients.push(client);
  return { client, handoff, seen };
}

async function handOff(running: { client: Client; handoff: SessionHandoff }): Promise<void> {
  running.handoff.handOff();
  await running.client.destroy();
  clients.splice(clients.indexOf(running.client), 1);
}

const say = (content: string) => fake.sendUserMessage({ author: ALICE, content }).id;

describe('handing a gateway session to the next process', () => {
  it('delivers once what was sent while no client held the shard, and what came to both sessions', async () => {
    const first = await startClient();
    const before = say('before the stop');
    await until('the first client to see it', () => first.seen.includes(before));
    await handOff(first);
    const saved = await store.get('gateway-session:0');
    expect(saved).toBeDefined();
    expect(saved).not.toContain(fake.botToken.slice(0, 10));

    const away = [say('while away 1'), say('while away 2')];
    // Sent the moment the next client's new session is ready, while the old one is still open
    // (or waiting for its RESUME): Discord sends it to both.
    const both: string[] = [];
    fake.afterNextIdentify(() => void both.push(say('to both sessions')));
    const resumesBefore = fake.resumeCount();
    const next = await startClient();
    await until('the messages sent while away and to both', () => [...away, ...both].every((id) => next.seen.includes(id)));
    const after = say('after');
    await until('a message after', () => next.seen.includes(after));
    expect(both).toHaveLength(1);
    // Each once (the replayed and the live ones come on two connections: in either order).
    expect([...next.seen].sort()).toEqual([...away, ...both, after].sort());
    expect(fake.resumeCount()).toBe(resumesBefore + 1);
    expect(fake.refusedResumes).toEqual([]);
    expect(await store.get('gateway-session:0')).toBeUndefined();
  });

  it('gives up a session past the resume window and starts all the same', async () => {
    const first = await startClient();
    await handOff(first);
    const lost = say('while away, too long');
    await sleep(RESUME_WINDOW_MS + 500);
    const refusedBefore = fake.refusedResumes.length;
    const next = await startClient();
    const after = say('after');
    await until('a message after', () => next.seen.includes(after));
    expect(next.seen).not.toContain(lost);
    expect(fake.refusedResumes.slice(refusedBefore).map((refused) => refused.reason)).toEqual(['expired']);
  });
});

describe('resuming the session of a process that crashed', () => {
  const LEASE_MS = 1000;
  let dir: string;
  let shared: SharedStore;
  let coordination: Coordination | undefined;
  let child: ReturnType<typeof spawn> | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-handoff-'));
    shared = await openSharedStore(`sqlite://${join(dir, 'store')}`);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await coordination?.stop();
    await shared?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes its last checkpoint once its lease lapsed: nothing lost, nothing it deleted passed again', async () => {
    // The crashing client: its checkpoint keeps its READY's sequence (a lag longer than the test),
    // so the replay repeats everything it was given, as a crash in the lag does.
    child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../support/handoff-client.ts')], {
      env: {
        ...process.env,
        API_BASE: fake.apiBase,
        BOT_TOKEN: fake.botToken,
        STORE_URL: `sqlite://${join(dir, 'store')}`,
        STORE_KEY: storeKey.toString('hex'),
        LEASE_MS: String(LEASE_MS),
        CHECKPOINT_INTERVAL_MS: '100',
        CHECKPOINT_LAG_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
    await until('the first client to be ready', () => lines.includes('ready'), 30_000);
    const handled = say('proxied before the crash');
    const kept = say('read before the crash');
    await until('the first client to see both', () => lines.includes(`seen ${handled}`) && lines.includes(`seen ${kept}`));
    // What a proxy does with a message it sent on: its original is deleted.
    fake.deleteUserMessage(handled);
    await until('its checkpoint', () => lines.length > 0);
    await sleep(300);
    expect(await shared.get('gateway-checkpoint:0')).toBeDefined();

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    const away = say('sent while no client held the shard');
    const unsaid = say('sent and deleted while no client held the shard');
    fake.deleteUserMessage(unsaid);

    const resumesBefore = fake.resumeCount();
    const refusedBefore = fake.refusedResumes.length;
    let resumedAt = 0;
    coordination = startCoordination(shared, LEASE_MS, log);
    const next = await startClient({ coordination, checkpointIntervalMs: 100, checkpointLagMs: 600_000 }, shared);
    await until('the replay', () => {
      if (!resumedAt && fake.resumeCount() > resumesBefore) resumedAt = Date.now();
      return next.seen.includes(away);
    }, 20_000);
    const after = say('after');
    await until('a message after', () => next.seen.includes(after));

    // Not before the crashed process's lease could lapse: its last renewal was at most a quarter
    // lease before the kill.
    expect(resumedAt - killedAt).toBeGreaterThanOrEqual(LEASE_MS * 0.75 - 50);
    expect(fake.refusedResumes.slice(refusedBefore)).toEqual([]);
    // The replay repeats what the crashed client had read (it may not have handled it), but not
    // what was deleted: neither the message it proxied nor the one deleted while none held the shard.
    expect([...next.seen].sort()).toEqual([kept, away, after].sort());
    // The store now holds this client's own checkpoint.
    await sleep(300);
    const sealed = await shared.get('gateway-checkpoint:0');
    expect(sealer.unseal<{ instance: string }>(sealed ?? '', 'gateway-checkpoint:0')?.instance).toBe(coordination.instance);
    // A stop leaves no checkpoint behind (its sessions are saved whole, or ended).
    await handOff(next);
    expect(await shared.get('gateway-checkpoint:0')).toBeUndefined();
    expect(await shared.get('gateway-session:0')).toBeDefined();
    await shared.delete('gateway-session:0');
  }, 60_000);
});

describe('replayToPass', () => {
  const event = (t: string, d: Record<string, unknown>) => ({ t, d, s: 0, op: 0 }) as unknown as GatewayDispatchPayload;
  const create = (id: string) => event('MESSAGE_CREATE', { id, channel_id: 'c' });
  const update = (id: string) => event('MESSAGE_UPDATE', { id, channel_id: 'c' });
  const remove = (id: string) => event('MESSAGE_DELETE', { id, channel_id: 'c' });
  const removeAll = (...ids: string[]) => event('MESSAGE_DELETE_BULK', { ids, channel_id: 'c' });
  const react = (messageId: string, emoji: string) => event('MESSAGE_REACTION_ADD', { message_id: messageId, user_id: 'u', emoji: { id: null, name: emoji } });
  const unreact = (messageId: string, emoji: string) => event('MESSAGE_REACTION_REMOVE', { message_id: messageId, user_id: 'u', emoji: { id: null, name: emoji } });

  it.each([
    ['a message not deleted passes, in order', [create('1'), update('1'), create('2')], [create('1'), update('1'), create('2')]],
    ['a message deleted later in the replay: neither it nor its edit, the deletion passes', [create('1'), update('1'), remove('1')], [remove('1')]],
    ['a bulk deletion counts for each message', [create('1'), create('2'), create('3'), removeAll('1', '3')], [create('2'), removeAll('1', '3')]],
    ['a deletion before the message in the replay still drops it (ids are unique)', [remove('1'), create('1')], [remove('1')]],
    ['a reaction taken back later: the removal passes, the reaction does not', [create('1'), react('1', '✅'), unreact('1', '✅')], [create('1'), unreact('1', '✅')]],
    ['a reaction given again after its removal passes', [react('1', '✅'), unreact('1', '✅'), react('1', '✅')], [unreact('1', '✅'), react('1', '✅')]],
    ['another emoji is another reaction', [react('1', '✅'), unreact('1', '❌')], [react('1', '✅'), unreact('1', '❌')]],
    ['reactions on a deleted message go with it', [react('1', '✅'), unreact('1', '❌'), remove('1')], [remove('1')]],
  ] as const)('%s', (_name, replay, passed) => {
    expect(replayToPass(replay)).toEqual(passed);
  });
});
