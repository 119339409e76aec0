// Seed data written straight to the database, for states that would take thousands of API calls
// to reach (a full system, long lists). Rows match what the API writes.
import type { Kysely } from 'kysely';
import { findSystemByUser } from '../../src/db/repositories/systems.js';
import type { Schema } from '../../src/db/tables.js';
import { usernameKey } from '../../src/domain/username-key.js';

/** Adds `count` alters named seed-<n> to the system of `userId` (who must have signed in). */
export async function seedAlters(db: Kysely<Schema>, userId: string, count: number, fields: { public?: number } = {}): Promise<void> {
  const system = await findSystemByUser(db, userId);
  if (!system) throw new Error(`user ${userId} has no system; sign them in first`);
  const now = Date.now();
  const batch = 200;
  for (let start = 0; start < count; start += batch) {
    const rows = Array.from({ length: Math.min(batch, count - start) }, (_, i) => ({
      system_id: system.id,
      username: `seed-${start + i}`,
      username_key: usernameKey(`seed-${start + i}`),
      display_name: `Seed ${start + i}`,
      public: fields.public ?? 0,
      created_at: now,
    }));
    await db.insertInto('alters').values(rows).execute();
  }
}
