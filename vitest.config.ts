import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites start real servers and databases; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time: most of a suite's time is spent waiting on servers, processes and
    // databases, so the whole run takes about two thirds of one file at a time (409 s against 613 s here).
    maxWorkers: 2,
  },
});
