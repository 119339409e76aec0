// `switchboard import` and `switchboard export`, run for real as child processes against a fresh
// database of each dialect: what they print, their exit codes, and what ends up in the database.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_IMPORT_CLIENT } from '../../src/cli/import-export.js';
import { openDatabase } from '../../src/db/database.js';
import type { ImportReport } from '../../src/domain/import/model.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { runCli } from '../support/cli.js';
import { snapshotDatabase } from '../support/snapshot.js';
import { SAMPLES } from '../support/samples.js';

const PK = join(SAMPLES, 'pluralkit-v2.json');
const TB = join(SAMPLES, 'tupperbox.json');
const SP = join(SAMPLES, 'simply-plural.json');
const USER = '300000000000000071';
const OTHER = '300000000000000072';
const SP_USER = '300000000000000073';

describe.each(DIALECTS)('switchboard import and export on %s', (dialect) => {
  let database: TestDatabase;
  let dataDir: string;
  const run = (...args: string[]) => runCli({ DATABASE_URL: database.url, DATA_DIR: dataDir }, ...args);
  async function withDb<T>(action: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T> {
    const opened = openDatabase(database.url);
    try {
      return await action(opened.db);
    } finally {
      await opened.close();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-import-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('imports a file for a user who never signed in, creating their system, with a progress bar', async () => {
    const result = await run('import', '--user', USER, '--history', '--progress', PK);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(0, 5)).toEqual([
      `created a system for user ${USER}`,
      'imported (pluralkit, mode merge, with front history)',
      '  alters:   5 created, 0 updated, 0 unchanged',
      '  tags:     2 created, 0 updated, 0 unchanged',
      '  switches: 4 created, 0 already there',
    ]);
    expect(result.stdout).toContain('warning: linked Discord accounts are never imported from a file');
    // The bar is redrawn in place on standard error and ends full.
    expect(result.stderr).toMatch(/\rswitches \[#{30}\] 11\/11\n$/);
    const rows = await withDb(async (db) => {
      const system = await db.selectFrom('systems').selectAll().where('user_id', '=', USER).executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').selectAll().where('id', '=', USER).executeTakeFirstOrThrow();
      const alters = await db.selectFrom('alters').select(['username', 'display_name']).where('system_id', '=', system.id).orderBy('id').execute();
      const switches = await db.selectFrom('switches').select('client_id').where('system_id', '=', system.id).execute();
      return { system, user, alters, switches };
    });
    expect(rows.system).toMatchObject({ name: 'The Tidewater Relay', display_tag: '~ 🌊 TR', color: '#5B8C85', timezone: 'America/Halifax' });
    expect(rows.user).toMatchObject({ id: USER, last_sign_in_at: null });
    expect(rows.alters.map((alter) => alter.username)).toEqual(['TomásFerreira', 'ソラ', 'AnaïsDusk', '🪐Vega', "JoO'Hara"]);
    expect(rows.switches.map((row) => row.client_id)).toEqual(Array(4).fill(CLI_IMPORT_CLIENT));
  });

  it('imports the same file again without duplicates; --json prints the report', async () => {
    const result = await run('import', '--user', USER, '--history', '--json', PK);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ImportReport;
    expect(report.counts).toEqual({
      alters: { created: 0, updated: 0, unchanged: 5, deleted: 0 },
      tags: { created: 0, updated: 0, unchanged: 2, deleted: 0 },
      switches: { created: 0, unchanged: 4, deleted: 0 },
      profileFields: { created: 0, matched: 0, deleted: 0 },
    });
    expect(result.stderr).toBe('');
  });

  it('imports a Simply Plural file with its options, printing what it left out', async () => {
    const refused = await run('import', '--user', SP_USER, '--custom-fronts', 'maybe', SP);
    expect({ code: refused.code, stderr: refused.stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(/--custom-fronts must be import or skip/) });
    const result = await run('import', '--user', SP_USER, '--history', '--custom-fronts', 'skip', '--friends-are-public', SP);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(1, 6)).toEqual([
      'imported (simplyplural, mode merge, with front history)',
      '  alters:   6 created, 0 updated, 0 unchanged',
      '  tags:     2 created, 0 updated, 0 unchanged',
      '  switches: 9 created, 0 already there',
      '  profile fields: 5 created, 0 matched by name',
    ]);
    expect(result.stdout).toContain('not imported: customFronts: 2');
    expect(result.stdout).toMatch(/not imported: .*comments: 2/);
    const publicAlters = await withDb(async (db) => {
      const system = await db.selectFrom('systems').select('id').where('user_id', '=', SP_USER).executeTakeFirstOrThrow();
      return (await db.selectFrom('alters').select(['username', 'public']).where('system_id', '=', system.id).orderBy('id').execute()).filter((alter) => alter.public !== 0).map((alter) => alter.username);
    });
    expect(publicAlters).toEqual(['Ash', 'CyBrightwater', 'Eli', 'Fox']);
  });

  it('a dry run prints the preview and writes nothing', async () => {
    const before = await withDb((db) => snapshotDatabase(db));
    const result = await run('import', '--user', USER, '--dry-run', '--mode', 'add', TB);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('preview of an import (tupperbox, mode add)');
    expect(result.stdout).toContain('  alters:   6 created, 0 updated, 0 unchanged');
    expect((await withDb((db) => snapshotDatabase(db))).digest).toBe(before.digest);
    const nobody = await run('import', '--user', OTHER, '--dry-run', TB);
    expect(nobody).toMatchObject({ code: 1, stderr: `error: user ${OTHER} has no system yet; a dry run creates nothing (the import itself creates the system)\n` });
  });

  it('refuses bad input with exit code 2, writing nothing', async () => {
    const before = await withDb((db) => snapshotDatabase(db));
    const broken = join(dataDir, 'broken.json');
    const unknown = join(dataDir, 'unknown.json');
    writeFileSync(broken, '{"tuppers": [');
    writeFileSync(unknown, '{"alters": []}');
    const cases: Array<[string[], RegExp]> = [
      [['import', '--user', USER, broken], /^error: .*broken\.json: the file is not valid JSON/],
      [['import', '--user', USER, unknown], /^error: .*unknown\.json: this is not a file we can import/],
      [['import', '--user', USER, join(dataDir, 'missing.json')], /^error: cannot read .*missing\.json/],
      [['import', '--user', USER, '--mode', 'wipe', TB], /^error: --mode must be one of merge, add, replace/],
      [['import', '--user', 'me', TB], /^error: --user must be a Discord user id/],
    ];
    for (const [args, message] of cases) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await withDb((db) => snapshotDatabase(db))).digest).toBe(before.digest);
  });

  it('exports to standard output or a file, and the export imports into another user losslessly', async () => {
    const printed = await run('export', '--user', USER);
    expect(printed.code, printed.stderr).toBe(0);
    const file = JSON.parse(printed.stdout) as {
      id: string;
      members: Array<{ id: string; name: string }>;
      switches: unknown[];
      switchboard: { version: number };
    };
    expect(file).toMatchObject({ id: 'qmvzle', switchboard: { version: 1 } });
    expect(file.members.map((member) => member.id)).toEqual(['wyvkop', 'pelgix', 'dunqaf', 'robmex', 'kwtfa']);
    expect(file.switches).toHaveLength(4);

    const output = join(dataDir, 'export.json');
    const written = await run('export', '--user', USER, '--output', output);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain(`wrote ${output} (5 alters, 2 tags, 4 switches)`);
    const again = await run('import', '--user', OTHER, '--history', output);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('  alters:   5 created, 0 updated, 0 unchanged');
    const columns = await withDb(async (db) => {
      const read = async (userId: string) => {
        const system = await db.selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow();
        return db
          .selectFrom('alters')
          .select(['username', 'display_name', 'color', 'description', 'pronouns', 'avatar_url', 'webhook_avatar_url', 'banner', 'public', 'flags', 'message_count', 'last_message_at', 'created_at', 'alter_mode', 'name_map', 'avatar_url_map'])
          .where('system_id', '=', system.id)
          .orderBy('id')
          .execute();
      };
      return [await read(USER), await read(OTHER)];
    });
    expect(columns[1]).toEqual(columns[0]);
    expect(JSON.parse(readFileSync(output, 'utf8'))).toMatchObject({ version: 2 });

    const none = await run('export', '--user', '300000000000000079');
    expect(none).toMatchObject({ code: 1, stderr: 'error: user 300000000000000079 has no system\n' });
  });
});
