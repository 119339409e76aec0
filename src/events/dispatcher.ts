// The event dispatcher: the one owner of event delivery in a process. It claims due deliveries
// from the database (each the head of its endpoint-and-system queue, so a system's events reach an
// endpoint in order), sends them, records each attempt, and schedules retries.
//
// - Woken at once when a transaction that queued deliveries commits, in this process or another on
//   the same PostgreSQL database: the outbox notes each endpoint's topic with its deliveries, and
//   the change watch (db/changes/) hands the notes over at commit, so no write path has to call
//   anything. Also when a delivery finishes, when another process writes the same SQLite file, and
//   by a timer: at the next due retry, and at least every poll interval (leases that ran out,
//   notes missed while the listener was down).
// - One slow or dead endpoint never holds up another, nor one app another: at most
//   `perEndpointConcurrency` requests per endpoint and `perClientConcurrency` per app (all its
//   endpoints) are in flight, claims take each app's due deliveries turn by turn (round robin), the
//   rest of the `concurrency` budget goes to other endpoints and apps, and every request has a
//   deadline. The API's write path only inserts rows; it never waits on delivery.
// - Before each send, the rule of who sees an event (grant-periods.ts, mayReceive) is applied again:
//   the app must have held a live grant with the event's scope when the event happened, and still
//   hold one; otherwise the delivery is "skipped". A grant or secret that cannot be unsealed is a
//   configuration error: logged, shown in /readyz, and the delivery left pending.
// - Several processes on one PostgreSQL database claim with SKIP LOCKED and a lease, so a delivery is
//   sent by one of them (at least once: a process that dies mid-request leaves it to be sent again
//   when its lease ends).
import type { Kysely } from 'kysely';
import type { ChangeWatch } from '../db/changes/remote.js';
import { endpointOfTopic } from '../db/changes/topics.js';
import { deliveryAccess, type DeliveryAccess } from '../db/repositories/events/grant-periods.js';
import { claimDeliveries, deliveryCounts, finishAttempts, loadDeliveryJobs, nextDueAt, type AttemptOutcome, type DeliveryJob } from '../db/repositories/events/queue.js';
import type { Schema } from '../db/tables.js';
import { EVENT_SCOPES, eventFor } from '../domain/events.js';
import type { StorageCrypto } from '../security/crypto.js';
import { afterFailure, type RetryPolicy } from './backoff.js';
import { GrantUnreadable, readOlderGrants } from './grants.js';
import { WebhookSender } from './http-delivery.js';
import { webhookHeaders } from './signature.js';

/** How many deliveries of one endpoint and system a worker sends in a row before recording them. */
const RUN_LENGTH = 20;

export interface DispatcherOptions {
  allowPrivateAddresses: boolean;
  timeoutMs: number;
  retry: RetryPolicy;
  pollMs: number;
  concurrency: number;
  perEndpointConcurrency: number;
  /** At most this many requests of one client (all its endpoints) in flight: the rest of `concurrency` is for other apps. */
  perClientConcurrency: number;
}

export interface DispatcherLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** For /readyz, which anyone may read: no error text (that goes to the log). */
export interface DispatcherStatus {
  running: boolean;
  inFlight: number;
  lastRunAt: string | null;
  /** The last pass or recording failed (see the log). */
  failing: boolean;
  /**
   * A grant or endpoint secret cannot be unsealed (a DATA_ENCRYPTION_KEY other than the one that
   * sealed it): deliveries wait, pending, until the key is right (see the log).
   */
  misconfigured: boolean;
}

/** An endpoint's secret that does not open: the operator's key, not the app's doing. */
class SecretUnreadable extends Error {
  constructor(endpointId: string) {
    super(`the secret of endpoint ${endpointId} cannot be unsealed (is DATA_ENCRYPTION_KEY the key that sealed it?)`);
    this.name = 'SecretUnreadable';
  }
}

