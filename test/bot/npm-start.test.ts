// `npm start` with DISCORD_TOKEN set runs the service and the bot in one process: the bot
// registers its commands, connects to the gateway, answers, and both stop cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, user, type FakeDiscord } from '../support/fake-discord.js';
import { freePort } from '../support/server.js';
import { COMMANDS } from '../../commands/index.js';
import { testBundle } from '../support/test-bundle.js';

describe('npm start with a Discord token', () => {
  let fake: FakeDiscord;
  beforeAll(async () => {
    fake = await startFakeDiscord();
  });
  afterAll(async () => fake?.close());

  it('starts the bot beside the service, answers, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-start-bot-'));
    const child = spawn(process.execPath, [join(testBundle(), 'main.js')], {
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', NODE_ENV: 'development', DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase, DISCORD_GUILD_ID: fake.guild.id },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await fake.waitForReady(20_000);
      expect(fake.commands(fake.guild.id).length).toBe(COMMANDS.length);
      const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'help', user: user('400000000000000099', 'erin') }));
      const response = await handle.waitForResponse((r) => r.kind === 'callback', 10_000);
      expect((response.body.embeds as Array<{ title: string }>)[0]?.title).toBe('switchboard');
      // The bot registered its own first-party OAuth client with the service.
      const discovery = await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
    expect(output).not.toContain(fake.botToken);
  }, 40_000);
});
