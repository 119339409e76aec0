// The audit log, driven by real flows over HTTP (openid-client, the test browser): sign-in and
// consent, code and refresh-token replays that revoke the grant, revocations by the client and
// from the account page, failed client authentication and client changes. Checks the rows, that
// they hold no secret, and the log line each event also becomes.
import { Writable } from 'node:stream';
import * as oidc from 'openid-client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuditLog } from '../../src/auth/audit.js';
import { deleteClient, registerClient, rotateClientSecret } from '../../src/auth/clients.js';
import { insertAuditEntry, listAuditEntries, purgeAuditLog } from '../../src/db/repositories/audit-log.js';
import type { AuditEntry, AuditKind } from '../../src/domain/audit.js';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { authorize, createTestClient, obtainTokens, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe.each(DIALECTS)('audit log (%s)', (dialect) => {
  let server: TestServer;
  let client: TestClient;
  let nextUser = 300000000000000000n;
  const newUser = () => String(++nextUser);

  beforeAll(async () => {
    server = await startTestServer(dialect);
    client = await createTestClient(server);
  });
  afterAll(async () => server?.stop());

  const entries = (filter: { userId?: string; clientId?: string; kinds?: AuditKind[] }) => listAuditEntries(server.database.db, { ...filter, limit: 100 });

  /** Provider events are written after the response: wait until the entry is there. */
  async function entryOf(kind: AuditKind, filter: { userId?: string; clientId?: string }): Promise<AuditEntry> {
    return vi.waitFor(
      async () => {
        const [entry] = await entries({ ...filter, kinds: [kind] });
        if (!entry) throw new Error(`no ${kind} entry yet`);
        return entry;
      },
      { timeout: 5000, interval: 50 },
    );
  }

  it('records the sign-in (method, user, address) and the consent (client, scopes)', async () => {
    const user = newUser();
    await obtainTokens(client, { userId: user, scope: 'openid offline_access alters:read' });
    const [consent, signIn] = await entries({ userId: user });
    expect(signIn).toMatchObject({ kind: 'sign-in', userId: user, ip: '127.0.0.1', details: { method: 'dev-login' } });
    expect(signIn?.clientId).toBeUndefined();
    expect(consent).toMatchObject({ kind: 'consent', userId: user, clientId: client.id, ip: '127.0.0.1' });
    expect((consent?.details?.scopes as string[]).sort()).toEqual(['alters:read', 'offline_access', 'openid']);
  });

  it('records a refusal at the consent step', async () => {
    const user = newUser();
    await authorize(client, { userId: user, decision: 'deny' });
    expect(await entryOf('consent-denied', { userId: user })).toMatchObject({ clientId: client.id });
  });

  it('records a refresh-token replay that revoked the grant, as a warning-level kind', async () => {
    const user = newUser();
    const { tokens } = await obtainTokens(client, { userId: user });
    await oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '');
    await expect(oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    const replay = await entryOf('refresh-token-replay', { userId: user });
    expect(replay).toMatchObject({ clientId: client.id, ip: '127.0.0.1' });
    expect(typeof replay.details?.grant).toBe('string');
  });

  it('records a code replay that revoked the grant', async () => {
    const user = newUser();
    const { callbackUrl, verifier } = await authorize(client, { userId: user });
    const form = { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const auth = { id: client.id, secret: client.secret ?? '' };
    expect((await postForm(`${server.url}/auth/oauth2/token`, form, auth)).status).toBe(200);
    expect((await postForm(`${server.url}/auth/oauth2/token`, form, auth)).status).toBe(400);
    expect(await entryOf('code-replay', { userId: user })).toMatchObject({ clientId: client.id });
  });

  it('records two concurrent redemptions of one refresh token as a replay', async () => {
    const user = newUser();
    const { tokens } = await obtainTokens(client, { userId: user });
    await Promise.allSettled([oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? ''), oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '')]);
    expect(await entryOf('refresh-token-replay', { userId: user })).toMatchObject({ clientId: client.id });
  });

  it('records a revocation by the client (its refresh token) and by the user (account page)', async () => {
    const byClient = newUser();
    const { tokens } = await obtainTokens(client, { userId: byClient });
    await oidc.tokenRevocation(client.config, tokens.refresh_token ?? '');
    expect(await entryOf('revocation', { userId: byClient })).toMatchObject({ clientId: client.id, details: { by: 'client' } });

    const byUser = newUser();
    const browser = new TestBrowser();
    await obtainTokens(client, { userId: byUser, browser });
    const confirm = await browser.navigate(`${server.url}/account/apps/${client.id}/revoke`);
    const after = await browser.submit(confirm, `/account/apps/${client.id}/revoke`, {});
    expect(after.body).toContain('Access revoked');
    expect(await entryOf('revocation', { userId: byUser })).toMatchObject({ clientId: client.id, ip: '127.0.0.1', details: { by: 'user' } });
  });

  it('records failed client authentication: a wrong secret and an unknown client, with the address', async () => {
    const form = { grant_type: 'refresh_token', refresh_token: 'not-a-token' };
    const wrong = await postForm(`${server.url}/auth/oauth2/token`, form, { id: client.id, secret: 'wrong-secret-value' });
    expect(wrong.status).toBe(401);
    const failed = await entryOf('client-auth-failed', { clientId: client.id });
    expect(failed).toMatchObject({ ip: '127.0.0.1', details: { endpoint: 'token', reason: 'invalid secret provided' } });

    const unknown = await postForm(`${server.url}/auth/oauth2/introspect`, { token: 'x' }, { id: 'no-such-client', secret: 'whatever-secret' });
    expect(unknown.status).toBe(401);
    expect(await entryOf('client-auth-failed', { clientId: 'no-such-client' })).toMatchObject({ details: { endpoint: 'introspection', reason: 'client not found' } });

    const links = await postForm(`${server.url}/auth/login-links`, { user_id: '300000000000000999' }, { id: client.id, secret: 'another-wrong-secret' });
    expect(links.status).toBe(401);
    await vi.waitFor(async () => expect((await entries({ clientId: client.id, kinds: ['client-auth-failed'] })).some((entry) => entry.details?.endpoint === 'login-links')).toBe(true));
  });

  it('records client changes in the transaction that makes them', async () => {
    const { client: created } = await registerClient(server.database.db, { name: 'Audited app', redirectUris: ['https://audited.example/cb'], scopes: ['openid'], grantTypes: ['authorization_code'], public: false, firstParty: false });
    const secret = await rotateClientSecret(server.database.db, created.id);
    expect(await deleteClient(server.database.db, created.id)).toBe(true);
    const rows = await entries({ clientId: created.id });
    expect(rows.map((row) => row.kind)).toEqual(['client-deleted', 'client-secret-rotated', 'client-created']);
    expect(rows[2]?.details).toMatchObject({ name: 'Audited app', type: 'confidential', firstParty: false, scopes: ['openid'] });
    expect(JSON.stringify(rows)).not.toContain(secret);
    // Nothing is recorded for what did not happen.
    expect(await deleteClient(server.database.db, created.id)).toBe(false);
    expect(await rotateClientSecret(server.database.db, created.id)).toBeUndefined();
    expect(await entries({ clientId: created.id })).toHaveLength(3);
  });

  it('never stores a secret, a token or a code', async () => {
    const user = newUser();
    const { tokens, callbackUrl } = await obtainTokens(client, { userId: user });
    await oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '');
    await oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '').catch(() => undefined);
    await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' }, { id: client.id, secret: 'leaked-secret-guess' });
    await entryOf('refresh-token-replay', { userId: user });
    const all = JSON.stringify(await server.database.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of [client.secret ?? '', tokens.access_token, tokens.refresh_token ?? '', callbackUrl.searchParams.get('code') ?? '', 'leaked-secret-guess']) {
      expect(secret.length).toBeGreaterThan(5);
      expect(all).not.toContain(secret);
    }
  });

  it('also writes each event as a log line marked audit: true, replays at warn', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const audit = createAuditLog(server.database.db, pino({ level: 'info' }, sink));
    const user = newUser();
    await audit.record({ kind: 'sign-in', userId: user, ip: '192.0.2.7', details: { method: 'discord' } });
    await audit.record({ kind: 'refresh-token-replay', userId: user, clientId: client.id, ip: '192.0.2.7' });
    expect(lines).toMatchObject([
      { level: 30, audit: true, kind: 'sign-in', userId: user, ip: '192.0.2.7', details: { method: 'discord' }, msg: 'audit: sign-in' },
      { level: 40, audit: true, kind: 'refresh-token-replay', userId: user, clientId: client.id, msg: 'audit: refresh-token-replay' },
    ]);
    expect((await entries({ userId: user })).map((entry) => entry.kind)).toEqual(['refresh-token-replay', 'sign-in']);
  });

  it('purges entries older than the retention, and only those', async () => {
    const user = newUser();
    const day = 86_400_000;
    const now = Date.now();
    await insertAuditEntry(server.database.db, { kind: 'sign-in', userId: user, details: { method: 'discord' } }, now - 91 * day);
    await insertAuditEntry(server.database.db, { kind: 'sign-in', userId: user, details: { method: 'login-link' } }, now - 89 * day);
    expect(await purgeAuditLog(server.database.db, now - 90 * day)).toBeGreaterThanOrEqual(1);
    expect((await entries({ userId: user })).map((entry) => entry.details?.method)).toEqual(['login-link']);
  });
});
