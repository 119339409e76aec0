// Self-test of the fake Discord: a bare discord.js Client (no bot code of ours) must log in, take
// interactions and have its answers recorded, so bot tests can trust the harness.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { REST } from '@discordjs/rest';
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Client,
  DiscordAPIError,
  EmbedBuilder,
  Events,
  ForumChannel,
  GatewayIntentBits,
  MessageFlags,
  Partials,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  TextChannel,
  WebhookClient,
  type ClientEvents,
  type Interaction,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BOT_PERMISSIONS, Permission, rateLimited, resolvedAttachments, resolvedUsers, startFakeDiscord, user, type FakeDiscord } from './fake-discord.js';
import { HttpError } from './fake-discord/refusals.js';
import { checkBody } from './fake-discord/request-checks.js';
import { REQUEST_TABLE, rowFor } from './fake-discord/request-table.js';
import { testScriptBundle } from './test-bundle.js';
import type { Json } from './fake-discord/types.js';

const ALICE = user('400000000000000004', 'alice');
const BOB = user('500000000000000005', 'bob');

async function readyClient(fake: FakeDiscord): Promise<Client> {
  const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiBase } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(fake.botToken);
  await ready;
  return client;
}

/** The next `event` discord.js emits that `accept` takes, as its arguments. */
function nextEvent<E extends keyof ClientEvents>(
  client: Client,
  event: E,
  accept: (...args: ClientEvents[E]) => boolean = () => true,
  timeoutMs = 3000,
): Promise<ClientEvents[E]> {
  return new Promise((resolve, reject) => {
    const listener = (...args: ClientEvents[E]): void => {
      if (!accept(...args)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args);
    };
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`discord.js emitted no matching ${String(event)} within ${timeoutMs} ms`));
    }, timeoutMs);
    client.on(event, listener);
  });
}

async function apiError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof DiscordAPIError)) throw new Error(`expected a DiscordAPIError, got ${String(error)}`);
  return error;
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
    const guildCommands = (await rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guild.id), { body: [ping.toJSON()] })) as {
      id: string;
      guild_id: string;
    }[];
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
      return {
        editedId: edited.id,
        editedTitle: edited.embeds[0]?.title,
        followUpId: followUp.id,
        followUpContent: followUp.content,
        followUpChannel: followUp.channelId,
      };
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

  it('gives a slash command an attachment option that discord.js resolves and the CDN path serves', async () => {
    const file = fake.uploadAttachment({ filename: 'system.json', data: Buffer.from('{"switches":[]}') });
    const seen = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await interaction.reply({ content: 'got it', flags: MessageFlags.Ephemeral });
      const attachment = interaction.options.getAttachment('file');
      return { name: attachment?.name, size: attachment?.size, url: attachment?.url ?? '' };
    });
    fake.dispatchInteraction(fake.slashCommand({ name: 'import', user: ALICE, options: [{ type: 11, name: 'file', value: file.id }], resolved: resolvedAttachments([file]) }));
    const attachment = await seen;
    expect(attachment).toMatchObject({ name: 'system.json', size: 15 });
    expect(new URL(attachment.url).pathname).toMatch(new RegExp(`^/ephemeral-attachments/${fake.applicationId}/\\d+/system.json$`));
    const response = await fetch(attachment.url);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe('{"switches":[]}');
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

