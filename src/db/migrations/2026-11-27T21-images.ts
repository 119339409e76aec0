// Frozen. Images the service hosts (src/images/, routes/images.ts): each one processed (decoded,
// checked, resized, re-encoded as WebP), stored once per system under its address (a keyed hash
// of the processed bytes and the system), and removed when nothing refers to it: `checked_at` is
// when the purge last found a reference, so each purge looks at the images it has not looked at
// for longest.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('images')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('system_id', postgres ? 'bigint' : 'integer', (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('checked_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('images_system').on('images').columns(['system_id', 'created_at']).execute();
  await db.schema.createIndex('images_checked').on('images').column('checked_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('images').execute();
}
