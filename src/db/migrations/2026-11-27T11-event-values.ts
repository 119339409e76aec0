// Frozen. The outbox stores what changed, not a copy of every large value per event: a value of an
// event's snapshot over a few hundred bytes (an alter's name map, a long description…) is kept once
// in event_values under the hash of its JSON and the event's payload names it in `$refs`
// (src/db/repositories/event-payloads.ts). A small edit of a big alter then adds its changed
// fields and a few hashes, instead of the whole alter again. event_value_refs says which events
// use which values, so a value goes when its last event is purged.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('event_values')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('event_value_refs')
    .addColumn('event_id', postgres ? 'bigint' : 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull().references('event_values.hash'))
    .addPrimaryKeyConstraint('event_value_refs_pk', ['event_id', 'hash'])
    .execute();
  await db.schema.createIndex('event_value_refs_hash').on('event_value_refs').column('hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_value_refs').execute();
  await db.schema.dropTable('event_values').execute();
}
