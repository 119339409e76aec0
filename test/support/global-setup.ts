// Runs once before the suites (vitest.config.ts, globalSetup): finds out which of Chromium,
// PostgreSQL and Redis are there and says in one line each what is skipped without them
// (environment.ts). The test workers start after this and inherit the environment it leaves.
import { createConnection } from 'node:net';
import pg from 'pg';
import { CHROMIUM_ADVICE, CHROMIUM_MISSING, findChromium, IN_CI, TEST_REDIS_URL } from './environment.js';

/** A Redis PING answered within 2 s. */
async function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default async function setup(): Promise<void> {
  const say = (line: string) => console.warn(line);
  if (!findChromium()) {
    say(IN_CI ? `Browser tests: ${CHROMIUM_MISSING}; they fail in CI (CI=${process.env.CI}): ${CHROMIUM_ADVICE}.` : `Browser tests skipped: ${CHROMIUM_MISSING}; ${CHROMIUM_ADVICE}.`);
  }
  const postgresUrl = process.env.TEST_DATABASE_URL;
  if (!postgresUrl) {
    say('PostgreSQL variants skipped: TEST_DATABASE_URL is not set (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test).');
  } else if (!IN_CI && !(await postgresAnswers(postgresUrl))) {
    say('PostgreSQL variants skipped: nothing answers at TEST_DATABASE_URL; start PostgreSQL there or unset it.');
    delete process.env.TEST_DATABASE_URL;
  }
  if (!IN_CI && !(await redisAnswers(TEST_REDIS_URL))) {
    say(`Redis suites skipped: nothing answers at ${TEST_REDIS_URL}; start Redis there (redis-server) to run them.`);
    process.env.TEST_REDIS_UNREACHABLE = '1';
  }
}
