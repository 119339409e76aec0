// The reports kept for Idempotency-Key replays (src/db/repositories/applied-imports.ts), on every
// dialect: a key answers its first report for a day, then imports afresh; the purge removes
// reports older than that. Issue 26: they were kept forever.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { IMPORT_REPLAY_WINDOW_MS, purgeAppliedImports } from '../../src/db/repositories/applied-imports.js';
import { importStore, newProxyTagId, systemForImport } from '../../src/db/repositories/imports.js';
import { importSystem } from '../../src/domain/import/import-system.js';
import { importFileHere } from '../../src/domain/import/import-file.js';
import { readImportBytes } from '../../src/domain/import/read-bytes.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const file = () => importFileHere(readImportBytes(Buffer.from(JSON.stringify({ version: 2, id: 'keyed', name: 'Keyed', members: [{ id: 'aaaaa', name: 'Ash' }], switches: [] }))), newProxyTagId);

describe.each(DIALECTS)('applied import reports (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;

  beforeEach(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    ({ systemId } = await systemForImport(database.db, '310000000000000002', Date.now()));
  });
  afterEach(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  const apply = (now: number) => importSystem(importStore(database.db, systemId), { file: file(), options: { mode: 'merge', dryRun: false, history: false }, clientId: 'importer', idempotency: { key: 'confirm', requestHash: 'same' }, now });
  const stored = async () => (await database.db.selectFrom('applied_imports').select('created_at').execute()).map((row) => Number(row.created_at));

  it('replays a key within a day, imports afresh after it', async () => {
    const day = Date.UTC(2026, 10, 1);
    expect((await apply(day)).replayed).toBe(false);
    expect((await apply(day + IMPORT_REPLAY_WINDOW_MS - 1)).replayed).toBe(true);
    const later = await apply(day + IMPORT_REPLAY_WINDOW_MS);
    expect(later.replayed).toBe(false);
    expect(later.report.counts.alters).toMatchObject({ created: 0, unchanged: 1 });
    expect(await stored()).toEqual([day + IMPORT_REPLAY_WINDOW_MS]);
  });

  it('a report kept before reports counted profile fields replays with zero counts and a warning saying they are not known', async () => {
    const now = Date.UTC(2026, 10, 2);
    const first = await apply(now);
    const olderCounts: Partial<typeof first.report.counts> = { ...first.report.counts };
    delete olderCounts.profileFields;
    await database.db.updateTable('applied_imports').set({ report: JSON.stringify({ ...first.report, counts: olderCounts }) }).execute();
    const replay = await apply(now + 1);
    expect(replay.replayed).toBe(true);
    expect(replay.report.counts).toEqual({ ...olderCounts, profileFields: { created: 0, matched: 0, deleted: 0 } });
    expect(replay.report.warnings.at(-1)).toMatch(/made before reports counted custom profile fields: their counts are not known/);
    // A report kept with them replays as it was.
    await database.db.updateTable('applied_imports').set({ report: JSON.stringify(first.report) }).execute();
    expect((await apply(now + 2)).report).toEqual(first.report);
  });

  it('purges the reports older than the window', async () => {
    const now = Date.now();
    await apply(now - IMPORT_REPLAY_WINDOW_MS - 1);
    expect(await purgeAppliedImports(database.db, now - IMPORT_REPLAY_WINDOW_MS)).toBe(1);
    expect(await stored()).toEqual([]);
  });
});
