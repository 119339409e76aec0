// What a server costs a bot process in memory, for the capacity model (README "Capacity"): a bot
// process as deployed (the tests' bundle, `cli.js bot`) made ready on a fake Discord that holds
// the bot's own test server alone, then another with `servers` more, each with 20 text channels
// (one role overwrite each) and 10 roles besides @everyone, sent as Discord sends them to a bot
// without the privileged members intent: the bot's own member only. Each process's resident memory
// is read from /proc once it has idled; the difference, divided by the servers, is what one costs.
// Members a bot meets as they speak, and messages, come on top (discord-caches.ts bounds messages).
//
// Alone: node --import tsx bench/bot-memory.ts [--quick]. bench/run.ts runs it in the group `capacity`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBotClient } from '../src/auth/clients.js';
import { openDatabase } from '../src/db/database.js';
import { startFakeDiscord } from '../test/support/fake-discord.js';
import { spawnBundle, startServiceProcess, stopChild, until, type Child } from './capacity.js';

export const CHANNELS_PER_SERVER = 20;
export const ROLES_PER_SERVER = 10;

export interface BotMemoryBench {
  servers: number;
  /** Resident memory (MB) of the bot process with its own test server only, and with `servers` more. */
  baseMb: number;
  withServersMb: number;
  /** (withServers − base) / servers, in KiB. */
  perServerKib: number;
}

/** VmRSS of a process, in bytes, from /proc. */
function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function benchBotMemory(options: { quick: boolean }): Promise<BotMemoryBench> {
  const servers = options.quick ? 100 : 2000;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-bot-memory-'));
  let service: Child | undefined;
  try {
    const databaseUrl = `sqlite:${join(dir, 'service.db')}`;
    const started = await startServiceProcess(join(dir, 'service'), databaseUrl);
    service = started.child;
    const { url } = started;
    const secret = randomBytes(32).toString('base64url');
    const database = openDatabase(databaseUrl);
    const clientId = await ensureBotClient(database.db, secret)
      .then((client) => client.id)
      .finally(() => database.close());

    /** One bot process, ready with the fake's server and `extra` more; its resident memory once idle. */
    const measure = async (extra: number, run: string): Promise<number> => {
      const fake = await startFakeDiscord();
      let bot: Child | undefined;
      try {
        for (let n = 0; n < extra; n++) fake.addGuild({ name: `server ${n + 1}`, shard: 0, count: 1, channels: CHANNELS_PER_SERVER, roles: ROLES_PER_SERVER });
        bot = spawnBundle('cli.js', ['bot'], {
          NODE_ENV: 'test',
          DATA_DIR: join(dir, run),
          DISCORD_TOKEN: fake.botToken,
          DISCORD_API_BASE: fake.apiBase,
          DISCORD_GUILD_ID: fake.guild.id,
          SWITCHBOARD_API_URL: url,
          BOT_CLIENT_ID: clientId,
          BOT_CLIENT_SECRET: secret,
          BOT_STORE_URL: `sqlite://${join(dir, `${run}-links.sqlite`)}`,
          BOT_STORE_KEY: randomBytes(32).toString('hex'),
          LOG_LEVEL: 'info',
        });
        const botProcess = bot;
        await until('the bot to be ready', () => botProcess.lines.some((line) => line.includes('bot is ready')), 180_000, botProcess);
        await fake.waitForReady(60_000);
        // Idle a while (start-up's garbage collected, timers settled), then sample.
        await new Promise((resolve) => setTimeout(resolve, options.quick ? 500 : 5000));
        const samples: number[] = [];
        for (let i = 0; i < (options.quick ? 1 : 5); i++) {
          samples.push(residentBytes(botProcess.child.pid ?? 0));
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
        return median(samples);
      } finally {
        await stopChild(bot);
        await fake.close();
      }
    };
    const base = await measure(0, 'bot-base');
    const withServers = await measure(servers, 'bot-servers');
    return { servers, baseMb: base / 1e6, withServersMb: withServers / 1e6, perServerKib: (withServers - base) / servers / 1024 };
  } finally {
    await stopChild(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchBotMemory({ quick: process.argv.includes('--quick') }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
