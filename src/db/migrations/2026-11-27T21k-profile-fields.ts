// Frozen. The profile fields of issue 27: an alter's birthday (`YYYY-MM-DD`, or `--MM-DD` without a
// year) and whether `front` and `latch` autoproxy may send as it (PluralKit's per-member autoproxy;
// 1, the default, keeps every existing alter as it was), a system's colour and time zone (null:
// UTC). The latch timeout of new systems (six hours) is the code's default for a new row, not the
// column's: existing systems keep theirs, 0 still meaning never.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('alters').addColumn('birthday', 'text').execute();
  await db.schema.alterTable('alters').addColumn('autoproxy_enabled', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('systems').addColumn('color', 'text').execute();
  await db.schema.alterTable('systems').addColumn('timezone', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('systems').dropColumn('timezone').execute();
  await db.schema.alterTable('systems').dropColumn('color').execute();
  await db.schema.alterTable('alters').dropColumn('autoproxy_enabled').execute();
  await db.schema.alterTable('alters').dropColumn('birthday').execute();
}
