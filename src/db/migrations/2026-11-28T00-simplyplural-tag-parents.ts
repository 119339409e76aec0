// Frozen. Where an imported tag sat in its source's nesting (issue 30): Simply Plural groups nest,
// tags here are flat, so an import keeps each group's parent (the parent's id in the same source,
// null at the top) with the tag's import link. The export writes it under our own `switchboard`
// key, which the import reads back, so the nesting survives export → import.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_tag_links').addColumn('source_parent_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_tag_links').dropColumn('source_parent_id').execute();
}
