// Configuration: defaults, and a clear message naming the variable for each kind of bad value.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

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

  it('treats empty values as unset, as in a copied .env.example', () => {
    expect(loadConfig({ PUBLIC_URL: '', DATABASE_URL: '' }).databaseUrl).toBe('sqlite:./data/switchboard.db');
  });

  it.each([
    [{ PORT: 'abc' }, /PORT: .*port.*\(got "abc"\)/],
    [{ PORT: '70000' }, /PORT: expected a port between 0 and 65535/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: expected one of/],
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

describe('message retention', () => {
  it('keeps records forever by default, and takes a number of days', () => {
    expect(loadConfig({}).messageRetentionDays).toBe(0);
    expect(loadConfig({ MESSAGE_RETENTION_DAYS: '90' }).messageRetentionDays).toBe(90);
    expect(problems({ MESSAGE_RETENTION_DAYS: '-1' })).toContain('MESSAGE_RETENTION_DAYS');
    expect(problems({ MESSAGE_RETENTION_DAYS: 'a week' })).toContain('MESSAGE_RETENTION_DAYS');
  });
});
