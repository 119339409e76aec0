// Message records are pending in the shared store from the moment the webhook message exists
// until the service stored (or refused) them, owned by the process that sent the copy. That
// process delivers them through its delivery queue (records.ts); a process that dies leaves its
// records behind, and the one holding the "record retries" role takes over those whose owner no
// longer renews its lease and delivers them. The service records a message id once (a repeat
// answers 200 and changes nothing), so a record delivered by two processes still counts once.
// Entries are sealed with the store key: the store does not say who sent what where.
import type { RecordMessageAnswer } from '../../domain/proxied-message.js';
import type { ApiClient, RecordMessageBody } from '../api-client.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import type { BotLog } from '../log.js';
import type { Coordination, Role } from '../processes/coordination.js';
import type { Sealer } from '../processes/bot-shared.js';
import type { SharedStore } from '../processes/shared-store.js';
import type { DeliveryQueue } from './records.js';

const QUEUE = 'message-records';
/** Entries looked at per pass of the retrier. */
const PASS = 500;

interface PendingRecord {
  userId: string;
  body: RecordMessageBody;
}

export interface PendingRecords {
  /** The webhook message exists: its record is pending (in the shared store) from now on. */
  hold(userId: string, body: RecordMessageBody): Promise<void>;
  /** Delivers a held record; `settled` as the delivery queue's. */
  deliver(userId: string, body: RecordMessageBody, settled?: (stored: boolean, answer?: RecordMessageAnswer) => void): void;
  /** The copy was withdrawn: it has no record. */
  drop(messageId: string): Promise<void>;
  /** Stops taking over other processes' records. */
  stop(): void;
}

export function createPendingRecords(deps: {
  store: SharedStore;
  coordination: Coordination;
  sealer: Sealer;
  deliveries: DeliveryQueue;
  api: ApiClient;
  accounts: LinkedAccounts;
  log: BotLog;
}): PendingRecords {
  const { store, coordination, sealer, deliveries, api, accounts, log } = deps;
  const me = coordination.instance;
  const context = (id: string) => `bot pending record ${id}`;
  /** Taken over from dead processes and being delivered here. */
  const retrying = new Set<string>();

  function push(userId: string, body: RecordMessageBody, settled?: (stored: boolean, answer?: RecordMessageAnswer) => void): void {
    deliveries.push({
      what: 'message record',
      send: () => accounts.withToken(userId, (token) => api.recordMessage(token, body)),
      settled,
      // Stored, refused or given up: no process should try it again. (Abandoned at shutdown is
      // not settled: it stays for the next holder of the retries role.)
      forget: () => store.dequeue(QUEUE, body.messageId).catch((error: unknown) => log.warn({ err: error }, 'could not clear a pending record')),
    });
  }

  const retries: Role = coordination.role('record-retries');
  let pass: Promise<void> = Promise.resolve();
  let stopped = false;

  async function retryOrphans(): Promise<void> {
    const entries = await store.entries(QUEUE, PASS);
    const alive = new Map<string, boolean>();
    for (const entry of entries) {
      if (stopped || !retries.holds()) return;
      if (entry.owner === me || retrying.has(entry.id)) continue;
      let ownerAlive = alive.get(entry.owner);
      if (ownerAlive === undefined) alive.set(entry.owner, (ownerAlive = await coordination.isAlive(entry.owner)));
      if (ownerAlive || !(await store.reown(QUEUE, entry.id, entry.owner, me))) continue;
      const record = sealer.unseal<PendingRecord>(entry.value, context(entry.id));
      if (!record) {
        // Sealed with another key: a machine with a different BOT_STORE_KEY wrote it.
        log.warn({ record: entry.id }, 'a pending record could not be read with this BOT_STORE_KEY; every bot process must share the same key');
        continue;
      }
      retrying.add(entry.id);
      log.info({ record: entry.id }, 'delivering the record of a bot process that stopped');
      push(record.userId, record.body, () => retrying.delete(entry.id));
    }
  }

  const timer = setInterval(() => {
    if (!retries.holds()) return;
    pass = pass.then(retryOrphans).catch((error: unknown) => log.warn({ err: error }, 'retrying pending records failed; trying again'));
  }, coordination.leaseMs / 4);
  timer.unref();

  return {
    async hold(userId, body) {
      await store.enqueue(QUEUE, { id: body.messageId, owner: me, value: sealer.seal({ userId, body } satisfies PendingRecord, context(body.messageId)) });
    },
    deliver: push,
    drop: (messageId) => store.dequeue(QUEUE, messageId),
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
