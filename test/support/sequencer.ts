// The order in which `npm test` hands files to its workers (vitest.config.ts, sequence.sequencer):
// the longest files first, so that no long file starts near the end of the run while the other
// workers sit idle. Vitest orders by the durations of the previous run, but keeps them in
// node_modules/.vite, which a fresh CI checkout does not have; it then falls back to the files'
// sizes, which put, for example, the build's test (two minutes on a loaded machine) after a hundred
// short ones. LONGEST lists the files that took about a minute or more in a loaded run, longest
// first; every other file follows in vitest's own order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first (wall seconds in a loaded three-worker run, 2026-11-28). */
export const LONGEST = [
  'test/security/fuzz.test.ts',
  'test/scripts/build.test.ts',
  'test/bot/shards-processes.test.ts',
  'test/browser/dashboard-time.test.ts',
  'test/browser/dashboard-editor.test.ts',
  'test/cli/events.test.ts',
  'test/cli/cli.test.ts',
  'test/browser/docs.test.ts',
  'test/browser/dashboard-alters.test.ts',
  'test/browser/dashboard-import.test.ts',
  'test/browser/screenshots.test.ts',
  'test/browser/pages.test.ts',
  'test/browser/dashboard.test.ts',
  'test/auth/token-lifetimes.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST.indexOf(relative(file.project.config.root, file.moduleId).split('\\').join('/'));
      return index === -1 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
