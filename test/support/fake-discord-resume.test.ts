// The fake Discord resumes sessions as Discord documents it, driven over a bare websocket: a
// session closed with another code than 1000/1001 keeps its events, even beside a newer session of
// its shard, and a RESUME replays those after its `seq`, then RESUMED; a session unknown, closed
// with 1000, or disconnected longer than the resume window gets an invalid session (op 9, false).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeDiscord, user, type FakeDiscord } from './fake-discord.js';

const ALICE = user('400000000000000007', 'alice');
const RESUME_WINDOW_MS = 1500;
const INTENTS = (1 << 0) | (1 << 9) | (1 << 15); // guilds, guild messages, message content

type Payload = { op: number; s?: number | null; t?: string | null; d?: unknown };

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await startFakeDiscord({ resumeWindowMs: RESUME_WINDOW_MS });
});
afterAll(async () => fake?.close());

/** A gateway connection: what it received, and a wait for a payload. */
async function connect() {
  const socket = new WebSocket(`${fake.apiBase.replace(/^http/, 'ws').replace(/\/api$/, '')}/gateway?v=10&encoding=json`);
  const received: Payload[] = [];
  socket.on('message', (raw) => received.push(JSON.parse(raw.toString()) as Payload));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const waitFor = async (predicate: (payload: Payload) => boolean): Promise<Payload> => {
    for (let n = 0; n < 200; n += 1) {
      const found = received.find(predicate);
      if (found) return found;
      await sleep(10);
    }
    throw new Error(`no such payload; received ${JSON.stringify(received.map((p) => [p.op, p.t]))}`);
  };
  const send = (payload: Payload) => socket.send(JSON.stringify(payload));
  const close = (code: number) =>
    new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(code);
    });
  await waitFor((payload) => payload.op === 10);
  return { received, waitFor, send, close };
}

async function identify() {
  const connection = await connect();
  connection.send({ op: 2, d: { token: fake.botToken, intents: INTENTS, properties: {}, shard: [0, 1] } });
  const ready = await connection.waitFor((payload) => payload.t === 'READY');
  return { ...connection, sessionId: (ready.d as { session_id: string }).session_id };
}

const messageIds = (payloads: Payload[]) => payloads.filter((payload) => payload.t === 'MESSAGE_CREATE').map((payload) => (payload.d as { id: string }).id);
const lastSeq = (payloads: Payload[]) => Math.max(...payloads.map((payload) => payload.s ?? 0));

describe('fake Discord resuming', () => {
  it('replays what a session missed after its seq, then RESUMED, even with a newer session on its shard', async () => {
    const old = await identify();
    const first = fake.sendUserMessage({ author: ALICE, content: 'seen' });
    await old.waitFor((payload) => payload.t === 'MESSAGE_CREATE');
    const seq = lastSeq(old.received);
    await old.close(4200);
    const missed = fake.sendUserMessage({ author: ALICE, content: 'while away' });
    const newer = await identify();
    const both = fake.sendUserMessage({ author: ALICE, content: 'to both' });
    await newer.waitFor((payload) => payload.t === 'MESSAGE_CREATE');

    const resumed = await connect();
    resumed.send({ op: 6, d: { token: fake.botToken, session_id: old.sessionId, seq } });
    await resumed.waitFor((payload) => payload.t === 'RESUMED');
    expect(messageIds(resumed.received)).toEqual([missed.id, both.id]);
    expect(messageIds(resumed.received)).not.toContain(first.id);
    expect(messageIds(newer.received)).toEqual([both.id]);
    await resumed.close(1000);
    await newer.close(1000);
  });

  it('answers an unknown session, one closed with 1000, and one past the resume window with an invalid session', async () => {
    const refusedBefore = fake.refusedResumes.length;
    const tryResume = async (sessionId: string) => {
      const connection = await connect();
      connection.send({ op: 6, d: { token: fake.botToken, session_id: sessionId, seq: 1 } });
      const answer = await connection.waitFor((payload) => payload.op === 9 || payload.t === 'RESUMED');
      await connection.close(1000);
      return answer;
    };
    expect(await tryResume('0123456789abcdef0123456789abcdef')).toMatchObject({ op: 9, d: false });

    const ended = await identify();
    await ended.close(1000);
    expect(await tryResume(ended.sessionId)).toMatchObject({ op: 9, d: false });

    const lapsed = await identify();
    await lapsed.close(4000);
    await sleep(RESUME_WINDOW_MS + 300);
    expect(await tryResume(lapsed.sessionId)).toMatchObject({ op: 9, d: false });
    expect(fake.refusedResumes.slice(refusedBefore).map((refused) => refused.reason)).toEqual(['unknown', 'unknown', 'expired']);
  });
});
