// Frozen. What events pushed to OAuth clients need:
// - systems.event_seq: the number of the system's last event. appendEvent bumps it in the writing
//   transaction, which also takes the system's row lock, so a system's events are numbered (and
//   committed) in the order of their changes.
// - events: the outbox. One row per change, written in the change's transaction, holding the
//   owner's view of what changed (a snapshot: later edits and deletes do not change what an event
//   said) and the OAuth client that made the change. `fanned_out_at` is set once the dispatcher
//   has made the event's deliveries.
// - event_endpoints: a client's webhook URLs and the event types each wants. The signing secret is
//   sealed (AES-256-GCM, bound to the endpoint id); the previous one stays valid for a day after a
//   rotation (both signatures are sent meanwhile).
// - event_deliveries: one per (event, endpoint), its state and the next attempt; event_attempts:
//   the log of every attempt.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  const id = postgres ? (c: any) => c.primaryKey().generatedByDefaultAsIdentity() : (c: any) => c.primaryKey().autoIncrement();

  await db.schema.alterTable('systems').addColumn('event_seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', idType, id)
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('actor_client_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('fanned_out_at', 'bigint')
    .execute();
  await db.schema.createIndex('events_system_seq').unique().on('events').columns(['system_id', 'seq']).execute();
  await db.schema.createIndex('events_pending_fan_out').on('events').column('id').where(sql.ref('fanned_out_at'), 'is', null).execute();
  await db.schema.createIndex('events_created').on('events').column('created_at').execute();

  await db.schema
    .createTable('event_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_endpoints_client').on('event_endpoints').column('client_id').execute();

  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', idType, id)
    .addColumn('event_id', idType, (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('event_endpoints.id').onDelete('cascade'))
    .addColumn('system_id', idType, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('finished_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_deliveries_event_endpoint').unique().on('event_deliveries').columns(['event_id', 'endpoint_id']).execute();
  // The dispatcher's queue: pending deliveries by due time, and each (endpoint, system)'s head.
  await db.schema.createIndex('event_deliveries_due').on('event_deliveries').columns(['next_attempt_at']).where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.createIndex('event_deliveries_queue').on('event_deliveries').columns(['endpoint_id', 'system_id', 'event_id']).where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.createIndex('event_deliveries_log').on('event_deliveries').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('event_attempts')
    .addColumn('id', idType, id)
    .addColumn('delivery_id', idType, (c) => c.notNull().references('event_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('event_attempts_delivery').on('event_attempts').columns(['delivery_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_attempts').execute();
  await db.schema.dropTable('event_deliveries').execute();
  await db.schema.dropTable('event_endpoints').execute();
  await db.schema.dropTable('events').execute();
  await db.schema.alterTable('systems').dropColumn('event_seq').execute();
}
