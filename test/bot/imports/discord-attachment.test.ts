// The attachment allowlist (a table: which pasted links are Discord attachments) and the download
// against a real local HTTP server standing in for the CDN: redirects, size caps, timeouts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/bot/api-client.js';
import { attachmentOrigins, checkAttachmentLink, DISCORD_CDN_ORIGINS, downloadAttachment } from '../../../src/bot/imports/discord-attachment.js';

const PATH = '/attachments/300000000000000003/1234567890123456789/system.json';
const EPHEMERAL = '/ephemeral-attachments/100000000000000001/1234567890123456789/system.json';

describe('checkAttachmentLink', () => {
  const origins = attachmentOrigins('https://discord.com/api');
  const cases: Array<[string, string, boolean]> = [
    ['a CDN attachment', `https://cdn.discordapp.com${PATH}`, true],
    ['a signed CDN attachment', `https://cdn.discordapp.com${PATH}?ex=6790&is=6780&hm=abc&`, true],
    ['the media proxy', `https://media.discordapp.net${PATH}`, true],
    ['a slash command’s ephemeral attachment', `https://cdn.discordapp.com${EPHEMERAL}`, true],
    ['wrapped in <>', `<https://cdn.discordapp.com${PATH}>`, true],
    ['with spaces around', `  https://cdn.discordapp.com${PATH}  `, true],
    ['upper-case host (URL normalises it)', `https://CDN.DISCORDAPP.COM${PATH}`, true],
    ['plain http to the CDN', `http://cdn.discordapp.com${PATH}`, false],
    ['another port on the CDN host', `https://cdn.discordapp.com:8443${PATH}`, false],
    ['a look-alike host', `https://cdn.discordapp.com.evil.example${PATH}`, false],
    ['a subdomain', `https://x.cdn.discordapp.com${PATH}`, false],
    ['credentials in the URL', `https://user:pw@cdn.discordapp.com${PATH}`, false],
    ['another site', `https://example.com${PATH}`, false],
    ['a loopback address', `http://127.0.0.1:8080${PATH}`, false],
    ['a cloud metadata address', 'http://169.254.169.254/latest/meta-data/', false],
    ['a file URL', 'file:///etc/passwd', false],
    ['not an attachment path on the CDN', 'https://cdn.discordapp.com/avatars/1/abc.png', false],
    ['a path climbing out', 'https://cdn.discordapp.com/attachments/1/2/../../../avatars/x', false],
    ['not a link', 'system.json', false],
    ['empty', '', false],
  ];
  it.each(cases)('%s', (_name, text, accepted) => {
    expect(checkAttachmentLink(text, origins).ok).toBe(accepted);
  });

  it('adds the configured Discord API’s origin (a Discord-compatible server such as the test fake), nothing else', () => {
    const local = attachmentOrigins('http://127.0.0.1:4000/api');
    expect(local).toEqual([...DISCORD_CDN_ORIGINS, 'http://127.0.0.1:4000']);
    expect(checkAttachmentLink(`http://127.0.0.1:4000${PATH}`, local).ok).toBe(true);
    expect(checkAttachmentLink(`http://127.0.0.1:4001${PATH}`, local).ok).toBe(false);
    expect(checkAttachmentLink(`http://localhost:4000${PATH}`, local).ok).toBe(false);
  });

  it('explains a refusal in a sentence', () => {
    const result = checkAttachmentLink('https://example.com/system.json', attachmentOrigins('https://discord.com/api'));
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/Only links to files uploaded to Discord/) });
  });
});

describe('downloadAttachment', () => {
  let server: Server;
  let origin: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const name = (req.url ?? '').split('/')[4];
      if (name === 'ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('{"switches":[]}');
      else if (name === 'redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else if (name === 'declared-big') res.writeHead(200, { 'content-length': '2048' }).end(Buffer.alloc(2048));
      else if (name === 'chunked-big') {
        res.writeHead(200);
        res.write(Buffer.alloc(600));
        res.end(Buffer.alloc(600));
      } else if (name === 'slow') res.writeHead(200).write('{');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (name: string, timeoutMs = 2000) =>
    downloadAttachment(`${origin}/attachments/1/2/${name}`, { origins: [origin], maxBytes: 1024, timeoutMs });
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).message;
  };

  it('returns the bytes', async () => {
    expect((await get('ok')).toString()).toBe('{"switches":[]}');
  });

  it('does not follow a redirect', async () => {
    expect(await failure(get('redirect'))).toMatch(/somewhere other than the file/);
  });

  it('refuses a file declared over the cap, and one that grows over it while streaming', async () => {
    expect(await failure(get('declared-big'))).toMatch(/too big.*at most 1 KiB/);
    expect(await failure(get('chunked-big'))).toMatch(/too big/);
  });

  it('gives up on a server that stops sending', async () => {
    expect(await failure(get('slow', 300))).toMatch(/too long/);
  });

  it('says an expired link is gone', async () => {
    expect(await failure(get('missing'))).toMatch(/no longer has that file/);
  });

  it('never contacts a host outside the allowlist', async () => {
    const before = hits.length;
    const message = await failure(downloadAttachment(`${origin}/attachments/1/2/ok`, { origins: DISCORD_CDN_ORIGINS, maxBytes: 1024, timeoutMs: 1000 }));
    expect(message).toMatch(/Only links to files uploaded to Discord/);
    expect(hits.length).toBe(before);
  });
});
