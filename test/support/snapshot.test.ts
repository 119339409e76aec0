// The database watcher the fuzzing relies on (snapshot.ts) for "a rejected request changed
// nothing": a write made through the service moves its marker and shows in the next snapshot, and
// a read moves nothing. On SQLite the marker once came from the read connection, where it never
// moves, so no write was ever seen and the check passed whatever the service wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type ApiUser } from './api.js';
import { createTestDatabase, DIALECTS } from './dialects.js';
import { startTestServer, type TestServer } from './server.js';
import { DatabaseWatcher } from './snapshot.js';

describe.each(DIALECTS)('the database watcher (%s)', (dialect) => {
  let server: TestServer;
  let user: ApiUser;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    user = await signIn(server, '200000000000000091');
  });
  afterAll(async () => server?.stop());

  it('sees a write made through the service, and reads nothing again after a read', async () => {
    const watcher = new DatabaseWatcher(server.database.db);
    const before = await watcher.current();
    const made = await user.call('POST', '/v1/users/@me/system/create-alter', { username: 'watched', displayName: 'Watched' });
    expect(made.status).toBe(201);
    const after = await watcher.current();
    expect(after.digest).not.toBe(before.digest);
    expect(after.rows.alters?.some((row) => row.includes('watched'))).toBe(true);
    const reads = watcher.reads;
    expect((await user.call('GET', '/v1/users/@me/system')).status).toBe(200);
    // On PostgreSQL a write to another schema moves the marker (the WAL position); the rows are
    // not read again for it, since the server's digest of them is unchanged.
    const elsewhere = dialect === 'postgres' ? await createTestDatabase('postgres') : undefined;
    await elsewhere?.drop();
    expect((await watcher.current()).digest).toBe(after.digest);
    expect(watcher.reads).toBe(reads);
  });

  it('reads again after a write that leaves the row count as it was', async () => {
    const watcher = new DatabaseWatcher(server.database.db);
    const before = await watcher.current();
    const edited = await user.call('POST', '/v1/users/@me/system/edit', { systemPronouns: `they/them ${Date.now()}` });
    expect(edited.status).toBe(200);
    const after = await watcher.current();
    expect(after.tables.systems).not.toBe(before.tables.systems);
    expect(after.rows.systems?.length).toBe(before.rows.systems?.length);
  });
});
