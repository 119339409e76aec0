// A gateway session handed from a stopped client to the next, with bare discord.js clients (no bot
// code besides the strategy) against the fake Discord: the stop saves the session (sealed), the
// next client identifies and resumes the saved one beside it, messages sent while no client held
// the shard arrive once, and one Discord sends to both sessions while both are open arrives once;
// a session too old to resume is given up and the client still starts.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Events, GatewayIntentBits, type Message } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSharedStore, type SharedStore } from '../../../src/bot/processes/shared-store.js';
import { createSessionHandoff, type SessionHandoff } from '../../../src/bot/processes/session-handoff.js';
import { createStorageCrypto } from '../../../src/security/crypto.js';
import { startFakeDiscord, user, type FakeDiscord } from '../../support/fake-discord.js';

const ALICE = user('400000000000000009', 'alice');
const RESUME_WINDOW_MS = 3000;
const sealer = createStorageCrypto(randomBytes(32));
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
async function startClient(): Promise<{ client: Client; handoff: SessionHandoff; seen: string[] }> {
  const handoff = createSessionHandoff({ store, sealer, log });
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
