// /docs and /openapi.json are built on their first request (src/http/openapi.ts) and /docs is
// answered by an instance of their own: what it answers must be what the service would answer.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

/** A raw request: fetch would resolve dot segments before sending. */
function raw(server: TestServer, method: string, path: string, headers: Record<string, string> = {}) {
  const { port } = new URL(server.url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('/docs, built on first use', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server.stop());

  it('serves the reference’s files with their caching headers; HEAD says the length of GET', async () => {
    const get = await raw(server, 'GET', '/docs/static/swagger-ui.css');
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toMatch(/^text\/css/);
    expect(Number(get.headers['content-length'])).toBe(get.body.length);
    expect(get.headers['content-security-policy']).toContain("script-src 'self'");
    const head = await raw(server, 'HEAD', '/docs/static/swagger-ui.css');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    const etag = String(get.headers.etag);
    const revalidated = await raw(server, 'GET', '/docs/static/swagger-ui.css', { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
  });

  it('answers 404 for paths with dot segments, which never reach another route', async () => {
    for (const path of ['/docs/../v1/users/@me/system', '/docs/%2e%2e/healthz', '/docs/static/../../package.json', '/docs/.%2E/readyz']) {
      const response = await raw(server, 'GET', path);
      expect(response.status, path).toBe(404);
    }
    expect((await raw(server, 'GET', '/docs/nothing')).status).toBe(404);
  });

  it('serves one document at /openapi.json and /docs/json', async () => {
    const [document, fromDocs] = await Promise.all([raw(server, 'GET', '/openapi.json'), raw(server, 'GET', '/docs/json')]);
    expect(document.status).toBe(200);
    expect(JSON.parse(fromDocs.body.toString())).toEqual(JSON.parse(document.body.toString()));
  });
});
