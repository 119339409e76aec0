// `switchboard audit`, run for real as a child process against a fresh database of each dialect:
// client changes made with the CLI show up, the filters narrow, bad filters are usage errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { insertAuditEntry } from '../../src/db/repositories/audit-log.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { runCli } from '../support/cli.js';

interface AuditJson {
  at: string;
  kind: string;
  user_id: string | null;
  client_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

describe.each(DIALECTS)('switchboard audit on %s', (dialect) => {
  let database: TestDatabase;
  let dataDir: string;
  let clientId: string;
  const run = (...args: string[]) => runCli({ DATABASE_URL: database.url, DATA_DIR: dataDir }, ...args);
  const json = async (...args: string[]) => {
    const result = await run('audit', '--json', ...args);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as AuditJson[];
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-audit-cli-'));
    const created = await run('clients', 'create', '--json', '--name', 'Audit CLI app', '--redirect-uri', 'https://app.example/cb', '--scopes', 'openid alters:read');
    expect(created.code, created.stderr).toBe(0);
    clientId = (JSON.parse(created.stdout) as { client_id: string }).client_id;
    expect((await run('clients', 'rotate-secret', clientId)).code).toBe(0);
    expect((await run('clients', 'delete', clientId)).code).toBe(0);
    // Events the service writes, placed in time so that --since and --user have something to tell apart.
    const db = openDatabase(database.url);
    try {
      await migrateToLatest(db.db);
      await insertAuditEntry(db.db, { kind: 'sign-in', userId: '400000000000000001', ip: '192.0.2.1', details: { method: 'discord' } }, Date.parse('2026-10-15T10:00:00Z'));
      await insertAuditEntry(db.db, { kind: 'client-auth-failed', clientId: 'someone-else', ip: '198.51.100.9', details: { endpoint: 'token', reason: 'invalid secret provided' } }, Date.parse('2026-10-20T10:00:00Z'));
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the CLI’s client changes newest first, and never a secret', async () => {
    const events = await json('--client', clientId);
    expect(events.map((event) => event.kind)).toEqual(['client-deleted', 'client-secret-rotated', 'client-created']);
    expect(events[2]).toMatchObject({ client_id: clientId, user_id: null, ip: null, details: { name: 'Audit CLI app', type: 'confidential', scopes: ['openid', 'alters:read'] } });
    expect(JSON.stringify(events)).not.toMatch(/sbs_/);
  });

  it('prints a table by default', async () => {
    const result = await run('audit', '--client', clientId);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME \(UTC\)\s+KIND\s+USER\s+CLIENT\s+IP\s+DETAILS$/);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\s+client-deleted\\s+-\\s+${clientId}\\s+-\\s+name=Audit CLI app$`));
    expect(lines).toHaveLength(4);
  });

  it('filters by user, kind, time and count', async () => {
    const [byUser, twoKinds, repeated, since, sinceTime, limited, none] = await Promise.all([
      json('--user', '400000000000000001'),
      json('--kind', 'client-auth-failed,sign-in'),
      json('--kind', 'sign-in', '--kind', 'client-deleted'),
      json('--since', '2026-10-16'),
      json('--since', '2026-10-20T09:59:00Z', '--kind', 'client-auth-failed'),
      json('--limit', '2'),
      run('audit', '--user', '499999999999999999'),
    ]);
    expect(byUser.map((event) => [event.kind, event.ip, event.details])).toEqual([['sign-in', '192.0.2.1', { method: 'discord' }]]);
    expect(twoKinds.map((event) => event.kind)).toEqual(['client-auth-failed', 'sign-in']);
    expect(repeated.map((event) => event.kind)).toEqual(['client-deleted', 'sign-in']);
    expect(since.map((event) => event.kind)).not.toContain('sign-in');
    expect(since.map((event) => event.kind)).toContain('client-created');
    expect(sinceTime[0]?.at).toBe('2026-10-20T10:00:00.000Z');
    expect(limited).toHaveLength(2);
    expect(none.stdout.trim()).toBe('no audit events match');
  });

  it('refuses bad filters as usage errors (exit 2), naming the option', async () => {
    const results = await Promise.all([run('audit', '--kind', 'logins'), run('audit', '--since', 'last week'), run('audit', '--limit', '0')]);
    for (const result of results) expect(result.code, result.stderr).toBe(2);
    expect(results[0]?.stderr).toContain("'--kind <kinds>'");
    expect(results[0]?.stderr).toContain('sign-in');
    expect(results[1]?.stderr).toContain('2026-11-01');
    expect(results[2]?.stderr).toContain('from 1 to 10000');
  });
});
