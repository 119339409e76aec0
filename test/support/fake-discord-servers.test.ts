// Self-test of what the fake Discord models for server moderation, against a bare discord.js
// Client (no bot code of ours): categories covering their channels, permission overwrites computed
// as Discord does (discord.js agrees with the fake), command permission overrides that only an admin
// sets, another bot deleting messages (a chat filter) with the gateway MESSAGE_DELETE, and a logging
// bot posting entries. It refuses what Discord refuses.
import { DiscordAPIError, Client, Events, GatewayIntentBits, PermissionFlagsBits, Routes, type ClientEvents } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChannelsId, mayUseCommand, type CommandUse } from './command-permissions.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, startFakeDiscord, user, type FakeDiscord } from './fake-discord.js';

const ALICE = user('400000000000000104', 'alice');
const MOD = user('400000000000000105', 'mod');
const FILTER = user('600000000000000001', 'filterbot');
const LOGGER = user('600000000000000002', 'loggerbot');

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

describe('command permissions as Discord decides them (table)', () => {
  const GUILD = '300000000000000010';
  const base: CommandUse = {
    guildId: GUILD,
    ownerId: '1',
    userId: '500000000000000001',
    roleIds: ['700000000000000001'],
    permissions: DEFAULT_EVERYONE_PERMISSIONS,
    channelId: '800000000000000001',
    defaultMemberPermissions: String(1n << 5n), // Manage Server
    commandOverrides: [],
    appOverrides: [],
  };
  const MANAGE_GUILD = 1n << 5n;
  it.each<[string, Partial<CommandUse>, boolean]>([
    ['a plain member without Manage Server', {}, false],
    ['a member with Manage Server', { permissions: DEFAULT_EVERYONE_PERMISSIONS | MANAGE_GUILD }, true],
    ['an administrator, whatever the overrides', { permissions: Permission.Administrator, commandOverrides: [{ id: base.userId, type: 2, permission: false }] }, true],
    ['the owner', { userId: '1' }, true],
    ['a role allowed on the command', { commandOverrides: [{ id: '700000000000000001', type: 1, permission: true }] }, true],
    ['an allowing role beats a denying one', { roleIds: ['700000000000000001', '700000000000000002'], commandOverrides: [{ id: '700000000000000001', type: 1, permission: true }, { id: '700000000000000002', type: 1, permission: false }] }, true],
    ['the user’s own entry beats their roles', { commandOverrides: [{ id: '700000000000000001', type: 1, permission: true }, { id: base.userId, type: 2, permission: false }] }, false],
    ['@everyone allowed on the command', { commandOverrides: [{ id: GUILD, type: 1, permission: true }] }, true],
    ['a command entry beats the app’s', { commandOverrides: [{ id: '700000000000000001', type: 1, permission: true }], appOverrides: [{ id: GUILD, type: 1, permission: false }] }, true],
    ['the app’s entry when the command has none', { appOverrides: [{ id: '700000000000000001', type: 1, permission: true }] }, true],
    ['a channel denied hides it, even from a manager', { permissions: MANAGE_GUILD, commandOverrides: [{ id: '800000000000000001', type: 3, permission: false }] }, false],
    ['all channels denied but this one allowed', { permissions: MANAGE_GUILD, commandOverrides: [{ id: allChannelsId(GUILD), type: 3, permission: false }, { id: '800000000000000001', type: 3, permission: true }] }, true],
    ['a thread follows its parent channel', { permissions: MANAGE_GUILD, channelId: '800000000000000009', parentId: '800000000000000001', commandOverrides: [{ id: '800000000000000001', type: 3, permission: false }] }, false],
    ['no default permissions: everyone', { defaultMemberPermissions: null }, true],
    ['"0": administrators only', { defaultMemberPermissions: '0', permissions: MANAGE_GUILD }, false],
  ])('%s', (_name, change, expected) => {
    expect(mayUseCommand({ ...base, ...change })).toBe(expected);
  });
});

