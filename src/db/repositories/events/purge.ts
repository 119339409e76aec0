// Retention: old events go with their deliveries and log once nothing is left to send (the values
// they shared are purged apart: payloads.ts).
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../../tables.js';
import { PENDING } from './queue.js';

/**
 * Deletes events older than `before` with their deliveries and log, a batch at a time; an event
 * with a delivery still pending stays until it is delivered or given up.
 */
export async function purgeEvents(db: Kysely<Schema>, before: number, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.transaction().execute(async (trx) => {
      const batch = await trx
        .selectFrom('events as ev')
        .select('ev.id')
        .where('ev.created_at', '<', before)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('event_deliveries as d').select(sql.lit(1).as('one')).whereRef('d.event_id', '=', 'ev.id').where('d.status', '=', PENDING))))
        .limit(batchSize)
        .execute();
      const ids = batch.map((row) => row.id);
      if (ids.length === 0) return 0;
      const deliveries = trx.selectFrom('event_deliveries').select('id').where('event_id', 'in', ids);
      await trx.deleteFrom('event_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx.deleteFrom('event_deliveries').where('event_id', 'in', ids).execute();
      await trx.deleteFrom('events').where('id', 'in', ids).execute();
      return ids.length;
    });
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
