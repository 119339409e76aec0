// A bare discord.js client (no bot code besides the session handoff and this process's leases),
// run as a process of its own so that a test can kill it as a crash does
// (test/bot/processes/session-handoff.test.ts). Environment: API_BASE, BOT_TOKEN, STORE_URL,
// STORE_KEY (hex), LEASE_MS, CHECKPOINT_INTERVAL_MS, CHECKPOINT_LAG_MS. Prints `ready` once ready
// and `seen <id>` for each message the client is given.
import { Client, Events, GatewayIntentBits, type Message } from 'discord.js';
import { startCoordination } from '../../src/bot/processes/coordination.js';
import { createSessionHandoff } from '../../src/bot/processes/session-handoff.js';
import { openSharedStore } from '../../src/bot/processes/shared-store.js';
import { createStorageCrypto } from '../../src/security/crypto.js';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const log = { info: () => undefined, warn: () => undefined };
const store = await openSharedStore(setting('STORE_URL'));
const coordination = startCoordination(store, Number(setting('LEASE_MS')), log);
const handoff = createSessionHandoff({
  store,
  sealer: createStorageCrypto(Buffer.from(setting('STORE_KEY'), 'hex')),
  log,
  coordination,
  checkpointIntervalMs: Number(setting('CHECKPOINT_INTERVAL_MS')),
  checkpointLagMs: Number(setting('CHECKPOINT_LAG_MS')),
});
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  rest: { api: setting('API_BASE') },
  ws: { buildStrategy: (manager) => handoff.buildStrategy(manager) },
});
client.on(Events.MessageCreate, (message: Message) => console.log(`seen ${message.id}`));
client.once(Events.ClientReady, () => console.log('ready'));
await client.login(setting('BOT_TOKEN'));
