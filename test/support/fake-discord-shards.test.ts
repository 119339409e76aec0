// The fake Discord shards as Discord does, driven by bare discord.js clients (no bot code of ours):
// two clients hold one shard each of two; a guild's events reach only its shard, interactions
// without a guild (direct messages) only shard 0, and /gateway/bot tells the shard count and
// max_concurrency the clients identify with.
import { Client, Events, GatewayIntentBits, type Interaction, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, user, type FakeDiscord } from './fake-discord.js';

const ALICE = user('400000000000000004', 'alice');
// (id >> 22) % 2 === 1: the fake's own guild lives on shard 1 of 2.
const GUILD_ON_SHARD_1 = ((47_683_715_821n << 22n) + 5n).toString();

let fake: FakeDiscord;
const clients: Client[] = [];
const seen: Array<{ shard: number; kind: 'message' | 'interaction'; guildId: string | null }> = [];
let otherGuild: string;
let sizedGuild: string;

/** Polls: what the clients saw changes outside the fake, which waitFor watches. */
async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the clients');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function shardClient(shard: number): Promise<Client> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
    rest: { api: fake.apiBase },
    shards: [shard],
    shardCount: 2,
  });
  client.on(Events.MessageCreate, (message: Message) => seen.push({ shard, kind: 'message', guildId: message.guildId }));
  client.on(Events.InteractionCreate, (interaction: Interaction) => seen.push({ shard, kind: 'interaction', guildId: interaction.guildId }));
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(fake.botToken);
  await ready;
  clients.push(client);
  return client;
}

beforeAll(async () => {
  fake = await startFakeDiscord({ guildId: GUILD_ON_SHARD_1, shards: 2, maxConcurrency: 2 });
  otherGuild = fake.addGuild({ name: 'Other', shard: 0, count: 2 });
  sizedGuild = fake.addGuild({ name: 'Sized', shard: 0, count: 2, channels: 3, roles: 2 });
  await Promise.all([shardClient(0), shardClient(1)]);
  await fake.waitForReady();
});
afterAll(async () => {
  for (const client of clients) await client.destroy();
  await fake?.close();
});

describe('fake Discord sharding', () => {
  it('answers /gateway/bot with its shard count and max_concurrency, and takes identifies with shard', async () => {
    const answer = (await (await fetch(`${fake.apiBase}/v10/gateway/bot`, { headers: { authorization: `Bot ${fake.botToken}` } })).json()) as { shards: number; session_start_limit: { max_concurrency: number } };
    expect(answer.shards).toBe(2);
    expect(answer.session_start_limit.max_concurrency).toBe(2);
    expect(fake.identifies.map((identify) => identify.shard).sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(fake.identifyViolations).toEqual([]);
  });

  it('describes each guild only to its shard', () => {
    expect(fake.shardOf(fake.guild.id)).toBe(1);
    expect(fake.shardOf(otherGuild)).toBe(0);
    const [zero, one] = clients as [Client, Client];
    expect([...zero.guilds.cache.keys()].sort()).toEqual([otherGuild, sizedGuild].sort());
    expect([...one.guilds.cache.keys()]).toEqual([fake.guild.id]);
  });

  it('describes a sized guild with its text channels, roles and overwrites, as discord.js caches them', () => {
    const [zero] = clients as [Client];
    const bare = zero.guilds.cache.get(otherGuild);
    const sized = zero.guilds.cache.get(sizedGuild);
    expect(bare?.channels.cache.size).toBe(0);
    expect(bare?.roles.cache.size).toBe(1);
    expect(sized?.channels.cache.map((channel) => channel.name).sort()).toEqual(['channel-1', 'channel-2', 'channel-3']);
    expect(sized?.roles.cache.map((role) => role.name).sort()).toEqual(['@everyone', 'role 1', 'role 2']);
    for (const channel of sized?.channels.cache.values() ?? []) {
      expect(channel.guildId).toBe(sizedGuild);
      if (!('permissionOverwrites' in channel)) throw new Error('a text channel has overwrites');
      const overwrites = [...channel.permissionOverwrites.cache.values()];
      expect(overwrites).toHaveLength(1);
      expect(sized?.roles.cache.has(overwrites[0]?.id ?? '')).toBe(true);
    }
    expect(sized?.members.me?.id).toBe(zero.user?.id);
  });

  it('sends a guild message only to the shard of its guild', async () => {
    seen.length = 0;
    const message = fake.sendUserMessage({ author: ALICE, content: 'hello' });
    await until(() => seen.length > 0);
    // A second event on the same sockets, so anything wrongly sent to shard 0 has arrived too.
    fake.sendUserMessage({ author: ALICE, content: 'again' });
    await until(() => seen.length > 1);
    expect(seen).toEqual([
      { shard: 1, kind: 'message', guildId: fake.guild.id },
      { shard: 1, kind: 'message', guildId: fake.guild.id },
    ]);
    expect(message.guild_id).toBe(fake.guild.id);
  });

  it("sends an interaction to its guild's shard, and one without a guild (a direct message) to shard 0", async () => {
    seen.length = 0;
    const inOther = { ...fake.slashCommand({ name: 'ping', user: ALICE }), guild_id: otherGuild, guild: { id: otherGuild, locale: 'en-US', features: [] } };
    fake.dispatchInteraction(inOther);
    const inGuild = fake.slashCommand({ name: 'ping', user: ALICE });
    fake.dispatchInteraction(inGuild);
    const direct: Record<string, unknown> = { ...fake.slashCommand({ name: 'ping', user: ALICE }), context: 1 };
    direct.user = (direct.member as { user: unknown }).user;
    delete direct.guild_id;
    delete direct.guild;
    delete direct.member;
    fake.dispatchInteraction(direct as typeof inGuild);
    await until(() => seen.length >= 3);
    expect(seen.sort((a, b) => (a.guildId ?? '').localeCompare(b.guildId ?? ''))).toEqual(
      [
        { shard: 0, kind: 'interaction', guildId: null },
        { shard: 0, kind: 'interaction', guildId: otherGuild },
        { shard: 1, kind: 'interaction', guildId: fake.guild.id },
      ].sort((a, b) => (a.guildId ?? '').localeCompare(b.guildId ?? '')),
    );
  });

  it('resumes each shard on its own session', async () => {
    const identifies = fake.identifies.length;
    fake.disconnectGateway(4000, otherGuild);
    await fake.waitForResume();
    seen.length = 0;
    fake.sendUserMessage({ author: ALICE, content: 'after resume' });
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ shard: 1, kind: 'message', guildId: fake.guild.id }]);
    expect(fake.identifies.length).toBe(identifies);
  });
});
