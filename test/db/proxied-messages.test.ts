// Proxied-message records in the database: retention purges by age, in batches, and leaves the
// rest; on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { findProxiedMessage, purgeProxiedMessages, recordProxiedMessage } from '../../src/db/repositories/proxied-messages.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const DAY = 86_400_000;

describe.each(DIALECTS)('proxied-message records (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;
  let alterId: number;

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    const now = Date.now();
    await database.db.insertInto('users').values({ id: '700000000000000001', username: null, created_at: now, last_sign_in_at: null }).execute();
    systemId = (await database.db.insertInto('systems').values({ user_id: '700000000000000001', name: 'S', created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    alterId = (await database.db.insertInto('alters').values({ system_id: systemId, username: 'a', username_key: usernameKey('a'), display_name: 'A', created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it('purges records older than the retention, a batch at a time, and keeps the rest', async () => {
    const now = Date.now();
    const ages = [400, 366, 365.5, 10, 0];
    for (const [i, age] of ages.entries()) {
      await recordProxiedMessage(
        database.db,
        { messageId: `80000000000000000${i}`, originalMessageId: `90000000000000000${i}`, channelId: '1', guildId: '2', systemId, alterId, senderId: '700000000000000001', createdAt: now - age * DAY, proxiedName: null },
        undefined,
        { clientId: null, accountId: null },
      );
    }
    // Batches of two: three old records take two rounds.
    expect(await purgeProxiedMessages(database.db, now - 365 * DAY, 2)).toBe(3);
    const left = await Promise.all(ages.map((_, i) => findProxiedMessage(database.db, `80000000000000000${i}`)));
    expect(left.map((record) => record !== undefined)).toEqual([false, false, false, true, true]);
    expect(await purgeProxiedMessages(database.db, now - 365 * DAY)).toBe(0);
  });
});
