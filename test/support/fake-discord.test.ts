// Self-test of the fake Discord: a bare discord.js Client (no bot code of ours) must log in, take
// interactions and have its answers recorded, so bot tests can trust the harness.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { REST } from '@discordjs/rest';
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  EmbedBuilder,
  Events,
  GatewayIntentBits,
  MessageFlags,
  Routes,
  SlashCommandBuilder,
  type Interaction,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimited, resolvedUsers, startFakeDiscord, user, type FakeDiscord } from './fake-discord.js';

const ALICE = user('400000000000000004', 'alice');
const BOB = user('500000000000000005', 'bob');

async function readyClient(fake: FakeDiscord): Promise<Client> {
  const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiBase } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(fake.botToken);
  await ready;
  return client;
}

describe('fake Discord driving discord.js', () => {
  let fake: FakeDiscord;
  let client: Client;
  let readyMs = 0;

  /** Runs `handle` on the next interaction discord.js emits; errors fail the awaiting test. */
  function onNextInteraction<T>(handle: (interaction: Interaction) => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      client.once(Events.InteractionCreate, (interaction) => {
        handle(interaction).then(resolve, reject);
      });
    });
  }

  beforeAll(async () => {
    fake = await startFakeDiscord();
    const started = performance.now();
    client = await readyClient(fake);
    await fake.waitForReady();
    readyMs = performance.now() - started;
  });
  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it('logs in and becomes ready quickly, in the fake guild', () => {
    expect(readyMs).toBeLessThan(1000);
    expect(client.user?.id).toBe(fake.applicationId);
    expect(client.user?.bot).toBe(true);
    expect(client.application?.id).toBe(fake.applicationId);
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.name).toBe(fake.guild.name);
    expect(guild?.available).toBe(true);
    expect(guild?.channels.cache.get(fake.channelId)?.isTextBased()).toBe(true);
    expect(guild?.members.me?.id).toBe(fake.applicationId);
    expect(fake.identifies[0]).toMatchObject({ token: fake.botToken, intents: GatewayIntentBits.Guilds });
    expect(fake.requests.some((r) => r.path === '/api/v10/gateway/bot' && r.headers.authorization === `Bot ${fake.botToken}`)).toBe(true);
  });

  it('registers global and guild commands through @discordjs/rest and returns them with ids', async () => {
    const rest = new REST({ api: fake.apiBase }).setToken(fake.botToken);
    const alter = new SlashCommandBuilder()
      .setName('alter')
      .setDescription('Alters')
      .addSubcommand((sub) => sub.setName('show').setDescription('Show one').addStringOption((o) => o.setName('name').setDescription('Name').setRequired(true)));
    const global = (await rest.put(Routes.applicationCommands(fake.applicationId), { body: [alter.toJSON()] })) as { id: string; name: string }[];
    expect(global).toHaveLength(1);
    expect(global[0]?.name).toBe('alter');
    expect(global[0]?.id).toMatch(/^\d{17,20}$/);
    const again = (await rest.put(Routes.applicationCommands(fake.applicationId), { body: [alter.toJSON()] })) as { id: string }[];
    expect(again[0]?.id).toBe(global[0]?.id);

    const ping = new SlashCommandBuilder().setName('ping').setDescription('Ping');
    const guildCommands = (await rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guild.id), { body: [ping.toJSON()] })) as { id: string; guild_id: string }[];
    expect(guildCommands[0]?.guild_id).toBe(fake.guild.id);
    expect(fake.commands(fake.guild.id).map((c) => c.name)).toEqual(['ping']);
    expect(fake.commands().map((c) => c.name)).toEqual(['alter']);

    const put = fake.requests.filter((r) => r.method === 'PUT' && r.path === `/api/v10/applications/${fake.applicationId}/commands`);
    expect(put).toHaveLength(2);
    expect(JSON.parse(put[0]?.body ?? '[]')[0].name).toBe('alter');
  });

  it('refuses a wrong bot token with 401', async () => {
    const rest = new REST({ api: fake.apiBase }).setToken('not-the-token');
    await expect(rest.get(Routes.gatewayBot())).rejects.toMatchObject({ status: 401 });
  });

  it('delivers a slash command with options and records an ephemeral reply', async () => {
    const payload = fake.slashCommand({
      name: 'alter',
      user: ALICE,
      subcommand: 'show',
      options: [
        { type: 3, name: 'name', value: 'Ash' },
        { type: 6, name: 'owner', value: BOB.id },
        { type: 4, name: 'count', value: 3 },
      ],
      resolved: resolvedUsers([BOB]),
    });
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error(`unexpected ${interaction.type}`);
      await interaction.reply({ content: 'Ash is fronting', flags: MessageFlags.Ephemeral });
      return {
        name: interaction.commandName,
        sub: interaction.options.getSubcommand(),
        alter: interaction.options.getString('name'),
        owner: interaction.options.getUser('owner')?.username,
        count: interaction.options.getInteger('count'),
        user: interaction.user.username,
        guild: interaction.guildId,
        member: interaction.inCachedGuild() ? interaction.member.id : undefined,
      };
    });
    const handle = fake.dispatchInteraction(payload);
    expect(await seen).toEqual({ name: 'alter', sub: 'show', alter: 'Ash', owner: 'bob', count: 3, user: 'alice', guild: fake.guild.id, member: ALICE.id });
    const reply = await handle.waitForResponse();
    expect(reply).toMatchObject({ kind: 'callback', callbackType: 4, body: { content: 'Ash is fronting', flags: 64 } });
    expect(reply.receivedAt).toBeGreaterThan(handle.sentAt);
    expect(handle.latestMessage()).toMatchObject({ content: 'Ash is fronting', flags: 64 });
  });

  it('records deferReply, editReply with embeds and followUp in order', async () => {
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.deferReply();
      const edited = await interaction.editReply({ embeds: [new EmbedBuilder().setTitle('Fronters').setDescription('Ash')] });
      const followUp = await interaction.followUp({ content: 'and one more thing', flags: MessageFlags.Ephemeral });
      return { editedId: edited.id, editedTitle: edited.embeds[0]?.title, followUpId: followUp.id, followUpContent: followUp.content, followUpChannel: followUp.channelId };
    });
    const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'ping', user: ALICE }));
    const result = await seen;
    expect(handle.responses.map((r) => [r.kind, r.callbackType])).toEqual([
      ['callback', 5],
      ['edit', undefined],
      ['followup', undefined],
    ]);
    expect(handle.responses[1]?.body.embeds).toEqual([{ title: 'Fronters', description: 'Ash' }]);
    expect(result.editedTitle).toBe('Fronters');
    expect(result.editedId).toBe(handle.latestMessage()?.id);
    expect(result.followUpContent).toBe('and one more thing');
    expect(result.followUpChannel).toBe(fake.channelId);
    expect(handle.responses[2]?.messageId).toBe(result.followUpId);
    const original = handle.latestMessage();
    expect(original?.embeds).toEqual([{ title: 'Fronters', description: 'Ash' }]);
    expect((original?.flags ?? 0) & MessageFlags.Loading).toBe(0);
  });

  it('parses payload_json and files when discord.js sends multipart', async () => {
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      const edited = await interaction.editReply({ content: 'export attached', files: [new AttachmentBuilder(Buffer.from('{"alters":[]}'), { name: 'export.json' })] });
      return edited.attachments.first()?.name;
    });
    const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'export', user: ALICE }));
    expect(await seen).toBe('export.json');
    const edit = await handle.waitForResponse((r) => r.kind === 'edit');
    expect(edit.body.content).toBe('export attached');
    expect(edit.files.map((f) => [f.filename, f.data.toString()])).toEqual([['export.json', '{"alters":[]}']]);
    expect(handle.latestMessage()).toMatchObject({ content: 'export attached', flags: MessageFlags.Ephemeral });
  });

  it('records autocomplete choices as callback type 8', async () => {
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isAutocomplete()) throw new Error('expected autocomplete');
      const focused = interaction.options.getFocused(true);
      await interaction.respond([
        { name: `${focused.value}h`, value: 'ash' },
        { name: 'Asher', value: 'asher' },
      ]);
      return focused.name;
    });
    const handle = fake.dispatchInteraction(
      fake.autocomplete({ name: 'alter', user: ALICE, subcommand: 'show', options: [{ type: 3, name: 'name', value: 'As', focused: true }] }),
    );
    expect(await seen).toBe('name');
    const response = await handle.waitForResponse();
    expect(response).toMatchObject({ kind: 'callback', callbackType: 8, body: { choices: [{ name: 'Ash', value: 'ash' }, { name: 'Asher', value: 'asher' }] } });
  });

  it('lets a button on a recorded reply be pressed and update() that message', async () => {
    const replied = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('switch:ash').setLabel('Switch').setStyle(ButtonStyle.Primary));
      await interaction.reply({ content: 'Switch to Ash?', components: [row] });
    });
    const command = fake.dispatchInteraction(fake.slashCommand({ name: 'switch', user: ALICE }));
    await replied;
    const message = command.latestMessage();
    expect(message?.components).toHaveLength(1);

    const pressed = onNextInteraction(async (interaction) => {
      if (!interaction.isButton()) throw new Error('expected a button');
      await interaction.update({ content: 'Switched to Ash', components: [] });
      return { customId: interaction.customId, messageId: interaction.message.id, content: interaction.message.content, user: interaction.user.id };
    });
    if (!message) throw new Error('no reply recorded');
    const press = fake.dispatchInteraction(fake.button({ customId: 'switch:ash', user: ALICE, message }));
    expect(await pressed).toEqual({ customId: 'switch:ash', messageId: message.id, content: 'Switch to Ash?', user: ALICE.id });
    expect(await press.waitForResponse()).toMatchObject({ kind: 'callback', callbackType: 7, messageId: message.id, body: { content: 'Switched to Ash', components: [] } });
    expect(press.latestMessage()?.content).toBe('Switched to Ash');
    expect(command.latestMessage()?.content).toBe('Switched to Ash');
  });

  it('carries targetUser on a user context menu interaction', async () => {
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isUserContextMenuCommand()) throw new Error('expected a user context menu');
      await interaction.reply({ content: `looked up ${interaction.targetUser.username}`, flags: MessageFlags.Ephemeral });
      return { name: interaction.commandName, target: interaction.targetUser.id, targetMember: interaction.targetMember ? 'member' : 'none' };
    });
    const handle = fake.dispatchInteraction(fake.userContextMenu({ name: 'Show system', targetUser: BOB, user: ALICE }));
    expect(await seen).toEqual({ name: 'Show system', target: BOB.id, targetMember: 'member' });
    expect((await handle.waitForResponse()).body.content).toBe('looked up bob');
  });

  it('is resumed after a gateway disconnect and keeps handling interactions', async () => {
    const identifiesBefore = fake.identifies.length;
    fake.disconnectGateway();
    await fake.waitForResume();
    expect(fake.identifies.length).toBe(identifiesBefore);
    expect(fake.resumeCount()).toBeGreaterThanOrEqual(1);
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.reply({ content: 'still here' });
      return interaction.commandName;
    });
    const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'ping', user: ALICE }));
    expect(await seen).toBe('ping');
    expect((await handle.waitForResponse()).body.content).toBe('still here');
  });

  it('replays an interaction dispatched while the gateway is down once discord.js resumes', async () => {
    fake.disconnectGateway(4000);
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.reply({ content: 'caught up' });
    });
    const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'ping', user: ALICE }));
    await fake.waitForResume();
    await seen;
    expect((await handle.waitForResponse()).body.content).toBe('caught up');
  });

  it('makes discord.js wait out a 429 on the callback route and retry', async () => {
    fake.setRestFailure({ method: 'POST', path: /^\/api\/v10\/interactions\/[^/]+\/[^/]+\/callback$/ }, rateLimited(1));
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.reply({ content: 'eventually' });
    });
    const handle = fake.dispatchInteraction(fake.slashCommand({ name: 'ping', user: ALICE }));
    await seen;
    const response = await handle.waitForResponse();
    expect(response.body.content).toBe('eventually');
    const attempts = fake.requests.filter((r) => r.path === `/api/v10/interactions/${handle.id}/${handle.token}/callback`);
    expect(attempts).toHaveLength(2);
    expect(Number(response.receivedAt - handle.sentAt) / 1e6).toBeGreaterThanOrEqual(1000);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await fetch(`${fake.apiBase}/v10/nothing/here`, { headers: { authorization: `Bot ${fake.botToken}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404: Not Found', code: 0 });
  });
});

describe('fake Discord teardown', () => {
  it('leaves nothing that keeps the process alive after client.destroy() and close()', async () => {
    // Run in a fresh process: if a socket, heartbeat or timer survived, it would not exit.
    const script = `
      import { Client, Events, GatewayIntentBits } from 'discord.js';
      import { startFakeDiscord } from ${JSON.stringify(fileURLToPath(new URL('./fake-discord.ts', import.meta.url)))};
      const fake = await startFakeDiscord();
      const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiBase } });
      const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
      await client.login(fake.botToken);
      await ready;
      await client.destroy();
      await fake.close();
      process.stdout.write(String(process.hrtime.bigint()));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    const exitedAt = process.hrtime.bigint();
    clearTimeout(kill);
    expect(code).toBe(0);
    // hrtime is monotonic and shared by processes on one machine, so the two readings compare.
    expect(Number(exitedAt - BigInt(output.trim())) / 1e6).toBeLessThan(1000);
  });

  it('closes a still-running client with 4004 so it does not reconnect', async () => {
    const fake = await startFakeDiscord();
    const client = await readyClient(fake);
    const disconnected = new Promise<number>((resolve) => client.once(Events.ShardDisconnect, (event) => resolve(event.code)));
    await fake.close();
    expect(await disconnected).toBe(4004);
    await client.destroy();
  });

  it('fails login with a wrong token', async () => {
    const fake = await startFakeDiscord();
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiBase } });
    await expect(client.login('wrong.token.value')).rejects.toThrow();
    await client.destroy();
    await fake.close();
  });
});
