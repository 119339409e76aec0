// Keys generated into DATA_DIR/keys: once, kept for later starts, and nothing else left there
// (each is written to a file of its own and linked to its name; processes starting at once are
// test/http/three-processes.test.ts).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { loadSecrets } from '../../src/config/secrets.js';

describe('keys generated into DATA_DIR', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('are generated once, read back by every later start, and readable by their owner only', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-secrets-'));
    dirs.push(dataDir);
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, DATABASE_URL: '' });
    const first = loadSecrets(config);
    const again = loadSecrets(config);
    expect(again.dataEncryptionKey.equals(first.dataEncryptionKey)).toBe(true);
    expect(again.cookieSecrets).toEqual(first.cookieSecrets);
    expect(again.signingKeys).toEqual(first.signingKeys);
    const keys = join(dataDir, 'keys');
    expect(readdirSync(keys).sort()).toEqual(['cookie-secrets.txt', 'data-encryption.key', 'signing-keys.json']);
    for (const name of readdirSync(keys)) expect(statSync(join(keys, name)).mode & 0o777).toBe(0o600);
  });
});
