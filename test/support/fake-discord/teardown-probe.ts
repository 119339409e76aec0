// For fake-discord.test.ts's teardown test, run as a process of its own: a real discord.js client
// connects to a fake Discord, both are closed, and the process must then exit by itself (a socket,
// heartbeat or timer that survived would keep it alive). Prints the monotonic time it finished at.
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { startFakeDiscord } from '../fake-discord.js';

const fake = await startFakeDiscord();
const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiBase } });
const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
await client.login(fake.botToken);
await ready;
await client.destroy();
await fake.close();
process.stdout.write(String(process.hrtime.bigint()));
