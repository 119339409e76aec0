import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Which of Chromium, PostgreSQL and Redis are there, said once (test/support/environment.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // Suites start real servers and databases; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time: many files wait on timers, child processes and sockets more than they
    // compute, so a third keeps both cores busy (690 s for the whole suite with SQLite, PostgreSQL
    // and Chromium, against 740 s with two, on 2026-11-27). Each file's PostgreSQL schema is its own;
    // the race this once exposed (a schema dropped while another file's migration listed every
    // schema) is handled in migrate (src/db/database.ts) and tested in test/db/migrations.test.ts.
    maxWorkers: 3,
  },
});
