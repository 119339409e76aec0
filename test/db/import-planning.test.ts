// An import is planned before its transaction (src/db/repositories/imports.ts), so a large file
// holds no lock while it is planned. These pin what keeps that correct, on every dialect: a write
// that lands between planning and applying makes the transaction plan again under the lock, and
// a message recorded meanwhile is never counted away by the plan's older counts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { createAlter } from '../../src/db/repositories/alters.js';
import { importStore, systemForImport } from '../../src/db/repositories/imports.js';
import { importSystem } from '../../src/domain/import/import-system.js';
import { importFileHere, type ImportFile } from '../../src/domain/import/import-file.js';
import type { ImportSource } from '../../src/domain/import/model.js';
import { readImportBytes } from '../../src/domain/import/read-bytes.js';
import type { ImportPlan, ImportTarget } from '../../src/domain/import/plan.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

/** A file read here whose planning runs `meanwhile` after each plan it makes. */
function planned(source: ImportSource, meanwhile: (plans: number) => Promise<void>): ImportFile {
  const here = importFileHere(source, () => 'tag');
  let plans = 0;
  return {
    ...here,
    async plan(target: ImportTarget, options): Promise<ImportPlan> {
      const plan = await here.plan(target, options);
      await meanwhile(++plans);
      return plan;
    },
  };
}

const file = (members: Array<{ id: string; name: string; message_count?: number }>) =>
  readImportBytes(Buffer.from(JSON.stringify({ version: 2, id: 'plans', name: 'Planned', members, groups: [], switches: [] })));

describe.each(DIALECTS)('planning an import before its transaction (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;

  beforeEach(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    ({ systemId } = await systemForImport(database.db, '310000000000000001', Date.now()));
  });
  afterEach(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  const usernames = async () => (await database.db.selectFrom('alters').select('username').where('system_id', '=', systemId).orderBy('username').execute()).map((row) => row.username);

  it('plans again when the system changed between planning and applying', async () => {
    let plans = 0;
    // The first plan is made; then, before the transaction, another client creates "Ash".
    const source = planned(file([{ id: 'aaaaa', name: 'Ash' }, { id: 'bbbbb', name: 'Birch' }]), async (count) => {
      plans = count;
      if (count === 1) await createAlter(database.db, systemId, { username: 'Ash', displayName: 'Ash' }, { clientId: 'other-app', accountId: null, field: undefined }, Date.now());
    });
    const { report } = await importSystem(importStore(database.db, systemId), { file: source, options: { mode: 'add', dryRun: false, history: false }, clientId: 'importer', now: Date.now() });
    expect(plans).toBe(2);
    // Planned against the system with "Ash" in it: the file's Ash is renamed, nothing collides.
    expect(report.renames).toEqual([expect.objectContaining({ id: 'aaaaa', to: 'Ash-2' })]);
    expect(await usernames()).toEqual(['Ash', 'Ash-2', 'Birch']);
  });

  it('applies the first plan when nothing moved', async () => {
    let plans = 0;
    const source = planned(file([{ id: 'aaaaa', name: 'Ash' }]), async (count) => {
      plans = count;
    });
    await importSystem(importStore(database.db, systemId), { file: source, options: { mode: 'merge', dryRun: false, history: false }, clientId: 'importer', now: Date.now() });
    expect(plans).toBe(1);
    expect(await usernames()).toEqual(['Ash']);
  });

  it('keeps a message counted after the plan was made', async () => {
    const now = Date.now();
    await importSystem(importStore(database.db, systemId), { file: importFileHere(file([{ id: 'aaaaa', name: 'Ash', message_count: 5 }]), () => 'tag'), options: { mode: 'merge', dryRun: false, history: false }, clientId: 'importer', now });
    // A proxied message is recorded meanwhile: counts move, the revision does not.
    const source = planned(file([{ id: 'aaaaa', name: 'Ash', message_count: 8 }]), async () => {
      await database.db.updateTable('alters').set({ message_count: 9 }).where('system_id', '=', systemId).execute();
    });
    await importSystem(importStore(database.db, systemId), { file: source, options: { mode: 'merge', dryRun: false, history: false }, clientId: 'importer', now });
    const row = await database.db.selectFrom('alters').select('message_count').where('system_id', '=', systemId).executeTakeFirstOrThrow();
    expect(row.message_count).toBe(9);
  });
});
