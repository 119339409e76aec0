// Proxied-message records. Recording is idempotent (the bot retries in the background until the
// service answers): the first record of a message writes the row, bumps the alter's message count
// and last message time and applies the engine's state change, all in one transaction; the same
// record again changes nothing and answers the stored row.
import type { EventActor } from '../../domain/events.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AutoproxyStateChange } from '../../domain/autoproxy.js';
import { Problem } from '../../domain/problems.js';
import { toProxiedMessage, type ProxiedMessageRecord } from '../../domain/proxied-message.js';
import { isUniqueViolation } from '../errors.js';
import type { ProxiedMessagesTable, Schema } from '../tables.js';
import { applyAutoproxyState } from './autoproxy.js';
import { appendEvent } from './events/outbox.js';
import { lockSystem } from './system-revision.js';

type Db = Kysely<Schema>;

function toRecord(row: ProxiedMessagesTable): ProxiedMessageRecord {
  return {
    messageId: row.message_id,
    originalMessageId: row.original_id,
    channelId: row.channel_id,
    guildId: row.guild_id,
    systemId: Number(row.system_id),
    alterId: Number(row.alter_id),
    senderId: row.sender_id,
    createdAt: Number(row.created_at),
    proxiedName: row.proxied_name ?? null,
  };
}

const sameRecord = (a: ProxiedMessageRecord, b: ProxiedMessageRecord) =>
  a.messageId === b.messageId &&
  a.originalMessageId === b.originalMessageId &&
  a.channelId === b.channelId &&
  a.guildId === b.guildId &&
  a.systemId === b.systemId &&
  a.alterId === b.alterId &&
  a.senderId === b.senderId;

