// Gateway sessions handed from a process that stops to the next one that takes its shards, so the
// events Discord sent while no process held a shard are not lost (Discord keeps a session's events
// for its RESUME for a few minutes after its connection closed, unless it closed with 1000 or 1001).
//
// - A process that stops gracefully closes each shard's connection with 4200 (a close that leaves
//   the session resumable) and saves the shard's session id, sequence and resume URL in the shared
//   store, sealed, for SESSION_KEEP_MS.
// - The next process to take that shard identifies a new session as usual (discord.js needs READY
//   and GUILD_CREATE: a resumed session gives neither, so a fresh client could not use it for its
//   caches or its readiness), and beside it resumes the saved one: Discord replays what it kept
//   after the saved sequence, then RESUMED. The replayed message events (messages, edits,
//   deletions, reactions) are handed to discord.js as the shard's own; discord.js holds them until
//   the client is ready. When the new session is ready too, the old one is closed with 1000.
// - While both sessions are open Discord sends an event to both: until the old one is closed (and
//   a while after), a message event is passed on once, from whichever session brought it first.
// - A process that crashes saves nothing at its end, so a live process checkpoints each shard's
//   session every CHECKPOINT_INTERVAL_MS, with the sequence it had CHECKPOINT_LAG_MS earlier (what
//   came after may not have been handled yet). The next process to take the shard reads the
//   checkpoint and, once the process that wrote it no longer renews its "alive" lease (so it is
//   not a live session taken from under a running process), resumes it as above. The replay then
//   repeats what the crashed process received in its last seconds: see the next point.
// - A replay is held until it is complete (RESUMED) and passed on without the messages deleted
//   later in it (a proxied message's original is deleted by the proxy; a message its author
//   deleted while no process held the shard must not be proxied now) and without reactions taken
//   back later in it. So a message the crashed process proxied is not proxied again; one it had
//   sent through the webhook but not yet deleted when it died is, once more.
//
// discord.js's Client keeps the session options of @discordjs/ws's WebSocketManager
// (retrieveSessionInfo, updateSessionInfo) to itself; its `ws.buildStrategy` option is where a
// process may decide how shards connect. This strategy connects the held shards as @discordjs/ws's
// SimpleShardingStrategy does (one WebSocketShard each, in this process) and adds the old sessions:
// each is a WebSocketShard of its own whose context returns the saved session (so it RESUMEs) and
// never lets it identify.
import { Collection } from '@discordjs/collection';
import {
  CloseCodes,
  SimpleContextFetchingStrategy,
  WebSocketShard,
  WebSocketShardEvents,
  managerToFetchingStrategyOptions,
  type FetchingStrategyOptions,
  type IContextFetchingStrategy,
  type IShardingStrategy,
  type SessionInfo,
  type WebSocketManager,
  type WebSocketShardDestroyOptions,
  type WebSocketShardStatus,
} from '@discordjs/ws';
import type { GatewayDispatchPayload, GatewayReadyDispatchData } from 'discord.js';
import type { BotLog } from '../log.js';
import type { Sealer } from './bot-shared.js';
import type { Coordination } from './coordination.js';
import type { SharedStore } from './shared-store.js';

/** A saved session is tried this long after its process stopped (Discord keeps one a few minutes). */
export const SESSION_KEEP_MS = 3 * 60_000;
/** An old session that has not resumed by then is given up. */
const RESUME_TIMEOUT_MS = 30_000;
/** Events come through two sessions until the old one closes; a copy is looked for this long after. */
const DEDUPE_KEEP_MS = 30_000;
/** How often a live shard's session is checkpointed for the process that takes it after a crash. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/** A checkpoint's sequence is the one the shard had this long before: what came after may be unhandled. */
export const CHECKPOINT_LAG_MS = 5_000;
/** What an old session's replay hands on: what people did while no process held the shard. The
 * rest (guilds, channels, members) the new session's GUILD_CREATE already tells as it is now. */
const REPLAYED = new Set(['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK', 'MESSAGE_REACTION_ADD', 'MESSAGE_REACTION_REMOVE']);

export interface SessionHandoff {
  /** discord.js's `ws.buildStrategy`. */
  buildStrategy(manager: WebSocketManager): IShardingStrategy;
  /** From now on, closing the gateway leaves its sessions resumable and saves them for the next process. */
  handOff(): void;
}

