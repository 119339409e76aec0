// `switchboard events …`, run for real as a child process against a fresh database of each
// dialect: endpoints registered for a client with the secret printed once and stored sealed, the
// list, rotation, the delivery log, replay, status and deletion, and bad input refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { runCli } from '../support/cli.js';

describe.each(DIALECTS)('switchboard events (%s)', (dialect) => {
  let dataDir: string;
  let database: TestDatabase;
  const run = (...args: string[]) => runCli({ DATABASE_URL: database.url, DATA_DIR: dataDir }, ...args);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-events-'));
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, lists, rotates, logs, replays and deletes endpoints', async () => {
    const client = JSON.parse((await run('clients', 'create', '--name', 'Hooked', '--grants', 'client_credentials', '--scopes', 'events:manage system:read', '--json')).stdout) as { client_id: string };
    const created = await run('events', 'create', '--client', client.client_id, '--url', 'https://hooks.example/in', '--types', 'system.updated,alter.created', '--json');
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[]; clientId: string };
    expect(endpoint).toMatchObject({ clientId: client.client_id, eventTypes: ['system.updated', 'alter.created'] });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const opened = openDatabase(database.url);
    try {
      const row = await opened.db.selectFrom('event_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice('whsec_'.length, 20));
    } finally {
      await opened.close();
    }

    const listed = await run('events', 'list', '--client', client.client_id);
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain('whsec_');
    const rotated = await run('events', 'rotate-secret', endpoint.id);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/new secret for endpoint ep_\S+: whsec_/);
    expect(rotated.stdout).not.toContain(endpoint.secret);
    expect((await run('events', 'deliveries', endpoint.id)).stdout).toContain('no deliveries');
    expect((await run('events', 'replay', '--endpoint', endpoint.id, '--since', '2026-01-01T00:00:00Z')).stdout).toContain('queued 0 deliveries');
    expect((await run('events', 'status')).stdout).toMatch(/pending\s+0/);
    expect((await run('events', 'delete', endpoint.id)).stdout).toContain(`deleted endpoint ${endpoint.id}`);
    expect((await run('events', 'list')).stdout).toContain('no endpoints');
  });

  it('prints what a client stored escaped: no escape sequence or line break reaches the terminal', async () => {
    const client = JSON.parse((await run('clients', 'create', '--name', 'Sneaky', '--grants', 'client_credentials', '--scopes', 'events:manage', '--json')).stdout) as { client_id: string };
    // As a row stored before URLs were normalised on input would be.
    const hostile = 'https://hooks.example/in\u001b[2J\u001b]0;owned\u0007\r\nep_fake  yes  https://evil.example\u009b31m\u202e';
    const opened = openDatabase(database.url);
    try {
      await opened.db
        .insertInto('event_endpoints')
        .values({ id: 'ep_AAAAAAAAAAAAAAAA', client_id: client.client_id, url: hostile, event_types: '["system.updated"]', description: null, secret_sealed: 'x', previous_secret_sealed: null, previous_secret_expires_at: null, created_at: 1, updated_at: 1 })
        .execute();
    } finally {
      await opened.close();
    }
    const listed = await run('events', 'list', '--client', client.client_id);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toMatch(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u);
    expect(listed.stdout).toContain('https://hooks.example/in\\x1b[2J\\x1b]0;owned\\x07\\r\\nep_fake  yes  https://evil.example\\x9b31m\\u{202e}');
    // JSON escapes on its own.
    expect(JSON.parse((await run('events', 'list', '--client', client.client_id, '--json')).stdout)[0].url).toBe(hostile);
  });

  it('refuses bad input with exit code 2, and unknown ids with 1', async () => {
    const client = JSON.parse((await run('clients', 'create', '--name', 'Hooked', '--grants', 'client_credentials', '--scopes', 'events:manage', '--json')).stdout) as { client_id: string };
    const badType = await run('events', 'create', '--client', client.client_id, '--url', 'https://hooks.example/in', '--types', 'alter.exploded');
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('eventTypes.0');
    const plain = await run('events', 'create', '--client', client.client_id, '--url', 'http://hooks.example/in', '--types', 'alter.created');
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('https');
    const unknownClient = await run('events', 'create', '--client', 'nobody', '--url', 'https://hooks.example/in', '--types', 'alter.created');
    expect(unknownClient).toMatchObject({ code: 1 });
    expect(unknownClient.stderr).toContain('no client');
    expect((await run('events', 'delete', 'ep_nonexistent0000000')).code).toBe(1);
    expect((await run('events', 'replay', 'msg_999')).code).toBe(1);
    expect((await run('events', 'replay')).code).toBe(2);
  });
});