describe('fake Discord: what servers moderate with', () => {
  let fake: FakeDiscord;
  let client: Client;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildMembers, GatewayIntentBits.MessageContent],
      rest: { api: fake.apiBase },
    });
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(fake.botToken);
    await ready;
    await fake.waitForReady();
    fake.addMember({ user: ALICE });
  });
  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it('makes a channel created in a category synced to it, keeps synced channels in step, and refuses nesting', async () => {
    const staff = fake.addRole({ name: 'staff', permissions: 0n });
    const category = fake.addChannel({ name: 'Staff', type: 4, overwrites: [{ id: fake.guild.id, deny: Permission.ViewChannel }, { id: staff.id, allow: Permission.ViewChannel }] });
    const synced = fake.addChannel({ name: 'staff-chat', parentId: category.id });
    const own = fake.addChannel({ name: 'staff-log', parentId: category.id, overwrites: [] });
    expect(synced.permission_overwrites).toEqual(category.permission_overwrites);
    expect(fake.permissionsIn(synced.id, ALICE.id) & Permission.ViewChannel).toBe(0n);
    expect(fake.permissionsIn(own.id, ALICE.id) & Permission.ViewChannel).toBe(Permission.ViewChannel);

    const updated = nextEvent(client, Events.ChannelUpdate, (_old, channel) => channel.id === synced.id);
    fake.setChannelOverwrites(category.id, [{ id: fake.guild.id, deny: Permission.SendMessages }]);
    await updated;
    expect(fake.channel(synced.id)?.permission_overwrites).toEqual(fake.channel(category.id)?.permission_overwrites);
    expect(fake.channel(own.id)?.permission_overwrites).toEqual([]);
    const guild = client.guilds.cache.get(fake.guild.id);
    const alice = await guild?.members.fetch(ALICE.id);
    if (!guild || !alice) throw new Error('no guild or member');
    expect(guild.channels.cache.get(synced.id)?.parentId).toBe(category.id);
    for (const id of [synced.id, own.id, category.id]) expect(alice.permissionsIn(id).bitfield).toBe(fake.permissionsIn(id, ALICE.id));
    expect(alice.permissionsIn(synced.id).has(PermissionFlagsBits.SendMessages)).toBe(false);

    fake.setChannelOverwrites(own.id, [{ id: staff.id, allow: Permission.ManageMessages }]);
    fake.syncWithCategory(own.id);
    expect(fake.channel(own.id)?.permission_overwrites).toEqual(fake.channel(category.id)?.permission_overwrites);

    expect(() => fake.addChannel({ name: 'nested', type: 4, parentId: category.id })).toThrow(/cannot be in a category/);
    expect(() => fake.addChannel({ name: 'under-text', parentId: fake.channelId })).toThrow(/naming a category/);
  });

  it('computes role and member overwrites as Discord does, in the order discord.js agrees with', async () => {
    const helper = fake.addRole({ name: 'helper', permissions: 0n, position: 3 });
    const muted = fake.addRole({ name: 'muted', permissions: 0n, position: 2 });
    fake.addMember({ user: MOD, roles: [helper.id, muted.id] });
    const channel = fake.addChannel({
      name: 'layered',
      overwrites: [
        { id: fake.guild.id, deny: Permission.SendMessages | Permission.AttachFiles },
        { id: muted.id, deny: Permission.SendMessages | Permission.AddReactions },
        { id: helper.id, allow: Permission.SendMessages },
        { id: MOD.id, type: 'member', deny: Permission.EmbedLinks },
      ],
    });
    const granted = fake.permissionsIn(channel.id, MOD.id);
    // Roles together: an allow on any role wins over a deny on another; the member's own entry last.
    expect(granted & Permission.SendMessages).toBe(Permission.SendMessages);
    expect(granted & (Permission.AddReactions | Permission.AttachFiles | Permission.EmbedLinks)).toBe(0n);
    const mod = await client.guilds.cache.get(fake.guild.id)?.members.fetch(MOD.id);
    expect(mod?.permissionsIn(channel.id).bitfield).toBe(granted);
    expect(mod?.roles.highest.id).toBe(helper.id);
  });

  it('delivers a command only to whom Discord would, takes overrides only from an admin, and lets the bot read them', async () => {
    const rest = client.rest;
    const [command] = (await rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guild.id), {
      body: [{ name: 'server', description: 'Server settings', default_member_permissions: String(1n << 5n) }],
    })) as Array<{ id: string }>;
    if (!command) throw new Error('no command');
    expect(fake.mayUseCommand('server', ALICE.id)).toBe(false);
    expect(() => fake.slashCommand({ name: 'server', user: ALICE })).toThrow(/would not deliver/);

    const managers = fake.addRole({ name: 'managers', permissions: 0n });
    fake.addMember({ user: ALICE, roles: [managers.id] });
    const event = nextEvent(client, Events.ApplicationCommandPermissionsUpdate);
    fake.setCommandPermissions(command.id, [{ id: managers.id, type: 1, permission: true }]);
    expect((await event)[0].permissions).toEqual([{ id: managers.id, type: 1, permission: true }]);
    expect(fake.mayUseCommand('server', ALICE.id)).toBe(true);
    expect(fake.slashCommand({ name: 'server', user: ALICE }).data).toMatchObject({ name: 'server' });

    const read = (await rest.get(Routes.applicationCommandPermissions(fake.applicationId, fake.guild.id, command.id))) as { permissions: unknown[] };
    expect(read.permissions).toHaveLength(1);
    const refused = await rest
      .put(Routes.applicationCommandPermissions(fake.applicationId, fake.guild.id, command.id), { body: { permissions: [] } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused).toMatchObject({ status: 403, code: 20001 });
  });

  it('lets a filter bot delete a member’s message (MESSAGE_DELETE) and refuses one without Manage Messages', async () => {
    fake.addOtherBot({ user: FILTER, permissions: DEFAULT_EVERYONE_PERMISSIONS | Permission.ManageMessages });
    const stop = fake.addFilterBot({ botId: FILTER.id, matches: (message) => message.content.includes('badword'), when: 'on-create' });
    const deleted = nextEvent(client, Events.MessageDelete);
    const bad = fake.sendUserMessage({ author: ALICE, content: 'a badword here' });
    expect((await deleted)[0].id).toBe(bad.id);
    expect(fake.getMessage(bad.id)).toBeUndefined();
    const fine = fake.sendUserMessage({ author: ALICE, content: 'all fine' });
    expect(fake.getMessage(fine.id)).toBeDefined();
    stop();

    expect(() => fake.deleteAsOtherBot(FILTER.id, bad.id)).toThrow(/Unknown Message/);
    const quiet = fake.addChannel({ name: 'no-filter', overwrites: [{ id: FILTER.id, type: 'member', deny: Permission.ManageMessages }] });
    const kept = fake.sendUserMessage({ author: ALICE, channelId: quiet.id, content: 'mine' });
    expect(() => fake.deleteAsOtherBot(FILTER.id, kept.id)).toThrow(/Missing Permissions/);
    expect(() => fake.deleteAsOtherBot(ALICE.id, kept.id)).toThrow(/not another bot/);
  });

  it('lets a filter win the race just before the bot deletes: the bot’s delete answers 10008', async () => {
    const stop = fake.addFilterBot({ botId: FILTER.id, matches: (message) => message.content === 'race', when: 'before-bot-deletes' });
    const original = fake.sendUserMessage({ author: ALICE, content: 'race' });
    expect(fake.getMessage(original.id)).toBeDefined();
    const refused = await client.rest.delete(Routes.channelMessage(fake.channelId, original.id)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, code: 10008 });
    expect(fake.deletedMessages().some((message) => message.id === original.id)).toBe(true);
    stop();
  });

  it('has a logging bot post a "message deleted" entry naming the message, and nothing where it may not post', async () => {
    fake.addOtherBot({ user: LOGGER, permissions: DEFAULT_EVERYONE_PERMISSIONS });
    const logs = fake.addChannel({ name: 'logs' });
    const stop = fake.addLoggingBot({ botId: LOGGER.id, logChannelId: logs.id });
    const message = fake.sendUserMessage({ author: ALICE, content: 'to be removed' });
    const entryArrives = nextEvent(client, Events.MessageCreate, (created) => created.channelId === logs.id);
    fake.deleteUserMessage(message.id);
    const [entry] = await entryArrives;
    expect(entry.author.id).toBe(LOGGER.id);
    expect(entry.author.bot).toBe(true);
    expect(JSON.stringify(entry.embeds.map((embed) => embed.toJSON()))).toContain(`Message ID: ${message.id}`);

    fake.setChannelOverwrites(logs.id, [{ id: LOGGER.id, type: 'member', deny: Permission.SendMessages }]);
    const before = fake.messages(logs.id).length;
    const another = fake.sendUserMessage({ author: ALICE, content: 'also removed' });
    fake.deleteUserMessage(another.id);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.messages(logs.id)).toHaveLength(before);
    expect(() => fake.postAsOtherBot(LOGGER.id, logs.id, { content: 'hello' })).toThrow(/Missing Permissions/);
    stop();
  });
});
