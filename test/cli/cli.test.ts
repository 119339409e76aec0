// The admin CLI, run for real as a child process (test/support/cli.ts) against a fresh database of
// each dialect: exit codes, output and what ends up in the database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { sha256 } from '../../src/security/crypto.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { runCli } from '../support/cli.js';

interface ClientJson {
  client_id: string;
  client_secret?: string;
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  scopes: string[];
  public: boolean;
  first_party: boolean;
}

describe('switchboard CLI without a database', () => {
  let dataDir: string;
  const run = (...args: string[]) => runCli({ DATABASE_URL: `sqlite:${join(dataDir, 'unused.db')}`, DATA_DIR: dataDir }, ...args);

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints help for the program and for each command', async () => {
    const [top, create, rotate] = await Promise.all([run('--help'), run('clients', 'create', '--help'), run('clients', 'rotate-secret', '--help')]);
    expect(top).toMatchObject({ code: 0, stderr: '' });
    expect(top.stdout).toContain('Usage: switchboard');
    expect(top.stdout).toMatch(/migrate/);
    expect(top.stdout).toMatch(/clients/);
    expect(create.code).toBe(0);
    for (const option of ['--name', '--redirect-uri', '--scopes', '--public', '--first-party', '--grants', '--json']) {
      expect(create.stdout).toContain(option);
    }
    expect(rotate.code).toBe(0);
    expect(rotate.stdout).toContain('Usage: switchboard clients rotate-secret');
  });

  it('exits 2 on bad usage', async () => {
    const results = await Promise.all([
      run('bogus'),
      run('clients', 'create', '--scopes', 'openid'),
      run('clients', 'list', '--bogus'),
      run('clients', 'delete'),
    ]);
    for (const result of results) expect(result.code, result.stderr).toBe(2);
    expect(results[0]?.stderr).toContain("unknown command 'bogus'");
    expect(results[1]?.stderr).toContain('--name');
    expect(results[2]?.stderr).toContain('--bogus');
  });

  it('exits 1 naming DATABASE_URL when it is invalid', async () => {
    const result = await runCli({ DATABASE_URL: 'mysql://x', DATA_DIR: dataDir }, 'clients', 'list');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stdout).toBe('');
  });

  it('exits 1 with a one-line message, not a stack trace, when the database is unreachable', async () => {
    const result = await runCli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/switchboard', DATA_DIR: dataDir }, 'clients', 'list');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot open the postgres database .*ECONNREFUSED/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.each(DIALECTS)('switchboard CLI on %s', (dialect) => {
  let database: TestDatabase;
  let dataDir: string;
  let confidential: ClientJson;
  let publicId: string;
  const run = (...args: string[]) => runCli({ DATABASE_URL: database.url, DATA_DIR: dataDir }, ...args);

  /** The stored secret hash of a client, read directly from the database. */
  async function storedSecretHash(id: string): Promise<string | null | undefined> {
    const db = openDatabase(database.url);
    try {
      const row = await db.db.selectFrom('oauth_clients').select('secret_hash').where('id', '=', id).executeTakeFirst();
      return row?.secret_hash;
    } finally {
      await db.close();
    }
  }

  async function listJson(): Promise<ClientJson[]> {
    const result = await run('clients', 'list', '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as ClientJson[];
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates a fresh database, then reports it up to date', async () => {
    const first = await run('migrate');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('applied migration 2026-11-21T00-initial');
    const second = await run('migrate');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
  });

  it('creates a confidential client and prints its secret once, storing only a hash', async () => {
    const result = await run(
      'clients', 'create', '--json',
      '--name', 'Example App',
      '--redirect-uri', 'https://app.example/callback',
      '--redirect-uri', 'http://127.0.0.1:8080/cb',
      '--scopes', 'openid profile alters:read',
      '--grants', 'authorization_code,refresh_token',
      '--grants', 'device_code',
      '--first-party',
    );
    expect(result.code, result.stderr).toBe(0);
    confidential = JSON.parse(result.stdout) as ClientJson;
    expect(confidential).toMatchObject({
      name: 'Example App',
      redirect_uris: ['https://app.example/callback', 'http://127.0.0.1:8080/cb'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      scopes: ['openid', 'profile', 'alters:read'],
      public: false,
      first_party: true,
    });
    expect(confidential.client_secret).toMatch(/^sbs_[\w-]{40,}$/);
    expect(Object.keys(confidential).sort()).toEqual(
      ['client_id', 'client_secret', 'first_party', 'grant_types', 'name', 'public', 'redirect_uris', 'scopes'],
    );
    const hash = await storedSecretHash(confidential.client_id);
    expect(hash).toBeTruthy();
    expect(hash).not.toBe(confidential.client_secret);
    expect(hash).not.toContain(confidential.client_secret);
    expect(hash).toBe(sha256(confidential.client_secret ?? ''));
  });

  it('creates a public client without a secret', async () => {
    const result = await run('clients', 'create', '--public', '--name', 'Mobile', '--redirect-uri', 'com.example.mobile:/oauth', '--scopes', 'openid offline_access');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('sbs_');
    expect(result.stdout).toMatch(/public/);
    publicId = /client_id:\s+(\S+)/.exec(result.stdout)?.[1] ?? '';
    expect(publicId).not.toBe('');
    expect(await storedSecretHash(publicId)).toBeNull();
  });

  it('rejects unsafe redirect URIs with exit 2 and names the field', async () => {
    const create = (uri: string) => run('clients', 'create', '--name', 'Bad', '--redirect-uri', 'https://ok.example/cb', '--redirect-uri', uri, '--scopes', 'openid');
    const [script, plainHttp] = await Promise.all([create('javascript:alert(1)'), create('http://example.com/cb')]);
    for (const result of [script, plainHttp]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: redirectUris\.1: must use https/m);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const notUrl = await create('notaurl');
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/redirectUris\.1: must be an absolute URL/);
  });

  it('rejects an unknown scope and client_credentials for a public client with exit 2', async () => {
    const [scope, publicCredentials] = await Promise.all([
      run('clients', 'create', '--name', 'Bad', '--redirect-uri', 'https://ok.example/cb', '--scopes', 'openid admin'),
      run('clients', 'create', '--name', 'Bad', '--public', '--grants', 'client_credentials', '--scopes', 'alters:read'),
    ]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/^error: scopes\.1: unknown scope/m);
    expect(publicCredentials.code).toBe(2);
    expect(publicCredentials.stderr).toMatch(/^error: grantTypes: .*client_credentials/m);
  });

  it('lists exactly the registered clients, without secrets', async () => {
    const clients = await listJson();
    expect(clients.map((client) => client.client_id).sort()).toEqual([confidential.client_id, publicId].sort());
    expect(JSON.stringify(clients)).not.toMatch(/secret|hash|sbs_/);
    expect(clients.find((client) => client.client_id === publicId)).toMatchObject({ name: 'Mobile', public: true, first_party: false });

    const table = await run('clients', 'list');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${confidential.client_id}\\s+Example App\\s+confidential\\s+yes`));
    expect(table.stdout).toMatch(new RegExp(`${publicId}\\s+Mobile\\s+public\\s+no`));
  });

  it('rotates the secret of a confidential client', async () => {
    const oldHash = await storedSecretHash(confidential.client_id);
    const result = await run('clients', 'rotate-secret', confidential.client_id, '--json');
    expect(result.code, result.stderr).toBe(0);
    const rotated = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
    expect(rotated.client_id).toBe(confidential.client_id);
    expect(rotated.client_secret).toMatch(/^sbs_/);
    expect(rotated.client_secret).not.toBe(confidential.client_secret);
    const newHash = await storedSecretHash(confidential.client_id);
    expect(newHash).not.toBe(oldHash);
    expect(newHash).toBe(sha256(rotated.client_secret));
  });

  it('refuses to rotate the secret of a public or unknown client with exit 1', async () => {
    const [publicClient, unknown] = await Promise.all([
      run('clients', 'rotate-secret', publicId),
      run('clients', 'rotate-secret', 'no-such-client'),
    ]);
    expect(publicClient.code).toBe(1);
    expect(publicClient.stderr).toMatch(/public/);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no-such-client');
    expect(await storedSecretHash(publicId)).toBeNull();
  });

  it('deletes a client once; deleting it again exits 1', async () => {
    const first = await run('clients', 'delete', publicId);
    expect(first.code, first.stderr).toBe(0);
    expect((await listJson()).map((client) => client.client_id)).toEqual([confidential.client_id]);
    const again = await run('clients', 'delete', publicId);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(publicId);
  });
});
