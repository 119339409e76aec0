// The import's body is streamed into the import worker as it arrives (json-stream.ts reads it
// there), on every dialect: a body sent slowly in small chunks reaches the worker before it ends
// and imports as the same body sent at once; a body over the cap is refused with 413 while it is
// still being sent, and one that declares more than the cap before any of it is read.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES, type ImportReport } from '../../../src/domain/import/model.js';
import { importThread } from '../../../src/workers/import-thread.js';
import { request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { SAMPLES } from '../../support/samples.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const pkBytes = new Uint8Array(readFileSync(`${SAMPLES}/pluralkit-v2.json`));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: { data?: ImportReport; errors?: Array<{ type: string; friendly: string }> };
}

/** A POST whose body the test writes itself (chunked unless a length is given); the answer as it comes. */
interface OpenImport {
  req: ClientRequest;
  answer: Promise<Answer>;
  answered: () => boolean;
}

function openImport(server: TestServer, user: ApiUser, query: string, headers: Record<string, string> = {}): OpenImport {
  const url = new URL(`${server.url}/v1/users/@me/system/import${query}`);
  let done = false;
  const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', ...headers } });
  // Writes after the server answered and closed the connection fail; the answer is what counts.
  req.on('error', () => undefined);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (response) => {
      done = true;
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Answer['body'] }));
      response.on('error', reject);
    });
  });
  return { req, answer, answered: () => done };
}

const write = (req: ClientRequest, bytes: Uint8Array) => new Promise<void>((resolve) => (req.write(bytes) ? resolve() : req.once('drain', () => resolve())));

describe.each(DIALECTS)('the import body streamed (%s)', (dialect) => {
  let server: TestServer;
  let user: ApiUser;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    user = await signIn(server, '200000000000041001');
  });
  afterAll(async () => server?.stop());

  it('reads a body sent slowly in small chunks as it comes, and imports it as the same body sent at once', async () => {
    const whole = await request<{ data: ImportReport }>(server, 'POST', '/v1/users/@me/system/import?dryRun=true', { token: user.token, raw: pkBytes, headers: { 'content-type': 'application/json' } });
    expect(whole.status).toBe(200);

    const before = importThread().stats.bytesWritten;
    const { req, answer, answered } = openImport(server, user, '?dryRun=true');
    const half = Math.floor(pkBytes.length / 2);
    for (let at = 0; at < half; at += 256) {
      await write(req, pkBytes.subarray(at, Math.min(at + 256, half)));
      await sleep(2);
    }
    // The first half is in the worker while the second has not been sent.
    await until(() => importThread().stats.bytesWritten - before >= half, 'the first half to reach the import worker');
    expect(answered()).toBe(false);
    for (let at = half; at < pkBytes.length; at += 256) {
      await write(req, pkBytes.subarray(at, Math.min(at + 256, pkBytes.length)));
      await sleep(2);
    }
    req.end();
    const streamed = await answer;
    expect(streamed.status, JSON.stringify(streamed.body)).toBe(200);
    expect(streamed.body.data).toEqual(whole.body.data);
    expect(importThread().stats.bytesWritten - before).toBe(pkBytes.length);
  });

  it('refuses a body with 413 when it passes 32 MiB, while it is still being sent, and drops what it read', async () => {
    const { req, answer, answered } = openImport(server, user, '?dryRun=true');
    // One byte over the cap, then nothing, never ended: the answer comes while the body is open
    // (and every byte sent was read, so the closing connection loses no answer to a reset).
    const head = new TextEncoder().encode('{"tuppers": [], "pad": "');
    await write(req, head);
    let left = MAX_IMPORT_BYTES + 1 - head.length;
    while (!answered() && left > 0) {
      const piece = new Uint8Array(Math.min(left, 1024 * 1024)).fill(0x78);
      left -= piece.length;
      await Promise.race([write(req, piece), answer]);
    }
    const refused = await answer;
    expect(refused.status).toBe(413);
    expect(refused.body.errors?.[0]?.type).toBe('body-too-large');
    expect(refused.body.errors?.[0]?.friendly).toMatch(/larger than 32 MiB/);
    expect(refused.headers.connection).toBe('close');
    expect(req.writableEnded).toBe(false);
    req.destroy();
    await until(() => importThread().stats.openUploads === 0, 'the upload to be dropped');
  });

  it('refuses a body that declares more than 32 MiB before reading any of it', async () => {
    const before = importThread().stats.bytesWritten;
    const { req, answer } = openImport(server, user, '', { 'content-length': String(32 * 1024 * 1024 + 1) });
    await write(req, new TextEncoder().encode('{"tuppers": ['));
    const refused = await answer;
    expect(refused.status).toBe(413);
    expect(refused.body.errors?.[0]?.type).toBe('body-too-large');
    expect(importThread().stats.bytesWritten).toBe(before);
    req.destroy();
  });

  it('drops the upload of a request refused after its body came (a bad query)', async () => {
    const response = await request(server, 'POST', '/v1/users/@me/system/import?mode=overwrite', { token: user.token, raw: pkBytes, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    await until(() => importThread().stats.openUploads === 0, 'the upload to be dropped');
  });
});