describe('fake Discord: the message path with discord.js', () => {
  const CAROL = user('600000000000000006', 'carol');
  let fake: FakeDiscord;
  let client: Client;
  let modRoleId: string;
  let quietId: string;
  let lockedId: string;
  let threadId: string;
  let lockedThreadId: string;
  let forumId: string;

  const general = (): TextChannel => client.channels.cache.get(fake.channelId) as TextChannel;
  const messageFrom = (authorId: string, content?: string) =>
    nextEvent(client, Events.MessageCreate, (m) => m.author.id === authorId && (content === undefined || m.content === content));

  beforeAll(async () => {
    fake = await startFakeDiscord();
    // The guild model as it is when the bot connects; GUILD_CREATE describes all of it.
    modRoleId = fake.addRole({ name: 'mod', permissions: Permission.ManageMessages }).id;
    quietId = fake.addChannel({ name: 'quiet' }).id;
    lockedId = fake.addChannel({ name: 'locked', overwrites: [{ id: fake.guild.id, deny: Permission.SendMessages }] }).id;
    threadId = fake.addChannel({ name: 'a thread', type: 11, parentId: fake.channelId }).id;
    lockedThreadId = fake.addChannel({ name: 'locked thread', type: 11, parentId: lockedId }).id;
    forumId = fake.addChannel({ name: 'forum', type: 15 }).id;
    fake.addMember({ user: ALICE, roles: [modRoleId] });
    fake.addMember({ user: BOB });
    client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.GuildWebhooks,
        GatewayIntentBits.GuildMessageReactions,
      ],
      partials: [Partials.Message, Partials.Reaction],
      rest: { api: fake.apiBase },
    });
    const ready = nextEvent(client, Events.ClientReady);
    await client.login(fake.botToken);
    await ready;
  });
  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it('describes roles, channels, threads and overwrites so discord.js computes the permissions the fake enforces', async () => {
    const guild = client.guilds.cache.get(fake.guild.id);
    const me = guild?.members.me;
    if (!guild || !me) throw new Error('no guild or bot member in the cache');
    expect(guild.channels.cache.get(threadId)?.isThread()).toBe(true);
    expect(guild.channels.cache.get(threadId)?.parentId).toBe(fake.channelId);
    expect(guild.channels.cache.get(forumId)).toBeInstanceOf(ForumChannel);
    expect(guild.roles.cache.get(modRoleId)?.permissions.has(PermissionFlagsBits.ManageMessages)).toBe(true);
    for (const id of [fake.channelId, lockedId, threadId, lockedThreadId]) {
      expect(guild.channels.cache.get(id)?.permissionsFor(me)?.bitfield).toBe(fake.permissionsIn(id));
    }
    expect(me.permissionsIn(lockedId).has(PermissionFlagsBits.SendMessages)).toBe(false);
    expect(me.permissionsIn(fake.channelId).has(PermissionFlagsBits.ManageWebhooks)).toBe(true);

    // Changes after READY reach the cache as CHANNEL_UPDATE / GUILD_ROLE_CREATE / GUILD_MEMBER_UPDATE.
    const updated = nextEvent(client, Events.ChannelUpdate, (_old, channel) => channel.id === quietId);
    fake.setBotPermissions(quietId, DEFAULT_BOT_PERMISSIONS & ~(Permission.ManageWebhooks | Permission.ManageMessages));
    await updated;
    expect(me.permissionsIn(quietId).has(PermissionFlagsBits.ManageWebhooks)).toBe(false);
    expect(me.permissionsIn(quietId).bitfield).toBe(fake.permissionsIn(quietId));

    const created = nextEvent(client, Events.GuildRoleCreate);
    const helperRole = fake.addRole({ name: 'helper', permissions: Permission.ManageNicknames });
    expect((await created)[0].id).toBe(helperRole.id);
    const memberUpdated = nextEvent(client, Events.GuildMemberUpdate);
    fake.addMember({ user: fake.botUser, roles: [fake.botRoleId, helperRole.id] });
    await memberUpdated;
    expect(me.permissions.has(PermissionFlagsBits.ManageNicknames)).toBe(true);
  });

  it('delivers a user message with content, member roles, mentions, a reply and downloadable attachments', async () => {
    const firstSeen = messageFrom(BOB.id);
    const first = fake.sendUserMessage({ author: BOB, content: 'first' });
    await firstSeen;
    const seen = messageFrom(ALICE.id);
    const sent = fake.sendUserMessage({
      author: ALICE,
      content: `k: hello <@${BOB.id}>`,
      messageReference: { messageId: first.id },
      attachments: [{ filename: 'notes.txt', data: Buffer.from('some notes') }],
    });
    const [message] = await seen;
    expect(message.id).toBe(sent.id);
    expect(message.content).toBe(`k: hello <@${BOB.id}>`);
    expect(message.guildId).toBe(fake.guild.id);
    expect(message.member?.roles.cache.has(modRoleId)).toBe(true);
    expect(message.mentions.users.has(BOB.id)).toBe(true);
    expect(message.reference?.messageId).toBe(first.id);
    expect(message.createdTimestamp).toBeGreaterThan(Date.now() - 60_000);
    const attachment = message.attachments.first();
    expect(attachment).toMatchObject({ name: 'notes.txt', size: 10, contentType: 'text/plain; charset=utf-8' });
    const download = await fetch(attachment?.url ?? '');
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe('some notes');
    expect(fake.messages(fake.channelId).map((m) => m.id).slice(-2)).toEqual([first.id, sent.id]);
  });

  it('blanks user content for a client without the MessageContent intent, as Discord does', async () => {
    const other = await startFakeDiscord();
    const bare = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages], rest: { api: other.apiBase } });
    try {
      const ready = nextEvent(bare, Events.ClientReady);
      await bare.login(other.botToken);
      await ready;
      const plain = nextEvent(bare, Events.MessageCreate);
      other.sendUserMessage({ author: ALICE, content: 'k: hello', attachments: [{ filename: 'a.png', data: Buffer.from([1, 2, 3]) }] });
      const [message] = await plain;
      expect(message.content).toBe('');
      expect(message.attachments.size).toBe(0);
      const mentioning = nextEvent(bare, Events.MessageCreate);
      other.sendUserMessage({ author: ALICE, content: `<@${other.botUser.id}> help` });
      expect((await mentioning)[0].content).toBe(`<@${other.botUser.id}> help`);
    } finally {
      await bare.destroy();
      await other.close();
    }
  });

  it('creates a channel webhook and executes it with JSON and with files; the message arrives over the gateway', async () => {
    await expect(apiError(general().createWebhook({ name: 'Discord proxy' }))).resolves.toMatchObject({ status: 400, code: 50035 });
    const webhook = await general().createWebhook({ name: 'switchboard' });
    expect(webhook.token).toBeTruthy();
    expect(webhook.applicationId).toBe(fake.applicationId);
    fake.addWebhook({ channelId: fake.channelId, name: 'someone else' });
    const listed = await general().fetchWebhooks();
    expect(listed.map((w) => [w.name, Boolean(w.token)]).sort()).toEqual([
      ['someone else', false],
      ['switchboard', true],
    ]);
    expect((await client.fetchWebhook(webhook.id, webhook.token ?? '')).name).toBe('switchboard');

    const gateway = nextEvent(client, Events.MessageCreate, (m) => m.webhookId === webhook.id);
    const stored = fake.waitForMessage((m) => m.webhook_id === webhook.id);
    const sent = await webhook.send({ content: `hello <@${BOB.id}>`, username: 'Ash', avatarURL: 'https://cdn.example/ash.png', allowedMentions: { parse: [] } });
    expect(sent.webhookId).toBe(webhook.id);
    expect(sent.author.username).toBe('Ash');
    expect(sent.mentions.users.size).toBe(0);
    const [viaGateway] = await gateway;
    expect(viaGateway).toMatchObject({ id: sent.id, content: `hello <@${BOB.id}>`, webhookId: webhook.id });
    expect(viaGateway.author.username).toBe('Ash');
    expect((await stored).id).toBe(sent.id);
    expect(fake.webhookExecutions().at(-1)).toMatchObject({ kind: 'execute', webhookId: webhook.id, messageId: sent.id, wait: true, body: { username: 'Ash', avatar_url: 'https://cdn.example/ash.png' } });

    await expect(apiError(webhook.send({ content: 'x', username: 'clyde' }))).resolves.toMatchObject({ code: 50035 });
    const withFile = await webhook.send({ content: 'a file', username: 'Ash', files: [new AttachmentBuilder(Buffer.from('file bytes'), { name: 'export.txt' })] });
    const execution = fake.webhookExecutions().at(-1);
    expect(execution?.files.map((f) => [f.field, f.filename, f.data.toString()])).toEqual([['files[0]', 'export.txt', 'file bytes']]);
    expect(execution?.body.content).toBe('a file');
    const attachment = withFile.attachments.first();
    expect(attachment?.name).toBe('export.txt');
    expect(await (await fetch(attachment?.url ?? '')).text()).toBe('file bytes');
  });

  it('executes into a thread with threadId, edits and deletes that message, and refuses a thread elsewhere', async () => {
    const own = fake.webhooks(fake.channelId).find((w) => w.application_id === fake.applicationId);
    if (!own?.token) throw new Error('expected the webhook of the previous test');
    const hook = new WebhookClient({ id: own.id, token: own.token }, { rest: { api: fake.apiBase } });
    try {
      const arrived = nextEvent(client, Events.MessageCreate, (m) => m.channelId === threadId);
      const inThread = await hook.send({ content: 'in the thread', username: 'Ash', threadId });
      expect(inThread.channel_id).toBe(threadId);
      expect((await arrived)[0].channel.isThread()).toBe(true);
      expect(fake.webhookExecutions().at(-1)).toMatchObject({ threadId, channelId: threadId });

      await expect(apiError(hook.send({ content: 'x', threadId: lockedThreadId }))).resolves.toMatchObject({ status: 404, code: 10003 });
      await expect(apiError(hook.editMessage(inThread.id, { content: 'no thread id' }))).resolves.toMatchObject({ code: 10008 });

      const updated = nextEvent(client, Events.MessageUpdate, (_old, m) => m.id === inThread.id);
      await hook.editMessage(inThread.id, { content: 'edited', threadId });
      expect((await updated)[1].content).toBe('edited');
      expect(fake.getMessage(inThread.id)?.edited_timestamp).not.toBeNull();

      const removed = nextEvent(client, Events.MessageDelete, (m) => m.id === inThread.id);
      await hook.deleteMessage(inThread.id, threadId);
      await removed;
      expect(fake.getMessage(inThread.id)).toBeUndefined();
      expect(fake.deletedMessages(threadId).map((m) => m.content)).toEqual(['edited']);
      expect(fake.webhookExecutions().slice(-2).map((e) => e.kind)).toEqual(['edit', 'delete']);
    } finally {
      hook.destroy();
    }
  });

  it('needs a thread name for a forum webhook and opens a post with it', async () => {
    const forum = client.channels.cache.get(forumId) as ForumChannel;
    const webhook = await forum.createWebhook({ name: 'switchboard' });
    await expect(apiError(webhook.send({ content: 'no post' }))).resolves.toMatchObject({ code: 220001 });
    const thread = nextEvent(client, Events.ThreadCreate);
    const post = await webhook.send({ content: 'first post', threadName: 'A post' });
    const [created] = await thread;
    expect(created).toMatchObject({ id: post.channelId, name: 'A post', parentId: forumId, type: ChannelType.PublicThread });
    expect(post.id).toBe(post.channelId);
  });

  it('stores what the bot posts and edits in a channel, and refuses to edit someone else’s message', async () => {
    const posted = await general().send({ content: `hi <@${ALICE.id}>`, allowedMentions: { parse: [] } });
    expect(fake.getMessage(posted.id)).toMatchObject({ content: `hi <@${ALICE.id}>`, author: { id: fake.applicationId }, mentions: [] });
    const edited = await posted.edit('hello');
    expect(edited.editedTimestamp).not.toBeNull();
    expect(fake.messages(fake.channelId).at(-1)?.content).toBe('hello');
    const seen = messageFrom(BOB.id, 'mine');
    fake.sendUserMessage({ author: BOB, content: 'mine' });
    const [theirs] = await seen;
    await expect(apiError(theirs.edit('not yours'))).resolves.toMatchObject({ status: 403, code: 50005 });
  });

  it('caps a channel at 15 webhooks (30007)', async () => {
    const crowded = fake.addChannel({ name: 'crowded' });
    for (let i = 0; i < 15; i += 1) await client.rest.post(Routes.channelWebhooks(crowded.id), { body: { name: `hook ${i}` } });
    await expect(apiError(client.rest.post(Routes.channelWebhooks(crowded.id), { body: { name: 'one too many' } }))).resolves.toMatchObject({ code: 30007 });
    expect(fake.webhooks(crowded.id)).toHaveLength(15);
  });

  it('lets the bot delete a message, and answers 403 50013 where a permission is missing', async () => {
    const seen = messageFrom(BOB.id, 'delete me');
    fake.sendUserMessage({ author: BOB, content: 'delete me' });
    const [message] = await seen;
    const deleted = nextEvent(client, Events.MessageDelete, (m) => m.id === message.id);
    await message.delete();
    await deleted;
    expect(fake.deletedMessages().at(-1)?.id).toBe(message.id);

    // #quiet: the bot lost Manage Webhooks and Manage Messages in the first test.
    const quiet = client.channels.cache.get(quietId) as TextChannel;
    await expect(apiError(quiet.createWebhook({ name: 'switchboard' }))).resolves.toMatchObject({ status: 403, code: 50013, message: 'Missing Permissions' });
    const inQuiet = messageFrom(BOB.id, 'stay');
    fake.sendUserMessage({ author: BOB, channelId: quietId, content: 'stay' });
    const [kept] = await inQuiet;
    await expect(apiError(kept.delete())).resolves.toMatchObject({ status: 403, code: 50013 });
    expect(fake.getMessage(kept.id)).toBeDefined();

    // #locked: a webhook made while allowed, then Send Messages in Threads denied on the channel.
    const locked = client.channels.cache.get(lockedId) as TextChannel;
    const webhook = await locked.createWebhook({ name: 'switchboard' });
    const updated = nextEvent(client, Events.ChannelUpdate, (_old, channel) => channel.id === lockedId);
    fake.setBotPermissions(lockedId, DEFAULT_BOT_PERMISSIONS & ~Permission.SendMessagesInThreads);
    await updated;
    expect(locked.permissionsFor(fake.applicationId)?.has(PermissionFlagsBits.SendMessagesInThreads)).toBe(false);
    await expect(apiError(webhook.send({ content: 'x', threadId: lockedThreadId }))).resolves.toMatchObject({ status: 403, code: 50013 });
    await expect(webhook.send({ content: 'in the channel itself' })).resolves.toMatchObject({ channelId: lockedId });
  });

  it('answers 404 Unknown Webhook (10015) once the webhook is deleted', async () => {
    const webhook = await general().createWebhook({ name: 'short-lived' });
    fake.deleteWebhook(webhook.id);
    await expect(apiError(webhook.send({ content: 'anyone there?' }))).resolves.toMatchObject({ status: 404, code: 10015, message: 'Unknown Webhook' });
  });

  it('makes discord.js wait out a 429 on webhook execution and on message delete', async () => {
    const webhook = await general().createWebhook({ name: 'limited' });
    fake.setRestFailure({ method: 'POST', path: new RegExp(`^/api/v10/webhooks/${webhook.id}/[^/]+$`) }, rateLimited(0.2));
    const sent = await webhook.send({ content: 'eventually' });
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path.startsWith(`/api/v10/webhooks/${webhook.id}/`))).toHaveLength(2);

    fake.setRestFailure({ method: 'DELETE', path: /^\/api\/v10\/channels\/\d+\/messages\/\d+$/ }, rateLimited(0.2));
    await sent.delete();
    expect(fake.requests.filter((r) => r.method === 'DELETE' && r.path === `/api/v10/channels/${fake.channelId}/messages/${sent.id}`)).toHaveLength(2);
    expect(fake.getMessage(sent.id)).toBeUndefined();
  });

  it('delivers reactions on cached messages and, with partials, on messages sent before the bot started', async () => {
    const seen = messageFrom(BOB.id, 'react to me');
    const target = fake.sendUserMessage({ author: BOB, content: 'react to me' });
    await seen;
    const reacted = nextEvent(client, Events.MessageReactionAdd);
    fake.addReaction({ userId: ALICE.id, messageId: target.id, emoji: '❓' });
    const [reaction, reactor] = await reacted;
    expect(reaction.message.partial).toBe(false);
    expect(reaction.emoji.name).toBe('❓');
    expect(reactor.id).toBe(ALICE.id);
    expect(fake.getMessage(target.id)?.reactions).toMatchObject([{ emoji: { name: '❓' }, count: 1, me: false }]);
    const removed = nextEvent(client, Events.MessageReactionRemove);
    await reaction.users.remove(ALICE.id);
    await removed;
    expect(fake.getMessage(target.id)?.reactions).toBeUndefined();
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path.endsWith(`/reactions/❓/${ALICE.id}`))).toBe(true);

    const old = fake.createMessage({ channel_id: fake.channelId, author: fake.botUser, content: 'from yesterday', webhook_id: '700000000000000007' });
    const partial = nextEvent(client, Events.MessageReactionAdd);
    fake.addReaction({ userId: BOB.id, messageId: old.id, emoji: '❌' });
    const [oldReaction] = await partial;
    expect(oldReaction.message.partial).toBe(true);
    const fetched = await oldReaction.message.fetch();
    expect(fetched.content).toBe('from yesterday');
    expect(fetched.webhookId).toBe('700000000000000007');
  });

  it('builds a message context menu whose targetMessage discord.js resolves', async () => {
    const target = fake.sendUserMessage({ author: BOB, content: 'what is this?' });
    const seen = new Promise<{ name: string; id: string; content: string }>((resolve, reject) => {
      client.once(Events.InteractionCreate, (interaction) => {
        if (!interaction.isMessageContextMenuCommand()) return reject(new Error('expected a message context menu'));
        interaction
          .reply({ content: 'info', flags: MessageFlags.Ephemeral })
          .then(() => resolve({ name: interaction.commandName, id: interaction.targetMessage.id, content: interaction.targetMessage.content }), reject);
      });
    });
    const handle = fake.dispatchInteraction(fake.messageContextMenu({ name: 'Message info', user: ALICE, targetMessage: target }));
    expect(await seen).toEqual({ name: 'Message info', id: target.id, content: 'what is this?' });
    expect((await handle.waitForResponse()).body.content).toBe('info');
  });

  it('opens a DM channel for user.send() and refuses users who closed their DMs', async () => {
    await client.users.send(ALICE.id, 'a private notice');
    expect(fake.directMessages(ALICE.id).map((m) => m.content)).toEqual(['a private notice']);
    fake.addMember({ user: CAROL });
    fake.setDirectMessagesOpen(CAROL.id, false);
    await expect(apiError(client.users.send(CAROL.id, 'nope'))).resolves.toMatchObject({ status: 403, code: 50007 });
  });
});

