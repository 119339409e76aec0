// Frozen. What proxying needs the service to hold:
// - proxied_messages: one row per message the bot re-sent as an alter, found by either message id
//   (the webhook's or the deleted original's) for "message info". Discord snowflakes exceed 2^53,
//   so ids are text. alter_id has no foreign key: a deleted alter's messages keep naming it (a
//   tombstone), while deleting a system removes its records.
// - systems.revision: bumped by every write that changes what the proxy profile shows, so the bot
//   can revalidate its cached profile with one indexed read (ETag / If-None-Match).
// - autoproxy.revision: bumped by the owner's own edits of an entry; the bot's engine state changes
//   name the revision they were decided on and are dropped when the owner changed it meanwhile.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const idType = db.getExecutor().adapter instanceof PostgresAdapter ? 'bigint' : 'integer';

  await db.schema
    .createTable('proxied_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('original_id', 'text', (c) => c.notNull().unique())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('guild_id', 'text', (c) => c.notNull())
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('alter_id', idType, (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Retention purges by age; a system's deletion cascades by system.
  await db.schema.createIndex('proxied_messages_created').on('proxied_messages').column('created_at').execute();
  await db.schema.createIndex('proxied_messages_system').on('proxied_messages').column('system_id').execute();

  await db.schema.alterTable('systems').addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('autoproxy').addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('autoproxy').dropColumn('revision').execute();
  await db.schema.alterTable('systems').dropColumn('revision').execute();
  await db.schema.dropTable('proxied_messages').execute();
}