const storeKey = (shardId: number) => `gateway-session:${shardId}`;
const checkpointKey = (shardId: number) => `gateway-checkpoint:${shardId}`;

/** A live session as its process last checkpointed it, and which process that is. */
interface Checkpoint {
  session: SessionInfo;
  instance: string;
  at: number;
}

/**
 * A replay (the events an old session is resumed with), as it may be passed on: without the
 * messages deleted later in it, nor events about them, and without reactions removed later in it.
 * The deletions themselves pass (a proxied message's deletion is the bot's to act on).
 */
export function replayToPass(events: readonly GatewayDispatchPayload[]): GatewayDispatchPayload[] {
  const deleted = new Set<string>();
  const removedAfter = new Map<string, number>();
  events.forEach((event, index) => {
    const d = event.d as unknown as Record<string, unknown>;
    if (event.t === 'MESSAGE_DELETE') deleted.add(String(d.id));
    else if (event.t === 'MESSAGE_DELETE_BULK') for (const id of (d.ids as string[] | undefined) ?? []) deleted.add(String(id));
    else if (event.t === 'MESSAGE_REACTION_REMOVE') removedAfter.set(reactionKey(d), index);
  });
  return events.filter((event, index) => {
    const d = event.d as unknown as Record<string, unknown>;
    switch (event.t) {
      case 'MESSAGE_CREATE':
      case 'MESSAGE_UPDATE':
        return !deleted.has(String(d.id));
      case 'MESSAGE_REACTION_ADD':
        return !deleted.has(String(d.message_id)) && (removedAfter.get(reactionKey(d)) ?? -1) < index;
      case 'MESSAGE_REACTION_REMOVE':
        return !deleted.has(String(d.message_id));
      default:
        return true;
    }
  });
}

function reactionKey(d: Record<string, unknown>): string {
  const emoji = d.emoji as { id?: string | null; name?: string | null } | undefined;
  return `${String(d.message_id)}:${String(d.user_id)}:${emoji?.id ?? emoji?.name ?? ''}`;
}

/** A message event's identity, the same in both sessions (undefined: not deduplicated). */
function eventKey(data: GatewayDispatchPayload): string | undefined {
  if (!REPLAYED.has(data.t)) return undefined;
  const d = data.d as unknown as Record<string, unknown>;
  switch (data.t) {
    case 'MESSAGE_UPDATE':
      return `${data.t}:${String(d.id)}:${String(d.edited_timestamp ?? '')}:${String(d.content ?? '')}`;
    case 'MESSAGE_DELETE_BULK':
      return `${data.t}:${String(d.channel_id)}:${(d.ids as string[]).join(',')}`;
    case 'MESSAGE_REACTION_ADD':
    case 'MESSAGE_REACTION_REMOVE':
      return `${data.t}:${reactionKey(d)}`;
    default:
      return `${data.t}:${String(d.id)}`;
  }
}

export interface SessionHandoffDeps {
  store: SharedStore;
  sealer: Sealer;
  log: Pick<BotLog, 'info' | 'warn'>;
  /** This process's leases: with it, live sessions are checkpointed and a crashed process's resumed. */
  coordination?: Pick<Coordination, 'instance' | 'leaseMs' | 'isAlive'>;
  /** For tests: CHECKPOINT_INTERVAL_MS and CHECKPOINT_LAG_MS. */
  checkpointIntervalMs?: number;
  checkpointLagMs?: number;
}

