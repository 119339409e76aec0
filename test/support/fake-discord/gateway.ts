// The gateway: a JSON websocket at /gateway (HELLO, IDENTIFY, READY and GUILD_CREATE, heartbeats,
// RESUME with replay of what the client missed) and the dispatch of events on the live session,
// honouring the IDENTIFY intents.
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { waitWithTimeout } from './objects.js';
import type { FakeState } from './state.js';
import type { FakeDiscord, GatewaySession, Json } from './types.js';

export type Gateway = ReturnType<typeof createGateway>;

/** `describeGuild` builds GUILD_CREATE's data for a session's intents. */
export function createGateway(state: FakeState, describeGuild: (intents: number) => Json) {
  const { botToken, botUser, guild, applicationId, notify } = state;
  const sessions = new Map<string, GatewaySession>();
  const sockets = new Set<WebSocket>();
  let liveSession: GatewaySession | undefined;
  const identifies: Json[] = [];
  let resumes = 0;
  let resumesAtLastDisconnect = 0;
  const readyListeners = new Set<() => void>();
  const resumeListeners = new Set<() => void>();

  const gatewayUrl = (): string => `ws://127.0.0.1:${state.port}/gateway`;

  const send = (socket: WebSocket, payload: Json): void => {
    socket.send(JSON.stringify(payload));
  };

  const dispatchTo = (session: GatewaySession, t: string, d: unknown): void => {
    session.seq += 1;
    const event = { s: session.seq, t, d };
    session.sent.push(event);
    // With no socket the event waits in `sent` for the client's RESUME, as on Discord.
    if (session.socket) send(session.socket, { op: 0, ...event });
  };

  /** Dispatches on the live session when its intents include `intent` (0: always). The data is
   * built (or copied) now, so later changes to the fake's state do not leak into a buffered event. */
  const dispatchIf = (intent: number, t: string, d: Json | ((intents: number) => Json)): void => {
    const session = liveSession;
    if (!session || (intent !== 0 && (session.intents & intent) === 0)) return;
    dispatchTo(session, t, typeof d === 'function' ? d(session.intents) : structuredClone(d));
  };

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
    const intents = Number(d.intents ?? 0);
    const session: GatewaySession = { id: randomBytes(16).toString('hex'), socket, seq: 0, intents: Number.isFinite(intents) ? intents : 0, sent: [] };
    sessions.set(session.id, session);
    identified.session = session;
    liveSession = session;
    dispatchTo(session, 'READY', {
      v: 10,
      user: { ...botUser, verified: true, mfa_enabled: false, email: null },
      guilds: [{ id: guild.id, unavailable: true }],
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
    dispatchTo(session, 'GUILD_CREATE', structuredClone(describeGuild(session.intents)));
    for (const listener of [...readyListeners]) listener();
  };

  const onResume = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
    if (d.token !== botToken || !session) {
      send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    session.socket = socket;
    identified.session = session;
    liveSession = session;
    const seenSeq = typeof d.seq === 'number' ? d.seq : 0;
    for (const event of session.sent) if (event.s > seenSeq) send(socket, { op: 0, ...event });
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
      // A normal close ends the session on Discord; other codes leave it resumable.
      if (code === 1000 || code === 1001) {
        sessions.delete(session.id);
        if (liveSession === session) liveSession = undefined;
      }
    });
    send(socket, { op: 10, d: { heartbeat_interval: 41250, _trace: ['["fake-discord",{}]'] }, s: null, t: null });
  });

  /** The live session, for events that need one (interactions, arbitrary events). */
  const liveSessionOrThrow = (): GatewaySession => {
    if (!liveSession) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
    return liveSession;
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

  const api: Pick<FakeDiscord, 'identifies' | 'resumeCount' | 'waitForReady' | 'disconnectGateway' | 'waitForResume' | 'dispatchEvent'> = {
    identifies,
    resumeCount: () => resumes,

    waitForReady(timeoutMs = 10_000) {
      if (liveSession?.socket) return Promise.resolve();
      return waitWithTimeout('a gateway session to become ready', timeoutMs, (done) => {
        readyListeners.add(done);
        return () => readyListeners.delete(done);
      });
    },

    disconnectGateway(code = 4000) {
      const socket = liveSession?.socket;
      if (!liveSession || !socket) throw new Error('fake Discord: no live gateway session to disconnect');
      liveSession.socket = undefined;
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
      dispatchTo(liveSessionOrThrow(), type, data);
    },
  };

  return { api, wss, gatewayUrl, dispatchTo, dispatchIf, liveSessionOrThrow, close };
}