describe('fake Discord teardown', () => {
  it('leaves nothing that keeps the process alive after client.destroy() and close()', async () => {
    // Run in a fresh process (fake-discord/teardown-probe.ts): if a socket, heartbeat or timer
    // survived, it would not exit.
    const probe = testScriptBundle(fileURLToPath(new URL('./fake-discord/teardown-probe.ts', import.meta.url)));
    const child = spawn(process.execPath, [probe], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
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

describe('fake Discord refuses what Discord refuses', () => {
  const invalid = (errors: unknown) => ({ status: 400, body: { code: 50035, message: 'Invalid Form Body', errors } });
  const refusal = (method: string, path: string, body: unknown) => {
    try {
      checkBody(method, path, body);
      return undefined;
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, body: error.body };
      throw error;
    }
  };
  const at = (code: string) => ({ _errors: [expect.objectContaining({ code })] });
  const CHANNEL = 'channels/100000000000000001/messages';
  const HOOK = 'webhooks/100000000000000002/token';
  const CALLBACK = 'interactions/100000000000000003/token/callback';
  const COMMANDS = 'applications/100000000000000004/commands';
  const embed = (extra: Json) => ({ title: 't', ...extra });

  it.each<[string, string, string, unknown, unknown]>([
    ['content over 2,000 characters', 'POST', CHANNEL, { content: 'x'.repeat(2001) }, { content: at('BASE_TYPE_MAX_LENGTH') }],
    ['a title over 256', 'POST', CHANNEL, { embeds: [embed({ title: 't'.repeat(257) })] }, { embeds: { 0: { title: at('BASE_TYPE_MAX_LENGTH') } } }],
    ['11 embeds', 'POST', CHANNEL, { embeds: Array.from({ length: 11 }, () => embed({})) }, { embeds: at('BASE_TYPE_MAX_LENGTH') }],
    ['26 fields', 'POST', CHANNEL, { embeds: [embed({ fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) })] }, { embeds: { 0: { fields: at('BASE_TYPE_MAX_LENGTH') } } }],
    ['a field value over 1,024', 'POST', CHANNEL, { embeds: [embed({ fields: [{ name: 'n', value: 'v'.repeat(1025) }] })] }, { embeds: { 0: { fields: { 0: { value: at('BASE_TYPE_MAX_LENGTH') } } } } }],
    ['an empty field value', 'POST', CHANNEL, { embeds: [embed({ fields: [{ name: 'n', value: '' }] })] }, { embeds: { 0: { fields: { 0: { value: at('BASE_TYPE_REQUIRED') } } } } }],
    ['two embeds of 6,347 characters together', 'POST', CHANNEL, { embeds: [embed({ description: 'd'.repeat(4000) }), embed({ description: 'd'.repeat(2345) })] }, { embeds: at('MAX_EMBED_SIZE_EXCEEDED') }],
    ['a thumbnail URL with a space', 'POST', CHANNEL, { embeds: [embed({ thumbnail: { url: 'https://cdn.example/my pic.png' } })] }, { embeds: { 0: { thumbnail: { url: at('URL_TYPE_INVALID_URL') } } } }],
    ['an image URL that is no URL', 'POST', CHANNEL, { embeds: [embed({ image: { url: 'picture' } })] }, { embeds: { 0: { image: { url: at('URL_TYPE_INVALID_URL') } } } }],
    ['six action rows', 'POST', CHANNEL, { content: 'x', components: Array.from({ length: 6 }, (_, i) => ({ type: 1, components: [{ type: 2, style: 1, label: 'b', custom_id: `b${i}` }] })) }, { components: at('BASE_TYPE_MAX_LENGTH') }],
    ['a repeated custom id', 'POST', CHANNEL, { content: 'x', components: [{ type: 1, components: [1, 2].map(() => ({ type: 2, style: 1, label: 'b', custom_id: 'same' })) }] }, { components: { 0: { components: { 1: { custom_id: at('COMPONENT_CUSTOM_ID_DUPLICATED') } } } } }],
    ['a webhook avatar URL with a space', 'POST', HOOK, { content: 'x', avatar_url: 'https://cdn.example/a b.png' }, { avatar_url: at('URL_TYPE_INVALID_URL') }],
    ['the username "Everyone"', 'POST', HOOK, { content: 'x', username: 'Everyone' }, { username: at('USERNAME_INVALID') }],
    ['the username "here"', 'POST', HOOK, { content: 'x', username: 'here' }, { username: at('USERNAME_INVALID') }],
    ['"clyde" behind a zero-width space', 'POST', HOOK, { content: 'x', username: 'c\u200blyde' }, { username: at('USERNAME_INVALID_CONTAINS') }],
    ['a name that is only zero-width', 'POST', HOOK, { content: 'x', username: '\u200b' }, { username: at('BASE_TYPE_BAD_LENGTH') }],
    ['a username over 80', 'POST', HOOK, { content: 'x', username: 'n'.repeat(81) }, { username: at('BASE_TYPE_MAX_LENGTH') }],
    ['an unknown callback type', 'POST', CALLBACK, { type: 3 }, { type: at('BASE_TYPE_CHOICES') }],
    ['26 autocomplete choices', 'POST', CALLBACK, { type: 8, data: { choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `${i}` })) } }, { data: expect.anything() }],
    ['a choice name over 100', 'POST', CALLBACK, { type: 8, data: { choices: [{ name: 'n'.repeat(101), value: '1' }] } }, { data: expect.anything() }],
    ['a choice value over 100', 'POST', CALLBACK, { type: 8, data: { choices: [{ name: 'n', value: 'v'.repeat(101) }] } }, { data: { choices: { 0: { value: at('BASE_TYPE_MAX_LENGTH') } } } }],
    ['a modal title over 45', 'POST', CALLBACK, { type: 9, data: { custom_id: 'm', title: 't'.repeat(46), components: [{ type: 1, components: [{ type: 4, custom_id: 'f', style: 1, label: 'l' }] }] } }, { data: { title: at('BASE_TYPE_MAX_LENGTH') } }],
    ['a modal of six rows', 'POST', CALLBACK, { type: 9, data: { custom_id: 'm', title: 't', components: Array.from({ length: 6 }, (_, i) => ({ type: 1, components: [{ type: 4, custom_id: `f${i}`, style: 1, label: 'l' }] })) } }, { data: { components: at('BASE_TYPE_BAD_LENGTH') } }],
    ['message data over the embed total', 'POST', CALLBACK, { type: 4, data: { embeds: [embed({ description: 'd'.repeat(4096) }), embed({ description: 'd'.repeat(4096) })] } }, { data: { embeds: at('MAX_EMBED_SIZE_EXCEEDED') } }],
    ['a command name in capitals', 'POST', COMMANDS, { name: 'Alter', description: 'd' }, { name: at('APPLICATION_COMMAND_INVALID_NAME') }],
    ['a command name with a space', 'POST', COMMANDS, { name: 'my alter', description: 'd' }, { name: at('APPLICATION_COMMAND_INVALID_NAME') }],
    ['an empty command description', 'POST', COMMANDS, { name: 'alter', description: '' }, { description: at('BASE_TYPE_BAD_LENGTH') }],
    ['26 options', 'POST', COMMANDS, { name: 'alter', description: 'd', options: Array.from({ length: 26 }, (_, i) => ({ type: 3, name: `o${i}`, description: 'd' })) }, { options: at('BASE_TYPE_MAX_LENGTH') }],
    ['a required option after an optional one', 'POST', COMMANDS, { name: 'alter', description: 'd', options: [{ type: 3, name: 'a', description: 'd' }, { type: 3, name: 'b', description: 'd', required: true }] }, { options: { 1: { required: at('APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID') } } }],
    ['26 choices', 'POST', COMMANDS, { name: 'alter', description: 'd', options: [{ type: 3, name: 'a', description: 'd', choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `${i}` })) }] }, { options: expect.anything() }],
    ['a context menu with a description', 'POST', COMMANDS, { type: 2, name: 'View system', description: 'd' }, { description: at('APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION') }],
    ['two commands of one name', 'PUT', COMMANDS, [{ name: 'alter', description: 'd' }, { name: 'alter', description: 'e' }], { 1: { name: at('APPLICATION_COMMANDS_DUPLICATE_NAME') } }],
    ['a command over 4,000 characters', 'POST', COMMANDS, { name: 'alter', description: 'd', options: Array.from({ length: 25 }, (_, i) => ({ type: 3, name: `o${i}`, description: 'd'.repeat(100), choices: Array.from({ length: 25 }, (_, j) => ({ name: `c${j}`.padEnd(100, 'c'), value: `${j}` })) })) }, at('APPLICATION_COMMAND_TOO_LARGE')],
  ])('refuses %s', (_name, method, path, body, errors) => {
    expect(refusal(method, path, body)).toEqual(invalid(errors));
  });

  it.each<[string, string, string, unknown]>([
    ['2,000 emoji (code points, as Discord counts)', 'POST', HOOK, { content: '😀'.repeat(2000), username: 'Ash' }],
    ['an accepted image URL and an uploaded file', 'POST', CHANNEL, { embeds: [embed({ thumbnail: { url: 'https://cdn.example/my%20pic.png' }, image: { url: 'attachment://a.png' } })] }],
    ['a defused "Everyone"', 'POST', HOOK, { content: 'x', username: 'E\u200averyone' }],
    ['"Clyde" defused with a hair space', 'POST', HOOK, { content: 'x', username: 'C\u200alyde' }],
    ['embeds of exactly 6,000 characters', 'POST', CHANNEL, { embeds: [embed({ title: undefined, description: 'd'.repeat(4000) }), embed({ title: undefined, description: 'd'.repeat(2000) })] }],
    ['permissions as a string of digits', 'POST', COMMANDS, { name: 'server', description: 'd', default_member_permissions: '32' }],
    ['a context menu command', 'POST', COMMANDS, { type: 2, name: 'View system' }],
  ])('accepts %s', (_name, method, path, body) => {
    expect(refusal(method, path, body)).toBeUndefined();
  });

  it.each([
    ['PATCH', 'webhooks/1/tok/messages/@original', '/webhooks/{webhook_id}/{webhook_token}/messages/@original'],
    ['PATCH', 'webhooks/1/tok/messages/2', '/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}'],
    ['PATCH', 'guilds/1/members/@me', '/guilds/{guild_id}/members/@me'],
    ['PATCH', 'guilds/1/members/2', '/guilds/{guild_id}/members/{user_id}'],
    ['PUT', 'channels/1/messages/2/reactions/👍/@me', '/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me'],
    ['GET', 'applications/1/guilds/2/commands/permissions', '/applications/{application_id}/guilds/{guild_id}/commands/permissions'],
    ['POST', 'channels/1/typing', '/channels/{channel_id}/typing'],
    ['GET', 'users/@me', '/users/@me'],
  ])('finds the row of %s /%s, literal segments first', (method, path, expected) => {
    expect(rowFor(method, path)?.path).toBe(expected);
  });

  it('has no row for a route the fake does not serve, so serving one without a row fails the request (server.ts)', () => {
    expect(rowFor('GET', 'channels/1/pins')).toBeUndefined();
    expect(rowFor('DELETE', 'channels/1')).toBeUndefined();
  });

  it('names a path and method of Discord’s document in every row', () => {
    const document = readFileSync(fileURLToPath(import.meta.resolve('discord-api-spec')).replace(/\.js$/, '.ts'), 'utf8');
    const methods = new Map<string, Set<string>>();
    for (const match of document.matchAll(/\n {2}"(\/[^"]+)": \{([\s\S]*?)\n {2}\};/g)) {
      methods.set(match[1] ?? '', new Set([...(match[2] ?? '').matchAll(/\n {4}(get|put|post|patch|delete): \{/g)].map((m) => (m[1] ?? '').toUpperCase())));
    }
    expect(methods.size).toBeGreaterThan(100);
    for (const row of REQUEST_TABLE) expect(methods.get(row.path)?.has(row.method), `${row.method} ${row.path}`).toBe(true);
  });

  it('answers a refused request with Discord’s error body, and nothing is sent', async () => {
    const fake = await startFakeDiscord();
    try {
      const webhook = fake.addWebhook({ channelId: fake.channelId, name: 'switchboard' });
      const res = await fetch(`${fake.apiBase}/v10/webhooks/${webhook.id}/${webhook.token}?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'hi', username: 'here', avatar_url: 'https://cdn.example/a b.png' }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        code: 50035,
        message: 'Invalid Form Body',
        errors: { username: { _errors: [{ code: 'USERNAME_INVALID', message: 'Username cannot be "here"' }] }, avatar_url: { _errors: [{ code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' }] } },
      });
      expect(fake.webhookExecutions()).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});
