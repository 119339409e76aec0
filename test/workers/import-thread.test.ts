// The import worker (src/workers/): files are read and imports planned on a thread of their own,
// with the same answers and refusals as in the caller's thread, and a worker that dies fails only
// its own jobs: the next job starts a new one.
import { afterEach, describe, expect, it } from 'vitest';
import { planImport } from '../../src/domain/import/plan.js';
import { readImportBytes } from '../../src/domain/import/read-bytes.js';
import type { SystemRecord } from '../../src/domain/system.js';
import { ImportThread } from '../../src/workers/import-thread.js';

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const pkFile = bytes({ version: 2, id: 'thrd1', name: 'Threaded', members: [{ id: 'aaaaa', name: 'Ash' }, { id: 'bbbbb', name: 'Ash' }], groups: [{ id: 'ggggg', name: 'G', members: ['aaaaa', 'aaaaa', 'bbbbb'] }], switches: [] });
const emptyTarget = {
  system: { flags: 0 } as SystemRecord,
  alters: [],
  tags: [],
  alterLinks: new Map<string, number>(),
  tagLinks: new Map<string, number>(),
  switchTimes: new Set<number>(),
};

describe('the import worker', () => {
  let thread: ImportThread | undefined;
  afterEach(async () => thread?.close());

  it('reads and plans as the caller’s thread would', async () => {
    thread = new ImportThread();
    const file = await thread.read(pkFile);
    const source = readImportBytes(pkFile);
    expect(file).toMatchObject({ source: 'pluralkit', sourceSystemId: 'thrd1' });
    const options = { mode: 'merge' as const, dryRun: true, history: false, now: 1 };
    const plan = await file.plan(emptyTarget, options);
    const here = planImport(source, emptyTarget, { ...options, newProxyTagId: () => 'same' });
    expect(plan.report).toEqual(here.report);
    expect(await file.report(emptyTarget, options)).toEqual(here.report);
    expect(plan.memberships).toEqual(new Map([['aaaaa', ['ggggg']], ['bbbbb', ['ggggg']]]));
    await file.release();
    await expect(file.plan(emptyTarget, options)).rejects.toThrow(/no file under handle/);
  });

  it('refuses a file with the same problem', async () => {
    thread = new ImportThread();
    await expect(thread.read(Buffer.from('{"members": ['))).rejects.toMatchObject({ name: 'Problem', type: 'invalid-json' });
    await expect(thread.read(bytes({ hello: 1 }))).rejects.toMatchObject({ name: 'Problem', type: 'invalid-import' });
  });

  it('fails the jobs of a worker that stops, then starts another', async () => {
    thread = new ImportThread();
    const pending = thread.read(pkFile);
    await thread.close();
    await expect(pending).rejects.toThrow(/stopped/);
    await expect(thread.read(pkFile)).resolves.toMatchObject({ sourceSystemId: 'thrd1' });
  });
});
