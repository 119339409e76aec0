// The reference's "Getting started" runs as written: its CLI command registers a client, its shell
// steps (openssl, curl, jq) take a user through authorization with PKCE, call the API and
// refresh, and its openid-client example does the same. Only the values a reader fills in (the
// client's id and secret, the code from the redirect) are substituted; the browser step is the
// development login.
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gettingStarted } from '../../../src/http/v1/getting-started.js';
import { TestBrowser, type Page } from '../../support/browser.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { testBundle } from '../../support/test-bundle.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const USER = '500000000000000027';
const CALLBACK = 'http://localhost:8080/callback';

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const bash = (script: string) => run('bash', ['-euo', 'pipefail', '-c', script]);

/** The fenced blocks of the section, in order, by language. */
function blocks(markdown: string, language: 'sh' | 'js'): string[] {
  return [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] === language).map((m) => m[2] ?? '');
}

/** Replaces the line assigning `name` in a shell block, failing when the block has no such line. */
function assign(block: string, name: string, value: string): string {
  const line = new RegExp(`^${name}=.*$`, 'm');
  expect(block, `the block assigns ${name}`).toMatch(line);
  return block.replace(line, `${name}='${value}'`);
}

/** Signs in with the development login and approves; returns where the browser was sent. */
async function approve(authorizationUrl: string): Promise<URL> {
  const browser = new TestBrowser();
  const toClient = (next: URL) => !next.toString().startsWith(CALLBACK);
  let page: Page = await browser.navigate(authorizationUrl, { follow: toClient });
  page = await browser.submit(page, '/dev-login', { user_id: USER }, toClient);
  page = await browser.submit(page, '/consent', { decision: 'approve' }, toClient);
  expect(page.location, page.body).toMatch(/^http:\/\/localhost:8080\/callback\?/);
  return new URL(page.location ?? '');
}

describe('Getting started, as documented', () => {
  let server: TestServer;
  let section: string;
  let client: { id: string; secret: string };

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    section = gettingStarted(server.url);
    // 1. The documented registration, through the real CLI against the server's database.
    const [register] = blocks(section, 'sh');
    const args = (register ?? '').trim().match(/"[^"]*"|\S+/g)?.map((word) => word.replace(/^"|"$/g, '')) ?? [];
    expect(args.slice(0, 2)).toEqual(['npx', 'switchboard']);
    const created = await run(process.execPath, [join(testBundle(), 'cli.js'), ...args.slice(2)], { DATABASE_URL: server.testDatabase.url, DATA_DIR: server.config.dataDir });
    expect(created.code, created.stderr).toBe(0);
    client = { id: /client_id:\s+(\S+)/.exec(created.stdout)?.[1] ?? '', secret: /client_secret:\s+(\S+)/.exec(created.stdout)?.[1] ?? '' };
    expect(client.secret).toMatch(/^sbs_/);
  }, 60_000);

  afterAll(async () => server?.stop());

  it('derives the PKCE challenge as RFC 7636 does (its appendix B example)', async () => {
    const authorize = blocks(section, 'sh')[1] ?? '';
    const challengeLine = authorize.split('\n').find((line) => line.startsWith('CODE_CHALLENGE=')) ?? '';
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const derived = await bash(`CODE_VERIFIER='${verifier}'\n${challengeLine}\necho "$CODE_CHALLENGE"`);
    expect(derived.stdout.trim()).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(derived.stdout.trim()).toBe(await oidc.calculatePKCECodeChallenge(verifier));
  });

  it('authorizes with curl, calls GET /v1/users/@me/system and refreshes', async () => {
    const [, authorize = '', exchange = '', call = '', refresh = ''] = blocks(section, 'sh');
    const settings = assign(assign(authorize, 'CLIENT_ID', client.id), 'CLIENT_SECRET', client.secret);
    // Step 2 prints the URL to open; the verifier is kept for the next steps, as a shell would.
    const started = await bash(`${settings}\necho "$CODE_VERIFIER"\necho "$STATE"`);
    expect(started.code, started.stderr).toBe(0);
    const [url = '', verifier = '', state = ''] = started.stdout.trim().split('\n');
    expect(url.startsWith(`${server.url}/auth/oauth2/authorize?`)).toBe(true);

    const callback = await approve(url);
    expect(callback.searchParams.get('state')).toBe(state);
    const keep = settings.split('\n').filter((line) => /^(ISSUER|CLIENT_ID|CLIENT_SECRET|REDIRECT_URI)=/.test(line)).join('\n');
    const script = [
      keep,
      `CODE_VERIFIER='${verifier}'`,
      assign(exchange, 'CODE', callback.searchParams.get('code') ?? ''),
      'echo "first=$REFRESH_TOKEN"',
      call,
      'echo',
      refresh,
      'echo "second=$REFRESH_TOKEN"',
      'curl -s -H "Authorization: Bearer $ACCESS_TOKEN" "$ISSUER/v1/users/@me/system"',
    ].join('\n');
    const result = await bash(script);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const first = lines[0]?.replace('first=', '') ?? '';
    const second = lines[2]?.replace('second=', '') ?? '';
    expect(first).toMatch(/\S{20,}/);
    expect(second).toMatch(/\S{20,}/);
    expect(second).not.toBe(first);
    for (const answer of [lines[1], lines[3]]) {
      expect(JSON.parse(answer ?? '{}')).toMatchObject({ data: { associatedUserId: USER } });
    }
  }, 30_000);

  it('runs the openid-client example', async () => {
    const [example = ''] = blocks(section, 'js');
    // The example as a function body: openid-client is passed in for the import, over plain http
    // as the example says to for a local installation, and the documented redirect step is the
    // browser's sign-in and approval.
    const callback = { url: '' };
    const body = example
      .replace("import * as client from 'openid-client';", '')
      .replace("'your-client-id', 'your-client-secret')", `'${client.id}', '${client.secret}', undefined, { execute: [client.allowInsecureRequests] })`)
      .replace(/^\/\/ \.\.\.redirect the browser.*$/m, 'request.url = (await approve(authorizationUrl.href)).href;')
      .concat('\nreturn { system, refreshed };');
    expect(body).toContain('request.url = ');
    expect(body).toContain('allowInsecureRequests');
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<{ system: { associatedUserId: string }; refreshed: { access_token: string } }>;
    const { system, refreshed } = await new AsyncFunction('client', 'request', 'approve', body)(oidc, callback, approve);
    expect(system.associatedUserId).toBe(USER);
    expect(refreshed.access_token).toMatch(/\S{20,}/);
  }, 30_000);
});
