// Hosted images (issue 29): serving a stored avatar through the service against the same bytes
// from a bare route (a Fastify route answering a buffer held in memory) measured in the same run,
// under the same load; and an upload's time, from the request to the URL in its answer, for a
// 4 MiB photo, against the same bytes posted to a bare route that only reads them.
//
// Run alone: node --import tsx bench/images.ts [--quick]. bench/run.ts runs it too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import sharp from 'sharp';
import { loadConfig } from '../src/config/config.js';
import { startServer } from '../src/http/server.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { runLoad, type LoadResult } from './load.js';

export interface ImagesBenchResult {
  served: LoadResult;
  bare: LoadResult;
  servedBytes: number;
  photoBytes: number;
  /** Upload to URL, milliseconds: median and worst of the rounds. */
  upload: { median: number; worst: number };
  bareUpload: { median: number; worst: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** A phone-sized photo of about 4 MiB: noise, so JPEG cannot make it small. */
async function photo(seed: number): Promise<Buffer> {
  return sharp({ create: { width: 2800, height: 2100, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 120 + (seed % 10), sigma: 40 } } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

function multipart(bytes: Buffer): { body: Buffer; type: string } {
  const boundary = 'bench-boundary-7d3f';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

export async function benchImages(options: { quick: boolean }): Promise<ImagesBenchResult> {
  const rounds = options.quick ? 2 : 7;
  const duration = options.quick ? 1 : 10;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-images-'));
  const port = await freePort();
  const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(config);
  const bare = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });
  try {
    const server = { ...running, url: config.publicUrl } as unknown as TestServer;
    const client = await createTestClient(server);
    const { tokens } = await obtainTokens(client, { userId: '500000000000000091', scope: 'alters:write alters:read' });
    const upload = async (bytes: Buffer, url: string) => {
      const { body, type } = multipart(bytes);
      const started = performance.now();
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': type }, body });
      const answer = (await response.json()) as { data?: { url: string } };
      if (response.status >= 300 && url.includes('/v1/')) throw new Error(`upload answered ${response.status}: ${JSON.stringify(answer)}`);
      return { ms: performance.now() - started, url: answer.data?.url };
    };

    // The bare routes: the stored avatar's bytes from memory, and a body read and dropped.
    let avatar = Buffer.alloc(0);
    bare.get('/avatar.webp', async (_request, reply) => reply.type('image/webp').send(avatar));
    bare.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    bare.post('/upload', async () => ({ data: { url: 'none' } }));
    const barePort = await freePort();
    await bare.listen({ port: barePort, host: '127.0.0.1' });

    const photos = await Promise.all(Array.from({ length: rounds }, (_, i) => photo(i)));
    const uploads: number[] = [];
    const bareUploads: number[] = [];
    let hosted = '';
    for (const bytes of photos) {
      const done = await upload(bytes, `${config.publicUrl}/v1/users/@me/images`);
      uploads.push(done.ms);
      hosted = done.url ?? hosted;
      bareUploads.push((await upload(bytes, `http://127.0.0.1:${barePort}/upload`)).ms);
    }
    avatar = Buffer.from(await (await fetch(hosted)).arrayBuffer());

    const served = await runLoad({ url: hosted, connections: 50, duration });
    const bareServed = await runLoad({ url: `http://127.0.0.1:${barePort}/avatar.webp`, connections: 50, duration });
    return {
      served,
      bare: bareServed,
      servedBytes: avatar.length,
      photoBytes: photos[0]?.length ?? 0,
      upload: { median: median(uploads), worst: Math.max(...uploads) },
      bareUpload: { median: median(bareUploads), worst: Math.max(...bareUploads) },
    };
  } finally {
    await bare.close();
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const result = await benchImages({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(result, null, 2));
}
