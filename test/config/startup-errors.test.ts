// Start-up failures that are not configuration format errors, as an operator meets them: the
// service run as `npm start` runs it (a child process), which must stop with exit code 1 and one
// line on stderr naming the variable and what to do, never a stack trace.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFailure, listenFailure, redisFailure, StartupError, withConnectTimeout } from '../../src/config/startup-errors.js';
import { startFakeDiscord, type FakeDiscord } from '../support/fake-discord.js';
import { freePort } from '../support/server.js';
import { testBundle } from '../support/test-bundle.js';

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** Runs the service (the tests' bundle of src/main.ts) with `env` over a clean environment; resolves when it exits (or after 30 s). */
function start(env: Record<string, string>): Promise<Exit> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|DATA_DIR|REDIS_URL|PORT|HOST|AUTH_DEV_LOGIN|SIGNING_KEYS|COOKIE_SECRETS|DATA_ENCRYPTION_KEY|(DISCORD|BOT|SWITCHBOARD|LOG)_.*)$/.test(name)),
  );
  const child = spawn(process.execPath, [join(testBundle(), 'main.js')], {
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The operator's line: stderr's last line, once the runtime's own warnings are set aside. */
function reported(exit: Exit): string {
  const lines = exit.stderr.split('\n').filter((line) => line.trim() !== '' && !/WARNING: Unsupported runtime/.test(line));
  return lines.join('\n');
}

function expectOneLine(exit: Exit, variable: string, ...phrases: RegExp[]): void {
  expect(exit.code, exit.stderr).toBe(1);
  const line = reported(exit);
  expect(line.split('\n'), line).toHaveLength(1);
  expect(line).toMatch(new RegExp(`^Cannot start: ${variable}: `));
  for (const phrase of phrases) expect(line).toMatch(phrase);
  expect(exit.stderr).not.toMatch(/\n\s+at /);
}

describe.concurrent('start-up failures', () => {
  let scratch: string;
  let fake: FakeDiscord;
  let occupied: Server;
  let occupiedPort: number;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'switchboard-startup-'));
    fake = await startFakeDiscord();
    occupiedPort = await freePort();
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(occupiedPort, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => occupied?.close(resolve));
    await fake?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const dir = (name: string) => {
    const path = join(scratch, name);
    mkdirSync(path, { recursive: true });
    return path;
  };

  it('PORT already in use', async () => {
    const exit = await start({ PORT: String(occupiedPort), DATA_DIR: dir('port') });
    expectOneLine(exit, 'PORT', new RegExp(`127\\.0\\.0\\.1:${occupiedPort} is already in use`), /set PORT to a free port/);
  });

  it('HOST that is not an address of this machine', async () => {
    const exit = await start({ PORT: String(await freePort()), HOST: '192.0.2.1', DATA_DIR: dir('host') });
    expectOneLine(exit, 'HOST', /"192\.0\.2\.1" is not an address of this machine/, /set HOST to 127\.0\.0\.1/);
  });

  it('DATA_DIR is a file', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'not a folder');
    const exit = await start({ DATA_DIR: file });
    expectOneLine(exit, 'DATA_DIR', /is a file, not a folder/);
  });

  it('DATA_DIR cannot be created', async () => {
    const file = join(scratch, 'another-file');
    writeFileSync(file, '');
    const exit = await start({ DATA_DIR: join(file, 'data') });
    expectOneLine(exit, 'DATA_DIR', /does not exist and cannot be created/, /create it or set DATA_DIR/);
  });

  it('DATA_DIR not writable', async () => {
    // root writes through file modes, so as root the test uses a folder no one may write in.
    let folder = '/sys';
    if (process.getuid?.() !== 0) {
      folder = dir('read-only');
      chmodSync(folder, 0o555);
    }
    const exit = await start({ DATA_DIR: folder });
    expectOneLine(exit, 'DATA_DIR', /is not writable by this user/, /write access/);
  });

  it('SQLite file that is not a database', async () => {
    const data = dir('not-a-db');
    writeFileSync(join(data, 'switchboard.db'), 'this is not an SQLite file, it is plain text long enough to have a header');
    const exit = await start({ DATA_DIR: data });
    expectOneLine(exit, 'DATABASE_URL', /is not an SQLite database/);
  });

  it('SQLite path that SQLite cannot use (/proc/self/mem)', async () => {
    const exit = await start({ DATA_DIR: dir('proc-mem'), DATABASE_URL: 'sqlite:/proc/self/mem' });
    expectOneLine(exit, 'DATABASE_URL', /SQLite cannot use "\/proc\/self\/mem" \(disk I\/O error\)/);
  });

  it('TRUST_PROXY=0.0.0.0/0, which trusts everyone', async () => {
    const exit = await start({ DATA_DIR: dir('trust-everyone'), TRUST_PROXY: '0.0.0.0/0' });
    expect(exit.code, exit.stderr).toBe(1);
    expect(reported(exit)).toMatch(/TRUST_PROXY: "0\.0\.0\.0\/0" trusts every IPv4 address/);
    expect(exit.stderr).not.toMatch(/\n\s+at /);
  });

  it('PostgreSQL unreachable', async () => {
    const exit = await start({ DATA_DIR: dir('pg-refused'), DATABASE_URL: 'postgres://switchboard:hunter2-secret@127.0.0.1:1/switchboard' });
    expectOneLine(exit, 'DATABASE_URL', /nothing accepts connections at 127\.0\.0\.1:1/, /start PostgreSQL/);
    expect(exit.stderr).not.toContain('hunter2-secret');
  });

  it('PostgreSQL host unknown', async () => {
    const exit = await start({ DATA_DIR: dir('pg-host'), DATABASE_URL: 'postgres://postgres@no-such-host.invalid:5432/switchboard' });
    expectOneLine(exit, 'DATABASE_URL', /the host "no-such-host\.invalid" is not known/);
  });

  describe.runIf(process.env.TEST_DATABASE_URL)('with the test PostgreSQL', () => {
    const server = () => new URL(process.env.TEST_DATABASE_URL ?? 'postgres://x');

    it('wrong password', async () => {
      const url = server();
      url.username = 'switchboard_no_such_user';
      url.password = 'wrong-password-value';
      const exit = await start({ DATA_DIR: dir('pg-auth'), DATABASE_URL: url.toString() });
      expectOneLine(exit, 'DATABASE_URL', /refused the user "switchboard_no_such_user" \(wrong user name or password\)/);
      expect(exit.stderr).not.toContain('wrong-password-value');
    });

    it('database that does not exist', async () => {
      const url = server();
      url.pathname = '/switchboard_missing_database';
      const exit = await start({ DATA_DIR: dir('pg-db'), DATABASE_URL: url.toString() });
      expectOneLine(exit, 'DATABASE_URL', /the database "switchboard_missing_database" does not exist/, /createdb switchboard_missing_database/);
    });

    it('search_path naming no schema that exists', async () => {
      const url = server();
      url.searchParams.set('options', '-c search_path=switchboard_missing_schema');
      const exit = await start({ DATA_DIR: dir('pg-schema'), DATABASE_URL: url.toString() });
      expectOneLine(exit, 'DATABASE_URL', /its search_path .* names no schema that exists in "test"/, /create the schema/);
    });
  });

  it('REDIS_URL unreachable', async () => {
    const exit = await start({ DATA_DIR: dir('redis'), REDIS_URL: 'redis://127.0.0.1:1' });
    expectOneLine(exit, 'REDIS_URL', /nothing accepts connections at 127\.0\.0\.1:1/, /leave REDIS_URL empty/);
  });

  it("the bot's BOT_STORE_URL (Redis) unreachable: the process stops too", async () => {
    const exit = await start({
      PORT: String(await freePort()),
      DATA_DIR: dir('bot-store'),
      DISCORD_TOKEN: fake.botToken,
      DISCORD_API_BASE: fake.apiBase,
      DISCORD_GUILD_ID: fake.guild.id,
      BOT_STORE_URL: 'redis://127.0.0.1:1',
    });
    expectOneLine(exit, 'BOT_STORE_URL', /Redis at 127\.0\.0\.1:1/, /fix BOT_STORE_URL/);
  }, 20_000);
});

