// Bot processes that share a store agree, through leases in it, on what no shard owns: which
// process does the work done once (operation messages, retrying the records of a process that
// died), which processes are alive, and when a shard may identify. A lease lasts `leaseMs` unless
// renewed; every process tries to take or renew its leases every quarter of that, so work moves
// at most 1.25 × leaseMs after its holder dies, and a holder that cannot reach the store stops
// believing it holds anything at its next try.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotLog } from '../log.js';
import type { SharedStore } from './shared-store.js';

/** Discord lets one shard of each max_concurrency bucket identify per this window. */
export const IDENTIFY_WINDOW_MS = 5_000;

export interface Role {
  /** Whether this process holds the role's lease, as of its last try. */
  holds(): boolean;
  /** Calls `listener` when this process takes or loses the lease. */
  onChange(listener: (holds: boolean) => void): void;
}

export interface Coordination {
  /** This process, as long as it runs (a new one each start). */
  readonly instance: string;
  readonly leaseMs: number;
  /** A role one process at a time holds (the lease `role:<name>`), tried from now on. */
  role(name: string): Role;
  /** Whether the process `instance` still renews its lease. */
  isAlive(instance: string): Promise<boolean>;
  /** Resolves when `shardId` may identify: its bucket's turn, across every process. */
  waitForIdentify(shardId: number, maxConcurrency: number, signal: AbortSignal): Promise<void>;
  /** Gives every lease up, so others take the work at once. */
  stop(): Promise<void>;
}

export function startCoordination(store: SharedStore, leaseMs: number, log: Pick<BotLog, 'warn'>): Coordination {
  const instance = randomBytes(12).toString('base64url');
  const roles = new Map<string, { holds: boolean; listeners: Array<(holds: boolean) => void> }>();
  let stopped = false;
  let warned = false;

  async function tick(): Promise<void> {
    try {
      await store.lease(`alive:${instance}`, instance, leaseMs);
      for (const [name, role] of roles) {
        const holds = await store.lease(`role:${name}`, instance, leaseMs);
        if (holds !== role.holds) {
          role.holds = holds;
          for (const listener of role.listeners) listener(holds);
        }
      }
      warned = false;
    } catch (error) {
      // Unrenewed leases lapse: hold nothing rather than do work another process may take.
      if (!warned) log.warn({ err: error }, 'the shared bot store did not answer; this process holds no roles until it does');
      warned = true;
      for (const role of roles.values()) {
        if (!role.holds) continue;
        role.holds = false;
        for (const listener of role.listeners) listener(false);
      }
    }
  }

  let running: Promise<void> = tick();
  const timer = setInterval(() => {
    running = running.then(tick);
  }, leaseMs / 4);
  timer.unref();

  return {
    instance,
    leaseMs,
    role(name) {
      const role = { holds: false, listeners: [] as Array<(holds: boolean) => void> };
      roles.set(name, role);
      running = running.then(tick);
      return {
        holds: () => role.holds && !stopped,
        onChange: (listener) => void role.listeners.push(listener),
      };
    },
    isAlive: (other) => store.held(`alive:${other}`),
    async waitForIdentify(shardId, maxConcurrency, signal) {
      // The bucket's lease is never released: it lapses after the window, as Discord's limit does.
      const name = `identify:${shardId % Math.max(1, maxConcurrency)}`;
      const attempt = `${instance}:${shardId}:${randomBytes(4).toString('hex')}`;
      while (!(await store.lease(name, attempt, IDENTIFY_WINDOW_MS))) {
        await sleep(100 + Math.random() * 200, undefined, { signal });
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running.catch(() => undefined);
      await Promise.all([...roles.keys()].map((name) => store.release(`role:${name}`, instance).catch(() => undefined)));
      await store.release(`alive:${instance}`, instance).catch(() => undefined);
    },
  };
}
