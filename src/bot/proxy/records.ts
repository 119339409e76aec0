// Delivers message records (and engine state changes without a message) to the service in the
// background. The proxied message is already sent when a record is queued, so a failed delivery
// never loses it; delivery is retried with backoff while the service is unreachable, and the
// service treats a repeated record as the same one, so a retry never counts twice. Refusals
// (the service answered 4xx) are final. What is still queued at shutdown gets one last attempt.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../api-client.js';
import type { BotLog } from '../log.js';
import { NotLinkedError } from '../links/linked-accounts.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 60_000;
/** After this long a record is given up (logged): the service has been away for a day. */
const GIVE_UP_AFTER_MS = 24 * 3600_000;
/** Refusals a delivery asked to retry (retryAlso) are retried this long only. */
const EXTRA_RETRY_MS = 60_000;

export interface Delivery<T = unknown> {
  /** What it is, for logs. */
  what: string;
  send(): Promise<T>;
  /** Also retry these refusals (e.g. a record that another delivery has not stored yet). */
  retryAlso?(error: unknown): boolean;
  /** Called once with whether the service stored it (false: refused, given up or abandoned at shutdown). */
  settled?(stored: boolean, result?: T): void;
  /** A durable delivery (pending-records.ts): called once it is stored, refused or given up, but
   * not when abandoned at shutdown, so another process delivers it. */
  forget?(): Promise<void> | void;
}

export interface DeliveryQueue {
  push<T>(delivery: Delivery<T>): void;
  /** Deliveries not yet settled. */
  size(): number;
  /** Resolves when everything queued so far is settled (tests, shutdown). */
  drain(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

const retryable = (error: unknown) => error instanceof ApiError && error.kind !== 'problem' && error.kind !== 'oauth';

export function createDeliveryQueue(log: BotLog): DeliveryQueue {
  const inFlight = new Set<Promise<void>>();
  let stopping = false;

  async function deliver<T>(delivery: Delivery<T>): Promise<void> {
    const started = Date.now();
    let wait = FIRST_RETRY_MS;
    for (;;) {
      try {
        const result = await delivery.send();
        delivery.settled?.(true, result);
        await delivery.forget?.();
        return;
      } catch (error) {
        const worthRetrying = retryable(error) || (delivery.retryAlso?.(error) === true && Date.now() - started < EXTRA_RETRY_MS);
        if (!worthRetrying || error instanceof NotLinkedError || Date.now() - started > GIVE_UP_AFTER_MS || stopping) {
          log.warn({ err: error, what: delivery.what }, stopping ? 'delivery abandoned at shutdown' : 'delivery refused');
          delivery.settled?.(false);
          if (!stopping) await delivery.forget?.();
          return;
        }
        const retryAfter = error instanceof ApiError && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : 0;
        // Unreferenced: a retry waiting at shutdown does not keep the process alive.
        await sleep(Math.max(wait, retryAfter), undefined, { ref: false });
        wait = Math.min(wait * 2, MAX_RETRY_MS);
      }
    }
  }

  return {
    push(delivery) {
      const running = deliver(delivery).finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    size: () => inFlight.size,
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0 && Date.now() < deadline)
        await Promise.race([Promise.allSettled([...inFlight]), sleep(Math.max(1, deadline - Date.now()), undefined, { ref: false })]);
      return inFlight.size === 0;
    },
    async stop() {
      stopping = true;
      await Promise.race([Promise.allSettled([...inFlight]), sleep(3000, undefined, { ref: false })]);
    },
  };
}