export function createSessionHandoff(deps: SessionHandoffDeps): SessionHandoff {
  const { store, sealer, log, coordination } = deps;
  const checkpointIntervalMs = deps.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS;
  const checkpointLagMs = deps.checkpointLagMs ?? CHECKPOINT_LAG_MS;
  let handingOff = false;

  return {
    handOff: () => void (handingOff = true),
    buildStrategy(manager) {
      const shards = new Collection<number, WebSocketShard>();
      /** Each live shard's session as of its last event: what a stop saves. */
      const sessions = new Map<number, SessionInfo>();
      /** Each live shard's sequence as sampled at each checkpoint, newest last. */
      const samples = new Map<number, Array<{ at: number; sequence: number }>>();
      /** The checkpoint last written per shard (session id and sequence), so an idle shard writes none. */
      const written = new Map<number, string>();
      /** Message events passed on while two sessions of a shard may bring the same one. */
      const passed = new Map<string, number>();
      let deduping = false;
      /** Old sessions being resumed or waited for; deduplication ends a while after the last. */
      let oldSessions = 0;
      let options: FetchingStrategyOptions | undefined;
      const drains = new Set<{ close(): Promise<void> }>();
      let checkpoints: NodeJS.Timeout | undefined;
      let checkpointWarned = false;
      let destroyed = false;

      /** Whether to pass `data` on: not when it is a copy of one passed already. */
      function firstCopy(data: GatewayDispatchPayload): boolean {
        if (!deduping) return true;
        const key = eventKey(data);
        if (key === undefined) return true;
        if (passed.has(key)) return false;
        passed.set(key, Date.now());
        return true;
      }

      // As SimpleShardingStrategy passes them on: the shard's payload and its id (the manager's
      // event map types each event's payload; this one function serves them all).
      const emit = (event: WebSocketShardEvents, payload: unknown, shardId: number) => manager.emit(event, { ...(payload as object), shardId } as never);

      function oldSessionBegins(): void {
        oldSessions += 1;
        deduping = true;
      }

      function oldSessionEnds(): void {
        oldSessions -= 1;
        if (oldSessions > 0) return;
        setTimeout(() => {
          if (oldSessions > 0) return;
          deduping = false;
          passed.clear();
        }, DEDUPE_KEEP_MS).unref();
      }

      /** An old session's replay, held until it is complete (see replayToPass). */
      interface Replay {
        held: GatewayDispatchPayload[];
        complete: boolean;
      }

      function forward(shard: WebSocketShard, shardId: number, replay?: Replay): void {
        for (const event of Object.values(WebSocketShardEvents)) {
          shard.on(event, (payload: unknown) => {
            if (event === WebSocketShardEvents.Dispatch) {
              const data = (payload as { data: GatewayDispatchPayload }).data;
              if (!replay) {
                const session = sessions.get(shardId);
                if (data.t === 'READY' && options) {
                  const ready = data.d as GatewayReadyDispatchData;
                  const { shardCount } = options;
                  sessions.set(shardId, { sessionId: ready.session_id, resumeURL: ready.resume_gateway_url, sequence: data.s, shardId, shardCount });
                  samples.set(shardId, [{ at: Date.now(), sequence: data.s }]);
                } else if (session && data.s > session.sequence) session.sequence = data.s;
              } else if (!REPLAYED.has(data.t)) return;
              else if (!replay.complete) {
                replay.held.push(data);
                return;
              }
              if (firstCopy(data)) emit(event, payload, shardId);
            } else if (!replay) {
              emit(event, payload, shardId);
            }
            // An old session's own comings and goings are not the shard's.
          });
        }
      }

      /** Passes on what an old session replayed, once it is all there. */
      function release(replay: Replay, shardId: number): void {
        if (replay.complete) return;
        replay.complete = true;
        for (const data of replayToPass(replay.held)) if (firstCopy(data)) emit(WebSocketShardEvents.Dispatch, { data }, shardId);
        replay.held = [];
      }

      /** Writes each live shard's checkpoint: its session with the sequence of CHECKPOINT_LAG_MS ago. */
      async function checkpoint(): Promise<void> {
        if (!coordination) return;
        const now = Date.now();
        for (const [shardId, session] of sessions) {
          const history = samples.get(shardId) ?? [];
          history.push({ at: now, sequence: session.sequence });
          // The newest sample at least the lag old is the checkpoint's; older ones are not needed.
          let lagged = 0;
          for (let i = 0; i < history.length; i++) if ((history[i]?.at ?? now) <= now - checkpointLagMs) lagged = i;
          history.splice(0, lagged);
          samples.set(shardId, history);
          const sequence = history[0]?.sequence ?? session.sequence;
          const mark = `${session.sessionId}:${sequence}`;
          if (written.get(shardId) === mark) continue;
          const value: Checkpoint = { session: { ...session, sequence }, instance: coordination.instance, at: now };
          try {
            await store.set(checkpointKey(shardId), sealer.seal(value, checkpointKey(shardId)), SESSION_KEEP_MS);
            written.set(shardId, mark);
            checkpointWarned = false;
          } catch (error) {
            if (!checkpointWarned) log.warn({ err: error, shard: shardId }, 'could not checkpoint the gateway session: a crash now would lose what Discord sends meanwhile');
            checkpointWarned = true;
          }
        }
      }

      /** The sessions a stopped process left for these shards (each taken once). */
      async function takeSaved(shardIds: number[], shardCount: number): Promise<SessionInfo[]> {
        const saved: SessionInfo[] = [];
        for (const shardId of shardIds) {
          try {
            const sealed = await store.get(storeKey(shardId));
            if (sealed === undefined) continue;
            await store.delete(storeKey(shardId));
            const session = sealer.unseal<SessionInfo>(sealed, storeKey(shardId));
            if (session?.shardId === shardId && session.shardCount === shardCount) saved.push(session);
          } catch (error) {
            log.warn({ err: error, shard: shardId }, 'could not read the gateway session a stopped process left');
          }
        }
        return saved;
      }

      /** Another process's checkpoints of these shards, read before this process writes its own over them. */
      async function readCheckpoints(shardIds: number[], shardCount: number): Promise<Checkpoint[]> {
        if (!coordination) return [];
        const found: Checkpoint[] = [];
        for (const shardId of shardIds) {
          try {
            const sealed = await store.get(checkpointKey(shardId));
            const checkpointed = sealed === undefined ? undefined : sealer.unseal<Checkpoint>(sealed, checkpointKey(shardId));
            const session = checkpointed?.session;
            const another = checkpointed !== undefined && checkpointed.instance !== coordination.instance;
            if (another && session?.shardId === shardId && session.shardCount === shardCount) found.push(checkpointed);
          } catch (error) {
            log.warn({ err: error, shard: shardId }, 'could not read the gateway checkpoint of the process that held the shard');
          }
        }
        return found;
      }

      /**
       * Resumes a crashed process's checkpointed session once that process is surely gone (its
       * "alive" lease lapsed): resuming a live process's session would take it from under it.
       */
      async function resumeCrashed(checkpointed: Checkpoint, fetching: FetchingStrategyOptions): Promise<void> {
        if (!coordination) return;
        const { session, instance, at } = checkpointed;
        try {
          while (await coordination.isAlive(instance)) {
            if (destroyed || Date.now() - at > SESSION_KEEP_MS) return;
            await new Promise((resolve) => setTimeout(resolve, coordination.leaseMs / 4).unref());
          }
          if (destroyed) return;
          log.info({ shard: session.shardId }, 'the process that held this shard stopped without handing it on: resuming its gateway session from its last checkpoint');
          const drain = resume(session, fetching);
          drains.add(drain);
          await drain.done;
          await drain.close();
          drains.delete(drain);
        } catch (error) {
          log.warn({ err: error, shard: session.shardId }, 'could not resume the gateway session of the process that held this shard');
        }
      }

      /** Resumes `saved` on a connection of its own; resolves when it replayed what it kept (or cannot). */
      function resume(saved: SessionInfo, fetching: FetchingStrategyOptions): { done: Promise<void>; close(): Promise<void> } {
        let session: SessionInfo | null = saved;
        let finish: () => void = () => undefined;
        const done = new Promise<void>((resolve) => (finish = resolve));
        let resumed = false;
        const replay: Replay = { held: [], complete: false };
        const context: IContextFetchingStrategy = {
          options: fetching,
          retrieveSessionInfo: () => session,
          updateSessionInfo(_shardId, info) {
            session = info;
            if (info === null) finish();
          },
          // This connection only ever resumes: were it to identify, it would be a second live
          // session of the shard. It closes instead.
          waitForIdentify(_shardId, signal) {
            session = null;
            finish();
            queueMicrotask(() => void shard.destroy({ code: CloseCodes.Normal, reason: 'nothing to resume' }).catch(() => undefined));
            return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
          },
        };
        const shard = new WebSocketShard(context, saved.shardId);
        forward(shard, saved.shardId, replay);
        shard.on(WebSocketShardEvents.Resumed, () => {
          resumed = true;
          // The shard emits RESUMED as soon as it reads it, and each replayed event a few awaits
          // after it read that one: the last of them are passed on (as dispatches) after RESUMED.
          // They are all in by the next turn of the event loop.
          setImmediate(() => {
            release(replay, saved.shardId);
            finish();
          });
        });
        shard.on(WebSocketShardEvents.Error, ({ error }) => {
          log.warn({ err: error, shard: saved.shardId }, "the stopped process's gateway session failed");
        });
        void shard.connect().catch(() => undefined);
        const timer = setTimeout(finish, RESUME_TIMEOUT_MS);
        timer.unref();
        void done.then(() => {
          clearTimeout(timer);
          // A replay cut short is passed on as far as it came.
          release(replay, saved.shardId);
          if (resumed) log.info({ shard: saved.shardId }, 'resumed the gateway session of the process that stopped: what Discord sent meanwhile is handled');
          else log.warn({ shard: saved.shardId }, 'the gateway session of the process that stopped could not be resumed: what Discord sent to its shard meanwhile is not handled');
        });
        return {
          done,
          async close() {
            session = null;
            finish();
            // 1000 ends the session at Discord: nothing more is kept for it.
            await shard.destroy({ code: CloseCodes.Normal, reason: 'the old session was replayed' }).catch(() => undefined);
          },
        };
      }

      return {
        async spawn(shardIds) {
          options = await managerToFetchingStrategyOptions(manager);
          for (const shardId of shardIds) {
            const shard = new WebSocketShard(new SimpleContextFetchingStrategy(manager, options), shardId);
            forward(shard, shardId);
            shards.set(shardId, shard);
          }
        },

        async connect() {
          destroyed = false;
          const fetching = options ?? (await managerToFetchingStrategyOptions(manager));
          const held = [...shards.keys()];
          const saved = await takeSaved(held, fetching.shardCount);
          const handedOn = new Set(saved.map((session) => session.shardId));
          const crashed = (await readCheckpoints(held, fetching.shardCount)).filter((checkpointed) => !handedOn.has(checkpointed.session.shardId));
          for (let i = 0; i < saved.length + crashed.length; i++) oldSessionBegins();
          const old = saved.map((session) => resume(session, fetching));
          for (const drain of old) drains.add(drain);
          if (coordination) {
            checkpoints ??= setInterval(() => void checkpoint(), checkpointIntervalMs);
            checkpoints.unref();
          }
          // In the background: the new sessions do not wait for a crashed process's lease to lapse.
          for (const checkpointed of crashed) void resumeCrashed(checkpointed, fetching).finally(oldSessionEnds);
          try {
            await Promise.all(shards.map((shard) => shard.connect()));
          } finally {
            // The new sessions are ready: the old ones have replayed (or give up) and close.
            await Promise.all(old.map((drain) => drain.done));
            await Promise.all(old.map((drain) => drain.close()));
            for (const drain of old) {
              drains.delete(drain);
              oldSessionEnds();
            }
          }
        },

        async destroy(destroyOptions: Omit<WebSocketShardDestroyOptions, 'recover'> = {}) {
          const handing = handingOff;
          destroyed = true;
          if (checkpoints) clearInterval(checkpoints);
          checkpoints = undefined;
          await Promise.all([...drains].map((drain) => drain.close()));
          // 4200 (not 1000): Discord keeps the sessions for a RESUME.
          await Promise.all(shards.map((shard) => shard.destroy(handing ? { ...destroyOptions, code: CloseCodes.Resuming } : destroyOptions)));
          shards.clear();
          // A process that stopped leaves no checkpoint: its sessions are saved whole or ended.
          for (const shardId of written.keys()) await store.delete(checkpointKey(shardId)).catch(() => undefined);
          written.clear();
          samples.clear();
          if (!handing) return;
          for (const session of sessions.values()) {
            try {
              await store.set(storeKey(session.shardId), sealer.seal(session, storeKey(session.shardId)), SESSION_KEEP_MS);
            } catch (error) {
              log.warn({ err: error, shard: session.shardId }, 'could not save the gateway session for the next process');
            }
          }
          if (sessions.size > 0) log.info({ shards: [...sessions.keys()] }, 'gateway sessions saved for the next process to resume');
          sessions.clear();
        },

        async send(shardId, payload) {
          const shard = shards.get(shardId);
          if (!shard) throw new RangeError(`Shard ${shardId} not found`);
          await shard.send(payload);
        },

        fetchStatus: () => shards.mapValues((shard): WebSocketShardStatus => shard.status),
      };
    },
  };
}