export interface Dispatcher {
  start(): void;
  /** Stops claiming and waits (up to `graceMs`) for requests in flight; unfinished ones are sent again after their lease. */
  stop(graceMs?: number): Promise<void>;
  wake(): void;
  status(): DispatcherStatus;
  counts(): ReturnType<typeof deliveryCounts>;
}

/** The sealing context of an endpoint's secret: a sealed secret moved to another row does not open. */
export function secretContext(endpointId: string): string {
  return `event-endpoint:${endpointId}`;
}

export function createDispatcher(deps: {
  db: Kysely<Schema>;
  postgres: boolean;
  crypto: StorageCrypto;
  log: DispatcherLog;
  options: DispatcherOptions;
  /** Committed deliveries (this process's and others') arrive here as their endpoints' notes (deliveriesTopic). */
  changes: ChangeWatch;
}): Dispatcher {
  const { db, crypto, log, options } = deps;
  const sender = new WebhookSender(options.perEndpointConcurrency);
  const inFlightByEndpoint = new Map<string, number>();
  const inFlightByClient = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let pumping = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let lastRunAt: number | null = null;
  let lastError: string | null = null;
  /** When the last configuration error was met; cleared by the next delivery that could be signed. */
  let misconfiguredAt: number | null = null;
  /** Deliveries being sent, until their outcome is committed: never claimed twice. */
  const claimed = new Set<number>();
  /** Outcomes waiting for the next commit: attempts that finish together share one. */
  let finishing: Array<{ outcome: AttemptOutcome; sent: boolean; done: (error?: unknown) => void }> = [];
  let flushing = false;

  async function flush(): Promise<void> {
    if (flushing) return;
    flushing = true;
    try {
      while (finishing.length > 0) {
        const batch = finishing;
        finishing = [];
        try {
          await finishAttempts(db, batch, deps.postgres);
          for (const entry of batch) entry.done();
        } catch (error) {
          for (const entry of batch) entry.done(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  function finish(outcome: AttemptOutcome, sent: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      finishing.push({ outcome, sent, done: (error) => (error === undefined ? resolve() : reject(error as Error)) });
      void flush();
    });
  }

  function schedule(delayMs: number): void {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void pump(), Math.max(0, Math.min(delayMs, options.pollMs)));
    timer.unref();
  }

  async function pump(): Promise<void> {
    if (!running) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const now = Date.now();
        lastRunAt = now;
        const saturated = [...inFlightByEndpoint].filter(([, count]) => count >= options.perEndpointConcurrency).map(([id]) => id);
        const saturatedClients = [...inFlightByClient].filter(([, count]) => count >= options.perClientConcurrency).map(([id]) => id);
        const runs = await claimDeliveries(db, {
          now,
          limit: options.concurrency - inFlight.size,
          runLength: RUN_LENGTH,
          // A run is given its timeouts, then its results need recording: lease a good margin more.
          leaseUntil: now + options.timeoutMs * (RUN_LENGTH + 1) + 30_000,
          excludeEndpoints: saturated,
          excludeClients: saturatedClients,
          excludeDeliveries: [...claimed],
          postgres: deps.postgres,
        });
        const ids = runs.flat();
        const jobs = new Map((await loadDeliveryJobs(db, ids)).map((job) => [job.delivery.id, job]));
        for (const run of runs) {
          const runJobs = run.flatMap((id) => jobs.get(id) ?? []);
          const head = runJobs[0];
          if (!head) continue;
          const endpointId = head.endpoint.id;
          const clientId = head.endpoint.clientId;
          // A claim may hold several heads of one endpoint or client: keep within their shares, release the rest.
          const count = inFlightByEndpoint.get(endpointId) ?? 0;
          const clientCount = inFlightByClient.get(clientId) ?? 0;
          if (count >= options.perEndpointConcurrency || clientCount >= options.perClientConcurrency) {
            // Only PostgreSQL claims write a lease, which must be given back.
            if (deps.postgres) {
              await Promise.all(
                runJobs.map((job) => finish({ deliveryId: job.delivery.id, endpointId, systemId: job.event.systemId, attemptedAt: now, durationMs: 0, statusCode: job.delivery.lastStatusCode, error: job.delivery.lastError, next: { status: 'pending', at: job.delivery.nextAttemptAt } }, false)),
              );
            }
            again = true;
            continue;
          }
          inFlightByEndpoint.set(endpointId, count + 1);
          inFlightByClient.set(clientId, clientCount + 1);
          for (const id of run) claimed.add(id);
          const work = deliverRun(runJobs).finally(() => {
            for (const id of run) claimed.delete(id);
            inFlight.delete(work);
            const left = (inFlightByEndpoint.get(endpointId) ?? 1) - 1;
            if (left <= 0) inFlightByEndpoint.delete(endpointId);
            else inFlightByEndpoint.set(endpointId, left);
            const clientLeft = (inFlightByClient.get(clientId) ?? 1) - 1;
            if (clientLeft <= 0) inFlightByClient.delete(clientId);
            else inFlightByClient.set(clientId, clientLeft);
            void pump();
          });
          inFlight.add(work);
        }
        if (ids.length > 0 && inFlight.size < options.concurrency) again = true;
      } while (again && running);
      lastError = null;
      const due = await nextDueAt(db);
      schedule(due === undefined ? options.pollMs : due - Date.now());
    } catch (error) {
      lastError = (error as Error).message;
      log.error({ err: error }, 'event dispatch failed; retrying at the next poll');
      schedule(options.pollMs);
    } finally {
      pumping = false;
    }
  }

  /** The rule applied to a delivery now; older grants of its client are read first (events/grants.ts). */
  async function accessOf(job: DeliveryJob): Promise<DeliveryAccess | undefined> {
    const access = await deliveryAccess(db, job.delivery.id, Date.now());
    if (!access?.unread) return access;
    await readOlderGrants(db, crypto, job.endpoint.clientId);
    return deliveryAccess(db, job.delivery.id, Date.now());
  }

  /**
   * Sends a run (one endpoint, one system, in order) one delivery after the other, stopping at the
   * first failure (the rest keep waiting behind it), then records every outcome in one commit. A
   * crash before that commit sends the run again: at least once, never out of order.
   */
  async function deliverRun(jobs: DeliveryJob[]): Promise<void> {
    const outcomes: Array<{ outcome: AttemptOutcome; sent: boolean }> = [];
    try {
      for (const job of jobs) {
        // Applied before every delivery: a revocation stops the rest of a run too.
        const result = await attempt(job, await accessOf(job));
        outcomes.push(result);
        if (result.outcome.next.status === 'pending') break;
      }
    } catch (error) {
      const job = jobs[outcomes.length];
      if (job && (error instanceof GrantUnreadable || error instanceof SecretUnreadable)) {
        // Never a revocation: the delivery stays pending, due again after the first retry wait,
        // and the operator is told (the log at error level, /readyz).
        misconfiguredAt = Date.now();
        lastError = error.message;
        log.error({ err: error, endpoint: job.endpoint.id, delivery: job.delivery.id }, 'event delivery cannot proceed: a configuration error');
        const at = Date.now();
        outcomes.push({
          outcome: { deliveryId: job.delivery.id, endpointId: job.endpoint.id, systemId: job.event.systemId, attemptedAt: at, durationMs: 0, statusCode: job.delivery.lastStatusCode, error: job.delivery.lastError, next: { status: 'pending', at: at + options.retry.baseMs } },
          sent: false,
        });
      } else {
        // Our own failure (database): the rest of the run is tried again later.
        lastError = (error as Error).message;
        log.error({ err: error, delivery: job?.delivery.id }, 'event delivery failed');
      }
    }
    try {
      await Promise.all(outcomes.map(({ outcome, sent }) => finish(outcome, sent)));
    } catch (error) {
      // Unrecorded: the deliveries are sent again once their lease (PostgreSQL) or this process's claim ends.
      lastError = (error as Error).message;
      log.error({ err: error }, 'recording event deliveries failed');
    }
  }

  async function attempt(job: DeliveryJob, access: DeliveryAccess | undefined): Promise<{ outcome: AttemptOutcome; sent: boolean }> {
    const now = Date.now();
    const base = { deliveryId: job.delivery.id, endpointId: job.endpoint.id, systemId: job.event.systemId, attemptedAt: now };
    const skip = (reason: string) => ({ outcome: { ...base, durationMs: 0, statusCode: null, error: reason, next: { status: 'skipped' as const } }, sent: false });
    const scope = EVENT_SCOPES[job.event.snapshot.type];
    if (!access?.authorizedNow) return skip('the user no longer authorizes this client');
    if (!access.authorizedThen) return skip('the user had not authorized this client when the event happened');
    if (!access.allowed) return skip(`the user's authorization lacks the ${scope} scope`);
    const envelope = eventFor(job.event, { clientId: job.endpoint.clientId, scopes: new Set([scope]) });
    if (!envelope) return skip(`the user's authorization lacks the ${scope} scope`);
    const secrets = [crypto.unseal<string>(job.endpoint.secretSealed, secretContext(job.endpoint.id))];
    if (job.endpoint.previousSecretSealed && (job.endpoint.previousSecretExpiresAt ?? 0) > now) {
      secrets.push(crypto.unseal<string>(job.endpoint.previousSecretSealed, secretContext(job.endpoint.id)));
    }
    const usable = secrets.filter((secret): secret is string => typeof secret === 'string');
    if (usable.length === 0) throw new SecretUnreadable(job.endpoint.id);
    misconfiguredAt = null;
    const body = JSON.stringify(envelope);
    const response = await sender.send({
      url: job.endpoint.url,
      body,
      headers: webhookHeaders(usable, `msg_${job.delivery.id}`, Math.floor(Date.now() / 1000), body),
      timeoutMs: options.timeoutMs,
      allowPrivateAddresses: options.allowPrivateAddresses,
    });
    const attempts = job.delivery.attempts + 1;
    const next: AttemptOutcome['next'] = response.error === null ? { status: 'delivered' } : afterFailure(attempts, job.delivery.queuedAt, Date.now(), options.retry);
    if (next.status === 'failed') {
      log.warn({ endpoint: job.endpoint.id, delivery: job.delivery.id, attempts, error: response.error }, 'event delivery given up');
    }
    return { outcome: { ...base, durationMs: response.durationMs, statusCode: response.statusCode, error: response.error, next }, sent: true };
  }

  return {
    start() {
      if (running) return;
      running = true;
      // An endpoint already at its share of requests in flight pumps again when one of them ends:
      // deliveries queued only for such endpoints need no claim now (a dead endpoint would
      // otherwise cost a claim per write).
      unsubscribe = deps.changes.subscribe((changes) => {
        if (changes === 'all') return void pump();
        for (const topic of changes) {
          const endpointId = endpointOfTopic(topic);
          if (endpointId !== undefined && (inFlightByEndpoint.get(endpointId) ?? 0) < options.perEndpointConcurrency) return void pump();
        }
      });
      void pump();
    },
    async stop(graceMs = 5000) {
      running = false;
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      if (grace) clearTimeout(grace);
      // Wait for a pump in progress to notice (it stops after its current query).
      while (pumping) await new Promise((resolve) => setTimeout(resolve, 5));
      sender.close();
    },
    wake() {
      void pump();
    },
    status() {
      return {
        running,
        inFlight: inFlight.size,
        lastRunAt: lastRunAt === null ? null : new Date(lastRunAt).toISOString(),
        failing: lastError !== null || misconfiguredAt !== null,
        misconfigured: misconfiguredAt !== null,
      };
    },
    counts() {
      return deliveryCounts(db);
    },
  };
}
