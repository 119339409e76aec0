// The bot's CLI commands as child processes: register-commands against the fake Discord, and the
// checks `switchboard bot` makes before connecting anywhere.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeDiscord, type FakeDiscord } from '../support/fake-discord.js';
import { COMMANDS } from '../../commands/index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-bot-'));

const cli = (env: Record<string, string>, ...args: string[]) => runCli({ DATA_DIR: dataDir, ...env }, ...args);

describe('bot commands of the CLI', () => {
  let fake: FakeDiscord;
  beforeAll(async () => {
    fake = await startFakeDiscord();
  });
  afterAll(async () => fake?.close());

  it('register-commands registers every command globally, or in DISCORD_GUILD_ID', async () => {
    const env = { DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase };
    const global = await cli(env, 'register-commands');
    expect(global.stderr).toBe('');
    expect(global.stdout).toContain(`registered ${COMMANDS.length} commands`);
    expect(global.stdout).toContain('(global)');
    expect(fake.commands().map((c) => c.name)).toContain('alter');
    const guild = await cli({ ...env, DISCORD_GUILD_ID: fake.guild.id }, 'register-commands');
    expect(guild.stdout).toContain(`(guild ${fake.guild.id})`);
    expect(fake.commands(fake.guild.id)).toHaveLength(COMMANDS.length);
  });

  it('register-commands without DISCORD_TOKEN exits 2', async () => {
    const result = await cli({ DISCORD_TOKEN: '' }, 'register-commands');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DISCORD_TOKEN');
  });

  it('bot refuses several shards over a SQLite link store, and a remote service without client credentials', async () => {
    const shards = await cli({ DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase }, 'bot', '--shards', '2');
    expect(shards.code).toBe(2);
    expect(shards.stderr).toContain('BOT_STORE_URL');
    const remote = await cli({ DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase, SWITCHBOARD_API_URL: 'http://127.0.0.1:9' }, 'bot');
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('BOT_CLIENT_ID');
    expect(remote.stderr + remote.stdout).not.toContain(fake.botToken);
  });
});
