// The dashboard's API types (dashboard/src/lib/api-types.ts) are generated from /openapi.json by
// scripts/dashboard-api-types.ts; this fails when they drift from the document the service serves
// (then run `npm run dashboard:api` and check the dashboard still type-checks: `npm run typecheck`).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_PATH, apiTypesSource } from '../../scripts/dashboard-api-types.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the dashboard’s API types', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.stop());

  it('are generated from the served /openapi.json as checked in', async () => {
    const document: unknown = await (await fetch(`${server.url}/openapi.json`)).json();
    const expected = await apiTypesSource(document);
    // A plain comparison would print 280 kB; say where they part.
    const actual = readFileSync(API_TYPES_PATH, 'utf8');
    const line = actual.split('\n').findIndex((text, index) => text !== expected.split('\n')[index]);
    expect(actual === expected, `dashboard/src/lib/api-types.ts differs from /openapi.json from line ${line + 1}: run npm run dashboard:api`).toBe(true);
    // Building the reference and generating 6,000 lines of types takes seconds, more beside other suites.
  }, 120_000);
});
