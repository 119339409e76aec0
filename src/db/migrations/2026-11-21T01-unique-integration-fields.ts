// Frozen. An integration field identifies one alter for the client that set it (the lookup
// endpoint returns "the" alter with that value), so a value is unique per system and client.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('alter_fields_lookup').execute();
  await db.schema
    .createIndex('alter_fields_lookup')
    .unique()
    .on('alter_fields')
    .columns(['system_id', 'client_id', 'value'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('alter_fields_lookup').execute();
  await db.schema.createIndex('alter_fields_lookup').on('alter_fields').columns(['system_id', 'client_id', 'value']).execute();
}
