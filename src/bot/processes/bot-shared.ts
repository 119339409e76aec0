// What a bot process opens of the shared store besides linked accounts (link-store.ts), given to
// the parts that need it: the store, this process's leases and roles, and the sealing key
// (BOT_STORE_KEY), so what the store keeps says neither who nor what.
import { createStorageCrypto } from '../../security/crypto.js';
import type { BotLog } from '../log.js';
import { startCoordination, type Coordination } from './coordination.js';
import { openSharedStore, type SharedStore } from './shared-store.js';

export interface Sealer {
  seal(value: unknown, context: string): string;
  unseal<T>(sealed: string, context: string): T | undefined;
  /** A keyed hash, for store keys that must not say whose they are. */
  lookupHash(purpose: string, value: string): string;
}

export interface BotShared {
  store: SharedStore;
  coordination: Coordination;
  sealer: Sealer;
}

/** Production: a lease lasts 15 s (BOT_LEASE_TIMEOUT), so work moves within about 19 s. */
export const DEFAULT_LEASE_MS = 15_000;

export async function openBotShared(url: string, key: Buffer, leaseMs: number, log: Pick<BotLog, 'warn'>): Promise<BotShared & { close(): Promise<void> }> {
  const store = await openSharedStore(url);
  const coordination = startCoordination(store, leaseMs, log);
  return {
    store,
    coordination,
    sealer: createStorageCrypto(key),
    async close() {
      await coordination.stop();
      await store.close().catch(() => undefined);
    },
  };
}
