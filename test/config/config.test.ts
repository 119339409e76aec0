// Configuration: defaults, and a clear message naming the variable for each kind of bad value.
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NO_SIGN_IN_METHOD, signInMethods } from '../../src/auth/sign-in.js';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config/config.js';
import { prettyLogs } from '../../src/http/logging.js';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('runs on embedded defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.databaseUrl).toBe('sqlite:./data/switchboard.db');
    expect(config.devLogin).toBe(false);
    expect(config.discord.oauth).toBeUndefined();
    expect(config.ttl).toEqual({ accessToken: 3600, refreshToken: 2592000, authorizationCode: 60, deviceCode: 600, loginLink: 300, session: 86400 });
  });

  it('names the installation "switchboard" unless INSTANCE_NAME says otherwise (trimmed, at most 60 characters)', () => {
    expect(loadConfig({}).instanceName).toBe('switchboard');
    expect(loadConfig({ INSTANCE_NAME: '  Plural Place ' }).instanceName).toBe('Plural Place');
    expect(problems({ INSTANCE_NAME: 'x'.repeat(61) })).toMatch(/INSTANCE_NAME: expected at most 60 characters/);
    expect(problems({ INSTANCE_NAME: '   ' })).toMatch(/INSTANCE_NAME: expected a name/);
  });

  it('serves the dashboard unless DASHBOARD_ENABLED turns it off', () => {
    expect(loadConfig({}).dashboard.enabled).toBe(true);
    expect(loadConfig({ DASHBOARD_ENABLED: 'false' }).dashboard.enabled).toBe(false);
    expect(loadConfig({ DASHBOARD_ENABLED: '0' }).dashboard.enabled).toBe(false);
    expect(loadConfig({ DASHBOARD_ENABLED: 'true' }).dashboard.enabled).toBe(true);
    expect(problems({ DASHBOARD_ENABLED: 'off' })).toMatch(/DASHBOARD_ENABLED: expected true or false/);
  });

  it('treats empty values as unset, as in a copied .env.example', () => {
    expect(loadConfig({ PUBLIC_URL: '', DATABASE_URL: '' }).databaseUrl).toBe('sqlite:./data/switchboard.db');
  });

  it.each([
    [{ PORT: 'abc' }, /PORT: .*port.*\(got "abc"\)/],
    [{ PORT: '70000' }, /PORT: expected a port between 0 and 65535/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: expected one of/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT: expected one of auto, json, pretty/],
    [{ AUDIT_RETENTION_DAYS: '-1' }, /AUDIT_RETENTION_DAYS: expected 0 \(keep forever\) or a positive number of days/],
    [{ PUBLIC_URL: 'example.com' }, /PUBLIC_URL: expected an absolute URL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: expected sqlite:<path> or postgres:/],
    [{ AUTH_DEV_LOGIN: 'maybe' }, /AUTH_DEV_LOGIN: expected true or false/],
    [{ ACCESS_TOKEN_TTL: '-5' }, /ACCESS_TOKEN_TTL: expected a positive number of seconds/],
    [{ DISCORD_CLIENT_ID: '123456789012345678' }, /DISCORD_CLIENT_SECRET: DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET must be set together/],
    [{ AUTH_DEV_LOGIN: 'true', NODE_ENV: 'production' }, /AUTH_DEV_LOGIN: the development login must not be enabled when NODE_ENV=production/],
  ])('refuses %o', (env, message) => {
    expect(problems(env)).toMatch(message);
  });

  it('lists every bad variable at once and never echoes secrets', () => {
    const message = problems({ PORT: 'x', LOG_LEVEL: 'y', DISCORD_CLIENT_SECRET: 'super-secret-value' });
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/LOG_LEVEL/);
    expect(message).not.toContain('super-secret-value');
  });
});

describe('logs and the audit log', () => {
  it('picks the log format by the terminal unless LOG_FORMAT says', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(prettyLogs('auto', true)).toBe(true);
    expect(prettyLogs('auto', false)).toBe(false);
    expect(prettyLogs('json', true)).toBe(false);
    expect(prettyLogs('pretty', false)).toBe(true);
  });

  it('keeps audit entries 90 days by default', () => {
    expect(loadConfig({}).auditRetentionDays).toBe(90);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '0' }).auditRetentionDays).toBe(0);
  });
});

describe('sign-in methods', () => {
  const base = loadConfig({});
  it.each([
    [{}, false, []],
    [{ DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 's' }, false, ['Sign in with Discord']],
    [{ DISCORD_TOKEN: 'a-bot-token-value' }, false, ['login links from the bot (/link)']],
    [{}, true, ['login links from the bot (/link)']],
    [{ AUTH_DEV_LOGIN: 'true' }, false, ['development login (any Discord user id, no password)']],
  ])('%o (first-party client: %s) -> %o', (env, firstParty, names) => {
    expect(signInMethods(loadConfig(env), firstParty).map((method) => method.name)).toEqual(names);
  });
  it('names what to set when none is usable', () => {
    expect(signInMethods(base, false)).toEqual([]);
    expect(NO_SIGN_IN_METHOD).toMatch(/DISCORD_CLIENT_ID.*DISCORD_TOKEN.*AUTH_DEV_LOGIN/);
  });
});

