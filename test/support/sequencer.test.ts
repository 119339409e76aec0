// The run order of `npm test` (sequencer.ts): the files it names as the longest exist, and start
// first, longest first, whatever vitest's own order put before them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirst, { LONGEST } from './sequencer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the run order', () => {
  it('names only test files that exist', () => {
    for (const file of LONGEST) expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(new Set(LONGEST).size).toBe(LONGEST.length);
  });

  it('starts the longest files first, the others after them in the order given', async () => {
    const names = ['test/a-short.test.ts', LONGEST[2] ?? '', 'test/b-short.test.ts', LONGEST[0] ?? '', LONGEST[1] ?? ''];
    // Only what BaseSequencer.sort and LongestFirst read of a file and of vitest.
    const files = names.map((name) => ({ moduleId: join(ROOT, name), project: { name: '', config: { root: ROOT, isolate: false, sequence: { groupOrder: 0 } } } }) as unknown as TestSpecification);
    const vitest = { config: { root: ROOT }, cache: { getFileTestResults: () => undefined, getFileStats: () => undefined } } as unknown as Vitest;
    const sorted = await new LongestFirst(vitest).sort(files);
    expect(sorted.map((file) => file.moduleId.slice(ROOT.length))).toEqual([LONGEST[0], LONGEST[1], LONGEST[2], 'test/a-short.test.ts', 'test/b-short.test.ts']);
  });
});
