// findSystemForReader, on every dialect: the one lookup behind `{user}` finds the system a user
// owns or is a sub-account of (owned first) and tells, in the same query, whether that system is
// also the reader's own by the same rule — what findSystemByUser would answer for both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { findSystemByUser, findSystemForReader } from '../../src/db/repositories/systems.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const OWNER = '710000000000000001';
const SUB = '710000000000000002';
const OTHER_OWNER = '710000000000000003';
/** Owns a system and is also a sub-account of OWNER's: their own system is the one they own. */
const BOTH = '710000000000000004';
const NO_SYSTEM = '710000000000000005';

describe.each(DIALECTS)('findSystemForReader (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    const now = Date.now();
    for (const id of [OWNER, SUB, OTHER_OWNER, BOTH, NO_SYSTEM]) {
      await database.db.insertInto('users').values({ id, username: null, created_at: now, last_sign_in_at: null }).execute();
    }
    for (const user of [OWNER, OTHER_OWNER, BOTH]) {
      ids[user] = (await database.db.insertInto('systems').values({ user_id: user, name: user, created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    }
    const ownersSystem = ids[OWNER] ?? 0;
    for (const user of [SUB, BOTH]) await database.db.insertInto('system_sub_accounts').values({ user_id: user, system_id: ownersSystem }).execute();
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it.each([
    // target, reader, the target's system (owner's user id), whether the reader owns it
    { target: OWNER, reader: OWNER, system: OWNER, readerOwns: true },
    { target: OWNER, reader: SUB, system: OWNER, readerOwns: true },
    { target: SUB, reader: OWNER, system: OWNER, readerOwns: true },
    { target: SUB, reader: SUB, system: OWNER, readerOwns: true },
    { target: OWNER, reader: OTHER_OWNER, system: OWNER, readerOwns: false },
    { target: OWNER, reader: NO_SYSTEM, system: OWNER, readerOwns: false },
    { target: OWNER, reader: null, system: OWNER, readerOwns: false },
    { target: OWNER, reader: BOTH, system: OWNER, readerOwns: false },
    { target: BOTH, reader: BOTH, system: BOTH, readerOwns: true },
    { target: BOTH, reader: OWNER, system: BOTH, readerOwns: false },
    { target: OTHER_OWNER, reader: SUB, system: OTHER_OWNER, readerOwns: false },
  ])('target $target read by $reader', async ({ target, reader, system, readerOwns }) => {
    const found = await findSystemForReader(database.db, target, reader);
    expect({ systemId: found?.system.id, readerOwns: found?.readerOwns }).toEqual({ systemId: ids[system], readerOwns });
    // The same answer as two separate lookups, field for field.
    expect(found?.system).toEqual(await findSystemByUser(database.db, target));
    const readersOwn = reader === null ? undefined : await findSystemByUser(database.db, reader);
    expect(readersOwn?.id === found?.system.id).toBe(readerOwns);
  });

  it('finds nothing for a user without a system', async () => {
    expect(await findSystemForReader(database.db, NO_SYSTEM, OWNER)).toBeUndefined();
    expect(await findSystemForReader(database.db, NO_SYSTEM, NO_SYSTEM)).toBeUndefined();
  });
});
