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

  it('reads an upload written a few bytes at a time as the file sent at once; an upload is finished or aborted once', async () => {
    thread = new ImportThread();
    const upload = thread.upload();
    expect(thread.stats.openUploads).toBe(1);
    const first = new Uint8Array(pkFile.subarray(0, 7));
    upload.write(first);
    // The caller's chunk is copied, not taken: it stays usable after the transfer.
    expect(first.length).toBe(7);
    for (let at = 7; at < pkFile.length; at += 7) upload.write(pkFile.subarray(at, at + 7));
    const file = await upload.finish();
    expect(thread.stats).toMatchObject({ openUploads: 0, bytesWritten: pkFile.length });
    const options = { mode: 'merge' as const, dryRun: true, history: false, now: 1 };
    const whole = await thread.read(pkFile);
    expect(await file.report(emptyTarget, options)).toEqual(await whole.report(emptyTarget, options));
    await expect(upload.finish()).rejects.toThrow(/finished or aborted/);

    const dropped = thread.upload();
    dropped.write(pkFile);
    dropped.abort();
    expect(thread.stats.openUploads).toBe(0);
    await expect(dropped.finish()).rejects.toThrow(/finished or aborted/);
  });

  it('fails the jobs of a worker that stops, then starts another', async () => {
    thread = new ImportThread();
    const pending = thread.read(pkFile);
    await thread.close();
    await expect(pending).rejects.toThrow(/stopped/);
    await expect(thread.read(pkFile)).resolves.toMatchObject({ sourceSystemId: 'thrd1' });
  });
});
