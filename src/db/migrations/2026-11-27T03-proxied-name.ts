// Frozen. The name a proxied message was sent under (the webhook's name, as the channel saw it), for
// message info: it is public, since everyone in the channel saw it. Nullable: records made before
// it have none, and message info then falls back to what Discord still shows.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('proxied_messages').addColumn('proxied_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('proxied_messages').dropColumn('proxied_name').execute();
}
