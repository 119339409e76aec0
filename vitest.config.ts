import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites start real servers and databases; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time (Vitest's default on 2 cores). Two at a time took about two thirds of the
    // time (372-409 s against 613 s here), but then a PostgreSQL test's schema can be dropped while
    // another file's Kysely Migrator lists the tables of every schema (before it takes its lock), and
    // the migration fails with "schema ... does not exist": seen in 3 of 3 runs of the migration tests.
    maxWorkers: 1,
  },
});