describe('message retention', () => {
  it('keeps records forever by default, and takes a number of days', () => {
    expect(loadConfig({}).messageRetentionDays).toBe(0);
    expect(loadConfig({ MESSAGE_RETENTION_DAYS: '90' }).messageRetentionDays).toBe(90);
    expect(problems({ MESSAGE_RETENTION_DAYS: '-1' })).toContain('MESSAGE_RETENTION_DAYS');
    expect(problems({ MESSAGE_RETENTION_DAYS: 'a week' })).toContain('MESSAGE_RETENTION_DAYS');
  });
});

describe('request timeouts', () => {
  it('gives a request 60 s and its headers 20 s by default; the headers never more than the request', () => {
    expect(loadConfig({}).requestTimeouts).toEqual({ requestMs: 60_000, headersMs: 20_000 });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '9000' }).requestTimeouts).toEqual({ requestMs: 5000, headersMs: 5000 });
    expect(problems({ REQUEST_TIMEOUT_MS: '0' })).toContain('REQUEST_TIMEOUT_MS');
    expect(problems({ HEADERS_TIMEOUT_MS: 'soon' })).toContain('HEADERS_TIMEOUT_MS');
  });
});

describe('TRUST_PROXY', () => {
  it('trusts no proxy by default, nor with false or 0', () => {
    for (const env of [{}, { TRUST_PROXY: 'false' }, { TRUST_PROXY: '0' }, { TRUST_PROXY: '' }]) {
      const config = loadConfig(env);
      expect(config.trustedProxies).toBeUndefined();
      expect(config.trustProxy).toBe(false);
    }
  });

  it('takes a number of proxy hops', () => {
    expect(loadConfig({ TRUST_PROXY: '1' })).toMatchObject({ trustProxy: true, trustedProxies: { hops: 1 } });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustedProxies).toEqual({ hops: 2 });
  });

  it('takes comma-separated proxy addresses, CIDRs and range names', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,uniquelocal' })).toMatchObject({
      trustProxy: true,
      trustedProxies: { addresses: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'uniquelocal'] },
    });
  });

  it('refuses true, which would let clients choose their own address, and says what to set instead', () => {
    for (const value of ['true', 'yes']) {
      const message = problems({ TRUST_PROXY: value });
      expect(message).toMatch(/TRUST_PROXY: true is not accepted/);
      expect(message).toContain('the number of proxies');
      expect(message).toContain('127.0.0.1,10.0.0.0/8');
    }
  });

  it.each(['0.0.0.0/0', '::/0', '0.0.0.0/1,128.0.0.0/1', '::ffff:0:0/96', '::ffff:0.0.0.0/97, ::ffff:128.0.0.0/97', '0.0.0.0/1,::ffff:128.0.0.0/97', '::/1,8000::/1', '10.0.0.0/8,0.0.0.0/2,64.0.0.0/2,128.0.0.0/1'])(
    'refuses %s, which trusts every address as true would',
    (value) => {
      expect(problems({ TRUST_PROXY: value })).toMatch(/TRUST_PROXY: .*trusts every (IPv4|IPv6) address/);
    },
  );

  it('takes lists that leave some addresses untrusted', () => {
    for (const value of ['0.0.0.0/1', '::/1', '0.0.0.0/1,128.0.0.0/2', '::ffff:0.0.0.0/97', '0.0.0.0/1,::/1,8000::/2']) {
      expect(loadConfig({ TRUST_PROXY: value }).trustedProxies).toEqual({ addresses: value.split(',') });
    }
  });

  it.each(['maybe', '10.0.0.0/33', '::1/129', '127.0.0.1,', '10.0.0.0/8/8', 'proxy.example.com', '11', '-1', '1.5'])('refuses %s, naming TRUST_PROXY', (value) => {
    expect(problems({ TRUST_PROXY: value })).toMatch(/TRUST_PROXY: expected/);
  });
});

describe('.env.example', () => {
  const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

  it('documents every variable the configuration reads, once, and no other', () => {
    // A commented-out assignment (`# NAME=value`) documents a variable whose default is computed.
    const documented = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    expect(documented.toSorted()).toEqual(CONFIG_VARIABLES.toSorted());
  });

  it('shows the defaults: copied to .env unedited, it configures what no .env does', () => {
    expect(loadConfig(parseEnv(example))).toEqual(loadConfig({}));
  });
});
