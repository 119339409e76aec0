import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

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
    // A worker keeps the modules it loaded for the next file instead of loading them again: each
    // file imports much of src/ (Fastify, oidc-provider, Kysely, discord.js), and loading it anew
    // per file took about a third of the suite's time (test/domain: 38 s isolated, 16 s not). The whole suite: 438 s on 2026-11-28 with 4,075 tests.
    // Files share no state through modules: each starts its own servers, databases and fakes.
    isolate: false,
    // The longest files first (test/support/sequencer.ts): a long file that starts late is a tail.
    sequence: { sequencer: LongestFirst },
  },
});