// The translations the child processes above cannot reach on this machine (root may listen on any
// port; PostgreSQL grants and Redis passwords are not set up here), table-driven.
describe('start-up failure translations', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

  it.each([
    [coded('EACCES'), 'PORT', /may not listen on 0\.0\.0\.0:80 .*set PORT to 1024 or above/],
    [coded('EADDRINUSE'), 'PORT', /0\.0\.0\.0:80 is already in use/],
    [coded('ENOTFOUND'), 'HOST', /"0\.0\.0\.0" is not an address of this machine/],
  ])('listen %s names %s', (error, variable, message) => {
    const translated = listenFailure(error, '0.0.0.0', 80);
    expect(translated).toBeInstanceOf(StartupError);
    expect((translated as StartupError).variable).toBe(variable);
    expect(translated.message).toMatch(message);
  });

  it.each([
    [coded('42501'), /the user "app" may not create tables in "switchboard"/],
    [coded('28000'), /refused the user "app"/],
    [coded('ETIMEDOUT'), /PostgreSQL at db\.internal:6543 did not answer/],
    [coded('CONNECT_TIMEOUT', 'no answer within 5 s'), /did not answer \(no answer within 5 s\)/],
    [new AggregateError([coded('ECONNREFUSED')], ''), /nothing accepts connections at db\.internal:6543/],
  ])('PostgreSQL %s', (error, message) => {
    const translated = databaseFailure(error, 'postgres://app:pa55word@db.internal:6543/switchboard');
    expect(translated.message).toMatch(/^Cannot start: DATABASE_URL: /);
    expect(translated.message).toMatch(message);
    expect(translated.message).not.toContain('pa55word');
  });

  it('SQLite path that is not a regular file', () => {
    const error = databaseFailure(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }), 'sqlite:/dev/null');
    expect(error).toBeInstanceOf(StartupError);
    expect(error.message).toMatch(/^Cannot start: DATABASE_URL: "\/dev\/null" is not a regular file/);
  });

  it.each(['SQLITE_READONLY', 'SQLITE_CANTOPEN', 'EACCES'])('SQLite %s', (code) => {
    expect(databaseFailure(coded(code), 'sqlite:/srv/db.sqlite').message).toMatch(/^Cannot start: DATABASE_URL: cannot open "\/srv\/db\.sqlite" for writing/);
  });

  it('Redis refusing the password, naming the variable it was given', () => {
    const translated = redisFailure(new Error('WRONGPASS invalid username-password pair'), 'BOT_STORE_URL', 'redis://:secret@cache:6380', "the bot's linked accounts");
    expect(translated.message).toBe("Cannot start: BOT_STORE_URL: Redis at cache:6380 refused the credentials; fix the user name or password in BOT_STORE_URL (the bot's linked accounts)");
  });

  it('keeps what it does not know as it is (a bug keeps its stack)', () => {
    const bug = new TypeError('x is not a function');
    expect(listenFailure(bug, '127.0.0.1', 3000)).toBe(bug);
    expect(databaseFailure(bug, 'postgres://db/x')).toBe(bug);
  });

  it('bounds a wait that would hang', async () => {
    await expect(withConnectTimeout(new Promise(() => undefined), 20)).rejects.toMatchObject({ code: 'CONNECT_TIMEOUT' });
    await expect(withConnectTimeout(Promise.resolve(7), 20)).resolves.toBe(7);
  });
});
