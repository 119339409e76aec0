// A copy of the database must not contain any usable token, code, client secret or login link.
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/dialects.js';
import { authorize, createTestClient, obtainTokens } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TABLES = ['oidc_payloads', 'oauth_clients', 'login_links', 'users', 'systems'] as const;

describe.each(DIALECTS)('secrets at rest (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  it('stores no token, code, secret or login link in readable form', async () => {
    const client = await createTestClient(server, { firstParty: true });
    const { tokens } = await obtainTokens(client, { userId: '500000000000000005' });
    const refreshed = await oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '');
    const { callbackUrl } = await authorize(client);
    const code = callbackUrl.searchParams.get('code') ?? '';
    const link = await fetch(`${server.url}/auth/login-links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret ?? ''}`).toString('base64')}` },
      body: JSON.stringify({ user_id: '500000000000000005' }),
    });
    const linkToken = ((await link.json()) as { url: string }).url.split('/').pop() ?? '';

    let dump = '';
    for (const table of TABLES) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(server.database.db);
      dump += JSON.stringify(rows.rows);
    }
    expect(dump).toContain('500000000000000005');
    for (const secret of [tokens.access_token, tokens.refresh_token, refreshed.access_token, refreshed.refresh_token, code, client.secret, linkToken]) {
      expect(secret && secret.length > 10).toBe(true);
      expect(dump).not.toContain(secret);
    }
  });
});
