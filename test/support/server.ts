// Starts the real service (the same startServer as `npm start`) on a free loopback port, against
// a fresh test database, with signing keys generated once per test process.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { createTestDatabase, type TestDialect, type TestDatabase } from './dialects.js';

export interface TestServer extends RunningServer {
  config: Config;
  url: string;
  testDatabase: TestDatabase;
  stop(): Promise<void>;
}

let sharedDataDir: string | undefined;

/** Keys are generated into one temporary data dir per process: RSA generation is slow. */
function dataDir(): string {
  sharedDataDir ??= mkdtempSync(join(tmpdir(), 'switchboard-keys-'));
  return sharedDataDir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startTestServer(dialect: TestDialect, env: Environment = {}): Promise<TestServer> {
  const testDatabase = await createTestDatabase(dialect);
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir(),
    DATABASE_URL: testDatabase.url,
    AUTH_DEV_LOGIN: 'true',
    ...env,
  });
  const server = await startServer(config);
  return {
    ...server,
    config,
    url: config.publicUrl,
    testDatabase,
    async stop() {
      await server.close();
      await testDatabase.drop();
    },
  };
}