/** One more message for the alter; its last message time never moves back (records arrive late). */
async function countMessage(trx: Transaction<Schema>, systemId: number, alterId: number, at: number): Promise<void> {
  const result = await trx
    .updateTable('alters')
    .set((eb) => ({
      message_count: eb('message_count', '+', 1),
      last_message_at: eb.case().when('last_message_at', 'is', null).then(at).when('last_message_at', '<', at).then(at).else(eb.ref('last_message_at')).end(),
    }))
    .where('system_id', '=', systemId)
    .where('id', '=', alterId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new Problem('unknown-alter', 'alterId: your system has no such alter', 'alterId');
}

export interface RecordOutcome {
  record: ProxiedMessageRecord;
  /** False when this exact record was already stored (a retry): nothing was written. */
  created: boolean;
  /** Whether the state change applied; null when there was none or the record already existed. */
  stateApplied: boolean | null;
  /** The system's revision after the write. */
  revision: number;
}

async function findExact(db: Db | Transaction<Schema>, messageId: string, originalId: string): Promise<ProxiedMessageRecord[]> {
  const rows = await db
    .selectFrom('proxied_messages')
    .selectAll()
    .where((eb) => eb.or([eb('message_id', '=', messageId), eb('original_id', '=', originalId)]))
    .execute();
  return rows.map(toRecord);
}

async function revisionOf(db: Db | Transaction<Schema>, systemId: number): Promise<number> {
  const row = await db.selectFrom('systems').select('revision').where('id', '=', systemId).executeTakeFirstOrThrow();
  return Number(row.revision);
}

export async function recordProxiedMessage(
  db: Db,
  record: ProxiedMessageRecord,
  state: AutoproxyStateChange | undefined,
  actor: EventActor,
): Promise<RecordOutcome> {
  const replay = async (): Promise<RecordOutcome> => {
    const existing = await findExact(db, record.messageId, record.originalMessageId);
    const same = existing.length === 1 && existing[0] && sameRecord(existing[0], record) ? existing[0] : undefined;
    if (!same) {
      throw new Problem(
        'duplicate',
        'a different record already names this message or original message',
        existing[0]?.messageId === record.messageId ? 'messageId' : 'originalMessageId',
      );
    }
    return { record: same, created: false, stateApplied: null, revision: await revisionOf(db, record.systemId) };
  };
  try {
    const outcome = await db.transaction().execute(async (trx) => {
      // The system's row before the alter's, as every write of a system's rows (lockSystem).
      await lockSystem(trx, record.systemId);
      // Discord ids are unique, so one id is never a proxied message in one record and an original in
      // another; a client claiming so would make "message info" on a message show another sender.
      const crossing = await trx
        .selectFrom('proxied_messages')
        .select('message_id')
        .where((eb) => eb.or([eb('message_id', '=', record.originalMessageId), eb('original_id', '=', record.messageId)]))
        .executeTakeFirst();
      if (crossing) throw new Problem('duplicate', 'another record already names one of these ids as the other kind of message', 'messageId');
      await countMessage(trx, record.systemId, record.alterId, record.createdAt);
      await trx
        .insertInto('proxied_messages')
        .values({
          message_id: record.messageId,
          original_id: record.originalMessageId,
          channel_id: record.channelId,
          guild_id: record.guildId,
          system_id: record.systemId,
          alter_id: record.alterId,
          sender_id: record.senderId,
          created_at: record.createdAt,
          proxied_name: record.proxiedName,
        })
        .execute();
      const stateApplied = state ? await applyAutoproxyState(trx, record.systemId, state) : null;
      await appendEvent(trx, record.systemId, actor, { type: 'message.proxied', message: toProxiedMessage(record), alterId: record.alterId });
      return { record, created: true, stateApplied, revision: await revisionOf(trx, record.systemId) };
    });
    return outcome;
  } catch (error) {
    if (isUniqueViolation(error)) return replay();
    throw error;
  }
}

/** A record found by either message id: the webhook's or the original's. */
export async function findProxiedMessage(db: Db, messageId: string): Promise<ProxiedMessageRecord | undefined> {
  // Two indexed lookups in one statement (each id column has its own unique index); the proxied
  // message's own id wins, whatever a record names as its original.
  const row = await db
    .selectFrom('proxied_messages')
    .selectAll()
    .select(sql<number>`0`.as('rank'))
    .where('message_id', '=', messageId)
    .unionAll(db.selectFrom('proxied_messages').selectAll().select(sql<number>`1`.as('rank')).where('original_id', '=', messageId))
    .orderBy('rank')
    .limit(1)
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** Deletes records older than `before`, a batch at a time so a large purge never holds a long lock. */
export async function purgeProxiedMessages(db: Db, before: number, batchSize = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = db.selectFrom('proxied_messages').select('message_id').where('created_at', '<', before).limit(batchSize);
    const result = await db.deleteFrom('proxied_messages').where('message_id', 'in', batch).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/**
 * Re-sends a recorded message as another alter: the record moves to the new webhook message and
 * alter, and the count moves from the old alter to the new one, in one transaction. A retry (the
 * record already moved) answers the moved record. Only the account that sent it may reproxy.
 */
export async function reproxyMessage(
  db: Db,
  change: { systemId: number; senderId: string; messageId: string; newMessageId: string; alterId: number; createdAt: number; proxiedName: string | null },
): Promise<ProxiedMessageRecord> {
  return db.transaction().execute(async (trx) => {
    // The system's row before the alters' (lockSystem).
    await lockSystem(trx, change.systemId);
    const row = await trx.selectFrom('proxied_messages').selectAll().where('message_id', '=', change.messageId).where('system_id', '=', change.systemId).executeTakeFirst();
    if (!row) {
      const moved = await trx.selectFrom('proxied_messages').selectAll().where('message_id', '=', change.newMessageId).where('system_id', '=', change.systemId).executeTakeFirst();
      if (moved && Number(moved.alter_id) === change.alterId && moved.sender_id === change.senderId) return toRecord(moved);
      throw new Problem('unknown-message', 'your system has no proxied message with this id', 'message');
    }
    const record = toRecord(row);
    if (record.senderId !== change.senderId) throw new Problem('not-matching-oauth', 'only the account that sent a message can reproxy it');
    await countMessage(trx, change.systemId, change.alterId, change.createdAt);
    await trx
      .updateTable('alters')
      .set((eb) => ({ message_count: eb('message_count', '-', 1) }))
      .where('id', '=', record.alterId)
      .where('message_count', '>', 0)
      .execute();
    await trx
      .updateTable('proxied_messages')
      .set({ message_id: change.newMessageId, alter_id: change.alterId, created_at: change.createdAt, proxied_name: change.proxiedName })
      .where('message_id', '=', change.messageId)
      .execute();
    return { ...record, messageId: change.newMessageId, alterId: change.alterId, createdAt: change.createdAt, proxiedName: change.proxiedName };
  });
}
