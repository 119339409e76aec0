// The gateway: a JSON websocket at /gateway (HELLO, IDENTIFY, READY and GUILD_CREATE, heartbeats,
// RESUME with replay of what the client missed) and the dispatch of events on the live sessions,
// honouring the IDENTIFY intents. Sharded as Discord shards: IDENTIFY carries `shard: [id, count]`
// (none is [0, 1]), a guild's events go only to shard `(guild_id >> 22) % count`, direct messages
// only to shard 0, each shard resumes its own session, and identifies of one `max_concurrency`
// bucket (`id % max_concurrency`) closer together than the window are counted as violations.
// Sessions as Discord keeps them: a close with 1000 or 1001 ends a session; any other close (or a
// dropped connection) leaves it resumable for the resume window, and the events of its shard keep
// being kept for it meanwhile, even after another session identified on the shard; a RESUME of an
// unknown, ended or expired session is answered with an invalid session (op 9, d: false).
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { Intent } from './constants.js';
import { waitWithTimeout } from './objects.js';
import type { FakeState } from './state.js';
import type { FakeDiscord, GatewaySession, Json } from './types.js';

export type Gateway = ReturnType<typeof createGateway>;

/** `describeGuild` builds a guild's GUILD_CREATE data for a session's intents. */
export function createGateway(state: FakeState, describeGuild: (guildId: string, intents: number) => Json) {
  const { botToken, botUser, guild, applicationId, notify } = state;
  const sessions = new Map<string, GatewaySession>();
  const sockets = new Set<WebSocket>();
  /** The live session of each shard id (of the shard count most recently identified with). */
  const liveSessions = new Map<number, GatewaySession>();
  let shardCount = 1;
  const identifies: Json[] = [];
  /** When each max_concurrency bucket last identified, and identifies that came too soon. */
  const bucketIdentifiedAt = new Map<number, number>();
  const identifyViolations: Array<{ shard: number; bucket: number; sinceLastMs: number }> = [];
  let resumes = 0;
  const refusedResumes: FakeDiscord['refusedResumes'] = [];
  let resumesAtLastDisconnect = 0;
  const readyListeners = new Set<() => void>();
  const resumeListeners = new Set<() => void>();
  /** Called once, after the next IDENTIFY was answered (READY and the guilds sent). */
  const nextIdentify: Array<() => void> = [];

  const gatewayUrl = (): string => `ws://127.0.0.1:${state.port}/gateway`;

  const send = (socket: WebSocket, payload: Json): void => {
    socket.send(JSON.stringify(payload));
  };

  const deliveredMessages: string[] = [];
  const dispatchTo = (session: GatewaySession, t: string, d: unknown): void => {
    session.seq += 1;
    const event = { s: session.seq, t, d };
    session.sent.push(event);
    // With no socket the event waits in `sent` for the client's RESUME, as on Discord.
    if (!session.socket) return;
    if (t === 'MESSAGE_CREATE' && session.socket.readyState === session.socket.OPEN) deliveredMessages.push(String((d as Json).id));
    send(session.socket, { op: 0, ...event });
  };

  const shardOfGuild = (guildId: string): number => Number((BigInt(guildId) >> 22n) % BigInt(shardCount));

  /** The live session events of `guildId` go to (undefined: a direct message, shard 0's). */
  const sessionFor = (guildId: string | undefined): GatewaySession | undefined => liveSessions.get(guildId === undefined ? 0 : shardOfGuild(guildId));

  /** The guild an event belongs to, from its data (the fake's own guild when the data names none
   * and is built per session); direct-message events belong to none. */
  const guildOf = (intent: number, d: unknown): string | undefined => {
    if (intent === Intent.DirectMessages) return undefined;
    if (d && typeof d === 'object' && typeof (d as Json).guild_id === 'string') return (d as Json).guild_id as string;
    return guild.id;
  };

  /** Dispatches on the live session of the event's shard when its intents include `intent` (0:
   * always). The data is built (or copied) now, so later changes to the fake's state do not leak
   * into a buffered event. */
  const dispatchIf = (intent: number, t: string, d: Json | ((intents: number) => Json)): void => {
    const guildId = guildOf(intent, typeof d === 'function' ? undefined : d);
    const live = sessionFor(guildId);
    if (!live) return;
    // Discord keeps a disconnected session's events for its RESUME even when another session of
    // the shard is live (both get them).
    const shardId = live.shard[0];
    const resumable = [...sessions.values()].filter(
      (session) => session !== live && session.shard[0] === shardId && session.shard[1] === shardCount && !expired(session),
    );
    for (const session of [live, ...resumable]) {
      if (intent !== 0 && (session.intents & intent) === 0) continue;
      dispatchTo(session, t, typeof d === 'function' ? d(session.intents) : structuredClone(d));
    }
  };

  /** A disconnected session past the resume window: forgotten (its kept events with it). */
  function expired(session: GatewaySession): boolean {
    if (session.disconnectedAt === undefined || Date.now() - session.disconnectedAt <= state.resumeWindowMs) return false;
    sessions.delete(session.id);
    if (liveSessions.get(session.shard[0]) === session) liveSessions.delete(session.shard[0]);
    return true;
  }

  const onIdentify = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    identifies.push(d);
    if (d.token !== botToken) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    if (identified.session) {
      socket.close(4005, 'Already authenticated.');
      return;
    }
    const shard = Array.isArray(d.shard) ? (d.shard as unknown[]) : [0, 1];
    const shardId = Number(shard[0]);
    const count = Number(shard[1]);
    if (!Number.isInteger(shardId) || !Number.isInteger(count) || count < 1 || shardId < 0 || shardId >= count) {
      socket.close(4010, 'Invalid shard.');
      return;
    }
    const bucket = shardId % state.maxConcurrency;
    const now = Date.now();
    const last = bucketIdentifiedAt.get(bucket);
    if (last !== undefined && now - last < state.identifyWindowMs) identifyViolations.push({ shard: shardId, bucket, sinceLastMs: now - last });
    bucketIdentifiedAt.set(bucket, now);
    if (count !== shardCount) {
      // A new shard count: sessions of the old one no longer receive anything.
      shardCount = count;
      liveSessions.clear();
    }
    const intents = Number(d.intents ?? 0);
    const session: GatewaySession = { id: randomBytes(16).toString('hex'), socket, seq: 0, intents: Number.isFinite(intents) ? intents : 0, sent: [], shard: [shardId, count] };
    sessions.set(session.id, session);
    identified.session = session;
    liveSessions.set(shardId, session);
    const guilds = state.allGuildIds().filter((id) => shardOfGuild(id) === shardId);
    dispatchTo(session, 'READY', {
      v: 10,
      user: { ...botUser, verified: true, mfa_enabled: false, email: null },
      guilds: guilds.map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: gatewayUrl(),
      ...(Array.isArray(d.shard) ? { shard: d.shard } : {}),
      application: { id: applicationId, flags: 0 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
      auth_session_id_hash: randomBytes(16).toString('base64'),
      _trace: ['["fake-discord",{}]'],
    });
    for (const id of guilds) dispatchTo(session, 'GUILD_CREATE', structuredClone(describeGuild(id, session.intents)));
    for (const listener of nextIdentify.splice(0)) listener();
    for (const listener of [...readyListeners]) listener();
  };

  const onResume = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    const known = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
    const session = known && !expired(known) ? known : undefined;
    const refuse = (reason: FakeDiscord['refusedResumes'][number]['reason']): void => {
      refusedResumes.push({ shard: known?.shard[0], reason });
      send(socket, { op: 9, d: false, s: null, t: null });
    };
    if (d.token !== botToken) return refuse('token');
    if (!session) return refuse(known ? 'expired' : 'unknown');
    if (session.shard[1] !== shardCount) {
      // Its shard count is gone: Discord ends such sessions (the client identifies anew).
      return refuse('shard count');
    }
    // A session is resumed on one connection: one still open is closed (as a reconnect).
    if (session.socket && session.socket !== socket) session.socket.close(4000, 'Resumed elsewhere.');
    session.socket = socket;
    session.disconnectedAt = undefined;
    identified.session = session;
    // The shard's live session is the newest one connected; a session resumed beside it does not
    // take its place.
    if (!liveSessions.get(session.shard[0])?.socket) liveSessions.set(session.shard[0], session);
    const seenSeq = typeof d.seq === 'number' ? d.seq : 0;
    for (const event of session.sent) {
      if (event.s <= seenSeq) continue;
      if (event.t === 'MESSAGE_CREATE') deliveredMessages.push(String((event.d as Json).id));
      send(socket, { op: 0, ...event });
    }
    dispatchTo(session, 'RESUMED', null);
    resumes += 1;
    for (const listener of [...resumeListeners]) listener();
  };

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (socket: WebSocket) => {
    sockets.add(socket);
    const identified: { session?: GatewaySession } = {};
    socket.on('error', () => undefined);
    socket.on('message', (raw) => {
      let payload: Json;
      try {
        payload = JSON.parse(raw.toString()) as Json;
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const d = (payload.d ?? {}) as Json;
      switch (payload.op) {
        case 1:
          send(socket, { op: 11, d: null, s: null, t: null });
          break;
        case 2:
          onIdentify(socket, d, identified);
          break;
        case 6:
          onResume(socket, d, identified);
          break;
        default:
          // Presence updates, member requests and voice state: nothing the tests need answered.
          break;
      }
      notify();
    });
    socket.on('close', (code) => {
      sockets.delete(socket);
      const session = identified.session;
      if (!session || session.socket !== socket) return;
      session.socket = undefined;
      session.disconnectedAt = Date.now();
      // A normal close ends the session on Discord; other codes leave it resumable.
      if (code === 1000 || code === 1001) {
        sessions.delete(session.id);
        if (liveSessions.get(session.shard[0]) === session) liveSessions.delete(session.shard[0]);
      }
    });
    send(socket, { op: 10, d: { heartbeat_interval: 41250, _trace: ['["fake-discord",{}]'] }, s: null, t: null });
  });

  /** The live session of a guild's shard (none: shard 0's, as direct messages), for events that
   * need one (interactions, arbitrary events). */
  const liveSessionOrThrow = (guildId?: string): GatewaySession => {
    const session = sessionFor(guildId);
    if (!session) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
    return session;
  };

  /** Every shard of the current count has a live, connected session. */
  const allShardsLive = (): boolean => {
    for (let id = 0; id < shardCount; id += 1) if (!liveSessions.get(id)?.socket) return false;
    return true;
  };

  /** A guild added after READY: GUILD_CREATE on its shard's session (the bot joined it). */
  const guildAdded = (guildId: string): void => {
    const session = sessionFor(guildId);
    if (session) dispatchTo(session, 'GUILD_CREATE', structuredClone(describeGuild(guildId, session.intents)));
  };

  /** Closes every socket with 4004, a code discord.js does not recover from, so a client left
   * running stays down. */
  const close = async (): Promise<void> => {
    await Promise.all(
      [...sockets].map(
        (socket) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => socket.terminate(), 1000);
            socket.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            socket.close(4004, 'fake Discord closing');
          }),
      ),
    );
    wss.close();
  };

  const api: Pick<FakeDiscord, 'identifies' | 'identifyViolations' | 'deliveredMessages' | 'shardOf' | 'resumeCount' | 'refusedResumes' | 'afterNextIdentify' | 'waitForReady' | 'disconnectGateway' | 'waitForResume' | 'dispatchEvent'> = {
    identifies,
    identifyViolations,
    deliveredMessages: () => [...deliveredMessages],
    shardOf: (guildId, count = shardCount) => Number((BigInt(guildId) >> 22n) % BigInt(count)),
    resumeCount: () => resumes,
    afterNextIdentify: (listener) => void nextIdentify.push(listener),
    refusedResumes,

    waitForReady(timeoutMs = 10_000) {
      if (allShardsLive()) return Promise.resolve();
      return waitWithTimeout('every shard\'s gateway session to become ready', timeoutMs, (done) => {
        const check = (): void => {
          if (allShardsLive()) done();
        };
        readyListeners.add(check);
        return () => readyListeners.delete(check);
      });
    },

    disconnectGateway(code = 4000, guildId = guild.id) {
      const session = sessionFor(guildId);
      const socket = session?.socket;
      if (!session || !socket) throw new Error('fake Discord: no live gateway session to disconnect');
      session.socket = undefined;
      session.disconnectedAt = Date.now();
      resumesAtLastDisconnect = resumes;
      socket.close(code, 'fake Discord: disconnected by the test');
    },

    waitForResume(timeoutMs = 10_000) {
      if (resumes > resumesAtLastDisconnect) return Promise.resolve();
      return waitWithTimeout('a RESUME', timeoutMs, (done) => {
        const check = (): void => {
          if (resumes > resumesAtLastDisconnect) done();
        };
        resumeListeners.add(check);
        return () => resumeListeners.delete(check);
      });
    },

    dispatchEvent(type, data) {
      const guildId = data && typeof data === 'object' && typeof (data as Json).guild_id === 'string' ? ((data as Json).guild_id as string) : undefined;
      dispatchTo(liveSessionOrThrow(guildId), type, data);
    },
  };

  return { api, wss, gatewayUrl, dispatchTo, dispatchIf, liveSessionOrThrow, guildAdded, close };
}
