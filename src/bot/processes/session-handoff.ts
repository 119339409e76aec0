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
import type { SharedStore } from './shared-store.js';

/** A saved session is tried this long after its process stopped (Discord keeps one a few minutes). */
export const SESSION_KEEP_MS = 3 * 60_000;
/** An old session that has not resumed by then is given up. */
const RESUME_TIMEOUT_MS = 30_000;
/** Events come through two sessions until the old one closes; a copy is looked for this long after. */
const DEDUPE_KEEP_MS = 30_000;
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

/** A message event's identity, the same in both sessions (undefined: not deduplicated). */
function eventKey(data: GatewayDispatchPayload): string | undefined {
  if (!REPLAYED.has(data.t)) return undefined;
  const d = data.d as unknown as Record<string, unknown>;
  const emoji = d.emoji as { id?: string | null; name?: string | null } | undefined;
  switch (data.t) {
    case 'MESSAGE_UPDATE':
      return `${data.t}:${String(d.id)}:${String(d.edited_timestamp ?? '')}:${String(d.content ?? '')}`;
    case 'MESSAGE_DELETE_BULK':
      return `${data.t}:${String(d.channel_id)}:${(d.ids as string[]).join(',')}`;
    case 'MESSAGE_REACTION_ADD':
    case 'MESSAGE_REACTION_REMOVE':
      return `${data.t}:${String(d.message_id)}:${String(d.user_id)}:${emoji?.id ?? emoji?.name ?? ''}`;
    default:
      return `${data.t}:${String(d.id)}`;
  }
}

export function createSessionHandoff(deps: { store: SharedStore; sealer: Sealer; log: Pick<BotLog, 'info' | 'warn'> }): SessionHandoff {
  const { store, sealer, log } = deps;
  let handingOff = false;

  return {
    handOff: () => void (handingOff = true),
    buildStrategy(manager) {
      const shards = new Collection<number, WebSocketShard>();
      /** Each live shard's session as of its last event: what a stop saves. */
      const sessions = new Map<number, SessionInfo>();
      /** Message events passed on while two sessions of a shard may bring the same one. */
      const passed = new Map<string, number>();
      let deduping = false;
      let options: FetchingStrategyOptions | undefined;
      const drains = new Set<{ close(): Promise<void> }>();

      /** Whether to pass `data` on: not when it is a copy of one passed already. */
      function firstCopy(data: GatewayDispatchPayload): boolean {
        if (!deduping) return true;
        const key = eventKey(data);
        if (key === undefined) return true;
        if (passed.has(key)) return false;
        passed.set(key, Date.now());
        return true;
      }

      function forward(shard: WebSocketShard, shardId: number, live: boolean): void {
        for (const event of Object.values(WebSocketShardEvents)) {
          shard.on(event, (payload: unknown) => {
            if (event === WebSocketShardEvents.Dispatch) {
              const data = (payload as { data: GatewayDispatchPayload }).data;
              if (live) {
                const session = sessions.get(shardId);
                if (data.t === 'READY' && options) {
                  const ready = data.d as GatewayReadyDispatchData;
                  const { shardCount } = options;
                  sessions.set(shardId, { sessionId: ready.session_id, resumeURL: ready.resume_gateway_url, sequence: data.s, shardId, shardCount });
                } else if (session && data.s > session.sequence) session.sequence = data.s;
              } else if (!REPLAYED.has(data.t)) return;
              if (!firstCopy(data)) return;
            } else if (!live) {
              return; // the old session's own comings and goings are not the shard's
            }
            // As SimpleShardingStrategy passes them on: the shard's payload and its id (the
            // manager's event map types each event's payload; this one loop serves them all).
            manager.emit(event, { ...(payload as object), shardId } as never);
          });
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

      /** Resumes `saved` on a connection of its own; resolves when it replayed what it kept (or cannot). */
      function resume(saved: SessionInfo, fetching: FetchingStrategyOptions): { done: Promise<void>; close(): Promise<void> } {
        let session: SessionInfo | null = saved;
        let finish: () => void = () => undefined;
        const done = new Promise<void>((resolve) => (finish = resolve));
        let resumed = false;
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
        forward(shard, saved.shardId, false);
        shard.on(WebSocketShardEvents.Resumed, () => {
          resumed = true;
          finish();
        });
        shard.on(WebSocketShardEvents.Error, ({ error }) => {
          log.warn({ err: error, shard: saved.shardId }, "the stopped process's gateway session failed");
        });
        void shard.connect().catch(() => undefined);
        const timer = setTimeout(finish, RESUME_TIMEOUT_MS);
        timer.unref();
        void done.then(() => {
          clearTimeout(timer);
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
            forward(shard, shardId, true);
            shards.set(shardId, shard);
          }
        },

        async connect() {
          const fetching = options ?? (await managerToFetchingStrategyOptions(manager));
          const saved = await takeSaved([...shards.keys()], fetching.shardCount);
          deduping = saved.length > 0;
          const old = saved.map((session) => resume(session, fetching));
          for (const drain of old) drains.add(drain);
          try {
            await Promise.all(shards.map((shard) => shard.connect()));
          } finally {
            // The new sessions are ready: the old ones have replayed (or give up) and close.
            await Promise.all(old.map((drain) => drain.done));
            await Promise.all(old.map((drain) => drain.close()));
            for (const drain of old) drains.delete(drain);
            if (deduping) {
              setTimeout(() => {
                deduping = false;
                passed.clear();
              }, DEDUPE_KEEP_MS).unref();
            }
          }
        },

        async destroy(destroyOptions: Omit<WebSocketShardDestroyOptions, 'recover'> = {}) {
          const handing = handingOff;
          await Promise.all([...drains].map((drain) => drain.close()));
          // 4200 (not 1000): Discord keeps the sessions for a RESUME.
          await Promise.all(shards.map((shard) => shard.destroy(handing ? { ...destroyOptions, code: CloseCodes.Resuming } : destroyOptions)));
          shards.clear();
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
