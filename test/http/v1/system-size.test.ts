// The cap on a system's total size (issue 26, item 6) through every writer of the API: a create, an
// edit or an import that would grow the system's alters past MAX_SYSTEM_ALTER_CHARS is refused with
// 409 `system-too-large` and writes nothing; edits that shrink or keep the size pass. The system is
// brought near the cap by rows written straight to the database (the API's own body limit would
// take forty requests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alterColumns } from '../../../src/db/alter-columns.js';
import { ALTER_DEFAULTS, MAX_SYSTEM_ALTER_CHARS, type Alter } from '../../../src/domain/alter.js';
import { errorTypes, request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { snapshotDatabase, describeDifference } from '../../support/snapshot.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const CHUNK = 1024 * 1024;
let nextUser = 0;
const newUserId = () => `64000000000000${String(1000 + ++nextUser)}`;

describe.each(DIALECTS)('the cap on a system’s size (%s)', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  /** A user whose system is `room` characters short of the cap; its id and first filler alter's id. */
  async function nearlyFull(room: number): Promise<{ user: ApiUser; systemId: number; filler: number }> {
    const user = await signIn(server, newUserId());
    const db = server.database.db;
    const { id: systemId } = await db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    const row = (n: number, description: string) => ({
      ...alterColumns({ ...ALTER_DEFAULTS, username: `filler${n}`, displayName: `filler${n}`, description, public: 0, messageCount: 0, lastMessageAt: null, createdAt: Date.now() }),
      system_id: Number(systemId),
    });
    const ids = [];
    for (let n = 0; n < MAX_SYSTEM_ALTER_CHARS / CHUNK - 1; n++) ids.push(Number((await db.insertInto('alters').values(row(n, 'd'.repeat(CHUNK))).returning('id').executeTakeFirstOrThrow()).id));
    const { alter_chars: used } = await db.selectFrom('systems').select('alter_chars').where('id', '=', systemId).executeTakeFirstOrThrow();
    const last = MAX_SYSTEM_ALTER_CHARS - Number(used) - room - 40;
    await db.insertInto('alters').values(row(99, 'd'.repeat(last))).execute();
    const { alter_chars: now } = await db.selectFrom('systems').select('alter_chars').where('id', '=', systemId).executeTakeFirstOrThrow();
    expect(MAX_SYSTEM_ALTER_CHARS - Number(now)).toBeGreaterThanOrEqual(room);
    expect(MAX_SYSTEM_ALTER_CHARS - Number(now)).toBeLessThan(room + 100);
    return { user, systemId: Number(systemId), filler: ids[0] as number };
  }

  it('refuses a create or edit that grows the system past the cap, and lets one that shrinks it through', { timeout: 60_000 }, async () => {
    const { user, filler } = await nearlyFull(500);
    const small = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'small', displayName: 'Small' });
    expect(small.status).toBe(201);

    const before = await snapshotDatabase(server.database.db);
    const big = await user.call('POST', '/v1/users/@me/system/create-alter', { username: 'big', displayName: 'Big', description: 'x'.repeat(1000) });
    expect(big.status).toBe(409);
    expect(errorTypes(big)).toEqual(['system-too-large']);
    const grown = await user.call('POST', `/v1/users/@me/alters/${small.body.alterId}/edit`, { description: 'x'.repeat(1000) });
    expect(grown.status).toBe(409);
    expect(errorTypes(grown)).toEqual(['system-too-large']);
    expect(describeDifference(before, await snapshotDatabase(server.database.db))).toBe('(no difference)');

    // Shrinking makes room again.
    const shrunk = await user.call('POST', `/v1/users/@me/alters/${filler}/edit`, { description: 'short' });
    expect(shrunk.status).toBe(200);
    expect((await user.call('POST', `/v1/users/@me/alters/${small.body.alterId}/edit`, { description: 'x'.repeat(1000) })).status).toBe(200);
  });

  it('refuses an import that would pass the cap, whole: nothing of it is written', { timeout: 60_000 }, async () => {
    const { user } = await nearlyFull(5000);
    const members = Array.from({ length: 10 }, (_, i) => ({ id: `abcd${'efghij'[i % 6]}${i}`.slice(0, 6), name: `member ${i}`, description: 'm'.repeat(1000) }));
    const file = JSON.stringify({ version: 2, id: 'sysabc', name: 'Sys', members, groups: [], switches: [] });
    const importFile = (body: string, query = '') => request(server, 'POST', `/v1/users/@me/system/import${query}`, { token: user.token, raw: body, headers: { 'content-type': 'application/json' } });
    const before = await snapshotDatabase(server.database.db);
    for (const query of ['?dryRun=true', '']) {
      const response = await importFile(file, query);
      expect(response.status, query).toBe(409);
      expect(errorTypes(response)).toEqual(['system-too-large']);
    }
    expect(describeDifference(before, await snapshotDatabase(server.database.db))).toBe('(no difference)');

    // What fits is imported, counted as the database counts it.
    const fits = JSON.stringify({ version: 2, id: 'sysabc', name: 'Sys', members: members.slice(0, 3), groups: [], switches: [] });
    expect((await importFile(fits)).status).toBe(200);
  });
});
