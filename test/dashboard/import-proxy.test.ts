// The backend for the frontend and import files, on each database: a file as large as the import
// endpoint takes (32 MiB) passes through a live session, a larger one is 413 body-too-large in the
// API's error shape, without a session the body is refused before it is read (401), and every
// other forwarded call keeps the service's small body limit. The export's download headers reach
// the browser.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES } from '../../src/domain/import/model.js';
import { importThread } from '../../src/workers/import-thread.js';
import { TestBrowser } from '../support/browser.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { DIALECTS } from '../support/dialects.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000072';

/** A Tupperbox file of one tupper, padded with spaces (JSON whitespace) to `bytes`. */
function paddedFile(bytes: number): Buffer {
  const body = Buffer.from(JSON.stringify({ tuppers: [{ id: 1, name: 'Padded', brackets: ['p:', ''] }], groups: [] }));
  return Buffer.concat([body, Buffer.alloc(bytes - body.length, ' ')]);
}

describe.each(DIALECTS)('import files through the dashboard backend (%s)', (dialect) => {
  let server: TestServer;
  let browser: TestBrowser;
  let csrfToken: string;
  const cookie = () => browser.cookieHeader(new URL(`${server.url}/dashboard/`));

  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    browser = new TestBrowser();
    const page = await browser.navigate(`${server.url}/dashboard/`);
    await browser.submit(page, '/dev-login', { user_id: USER });
    const session = await fetch(`${server.url}/dashboard/api/session`, { headers: { cookie: cookie() } });
    csrfToken = ((await session.json()) as { csrfToken: string }).csrfToken;
  });
  afterAll(async () => server?.stop());

  const send = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { cookie: cookie(), 'x-csrf-token': csrfToken, 'content-type': 'application/json', ...headers }, body });

  it('passes a file of exactly 32 MiB to the import, previewed', async () => {
    const response = await send('/dashboard/api/v1/users/@me/system/import?dryRun=true', paddedFile(MAX_IMPORT_BYTES));
    const body = (await response.json()) as { data: { dryRun: boolean; counts: { alters: { created: number } } } };
    expect(response.status).toBe(200);
    expect(body.data).toMatchObject({ dryRun: true, counts: { alters: { created: 1 } } });
  });

  it('refuses a larger file with 413 body-too-large in the API’s error shape', async () => {
    const response = await send('/dashboard/api/v1/users/@me/system/import?dryRun=true', paddedFile(MAX_IMPORT_BYTES + 1));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: [{ type: 'body-too-large', friendly: expect.stringContaining('32 MiB') }] });
  });

  it('streams the body through: one sent in chunks without a length is refused with 413 when it passes 32 MiB, before it ends', async () => {
    const req = httpRequest(`${server.url}/dashboard/api/v1/users/@me/system/import?dryRun=true`, {
      method: 'POST',
      headers: { cookie: cookie(), 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    let answered = false;
    const answer = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve) => {
      req.on('response', (response: IncomingMessage) => {
        answered = true;
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: Buffer.concat(parts).toString('utf8') }));
      });
    });
    // One byte over the cap, then nothing, never ended: the answer comes while the body is open
    // (and every byte sent was read, so the closing connection loses no answer to a reset).
    const head = Buffer.from(JSON.stringify({ tuppers: [], groups: [] }));
    req.write(head);
    let left = MAX_IMPORT_BYTES + 1 - head.length;
    while (!answered && left > 0) {
      const piece = Buffer.alloc(Math.min(left, 1024 * 1024), ' ');
      left -= piece.length;
      if (!req.write(piece)) await Promise.race([new Promise((resolve) => req.once('drain', resolve)), answer]);
    }
    const refused = await answer;
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual({ errors: [{ type: 'body-too-large', friendly: expect.stringContaining('32 MiB') }] });
    expect(refused.connection).toBe('close');
    expect(req.writableEnded).toBe(false);
    req.destroy();
    const deadline = Date.now() + 10_000;
    while (importThread().stats.openUploads > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(importThread().stats.openUploads).toBe(0);
  });

  it('refuses an import body without a session (401), and a cross-site one (403), writing nothing', async () => {
    const signedOut = await fetch(`${server.url}/dashboard/api/v1/users/@me/system/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: paddedFile(1024 * 1024) });
    expect(signedOut.status).toBe(401);
    expect(((await signedOut.json()) as { errors: Array<{ type: string }> }).errors[0]?.type).toBe('invalid-auth');
    const crossSite = await send('/dashboard/api/v1/users/@me/system/import', paddedFile(1024), { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { errors: Array<{ type: string }> }).errors[0]?.type).toBe('cross-site-request');
    const alters = await fetch(`${server.url}/dashboard/api/v1/users/@me/system/list-alters`, { headers: { cookie: cookie() } });
    expect(await alters.json()).toEqual([]);
  });

  it('keeps the small body limit on every other forwarded call', async () => {
    const response = await send('/dashboard/api/v1/users/@me/system/edit', paddedFile(1024 * 1024));
    expect(response.status).toBe(413);
    await response.arrayBuffer();
  });

  it('forwards the export as a download', async () => {
    const response = await fetch(`${server.url}/dashboard/api/v1/users/@me/system/export`, { headers: { cookie: cookie() } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="system.json"');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { version: number }).version).toBe(2);
  });
});
