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
    // Two files at a time: about two thirds of the time of one at a time (372-409 s against 613 s on
    // a slow day here). Each file's PostgreSQL schema is its own; the race this once exposed (a
    // schema dropped while another file's migration listed every schema) is handled in
    // migrate (src/db/database.ts) and tested in test/db/migrations.test.ts.
    maxWorkers: 2,
  },
});
