// Import bookkeeping (issue 12):
// - `import_alter_links` / `import_tag_links`: which entity of which source file an alter or tag
//   came from (PluralKit member or group short id, Tupperbox tupper or group id), per target
//   system, so a re-import updates what it created before, even after a rename on either side.
//   One table per kind, each with a foreign key that cascades: deleting an alter or tag drops its
//   links, and nothing else has to know about them.
// - `applied_imports`: the report of each applied import that carried an Idempotency-Key, so a
//   retried request (a double-clicked Confirm) answers the first report instead of importing again.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  for (const [table, column, target] of [
    ['import_alter_links', 'alter_id', 'alters.id'],
    ['import_tag_links', 'tag_id', 'tags.id'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('source_system_id', 'text', (c) => c.notNull())
      .addColumn('source_entity_id', 'text', (c) => c.notNull())
      .addColumn('source_uuid', 'text')
      .addColumn(column, idType, (c) => c.notNull().references(target).onDelete('cascade'))
      .addPrimaryKeyConstraint(`${table}_pk`, ['system_id', 'source', 'source_system_id', 'source_entity_id'])
      .execute();
    await db.schema.createIndex(`${table}_${column}`).on(table).column(column).execute();
  }
  await db.schema
    .createTable('applied_imports')
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('applied_imports_pk', ['system_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('applied_imports').execute();
  await db.schema.dropTable('import_tag_links').execute();
  await db.schema.dropTable('import_alter_links').execute();
}
