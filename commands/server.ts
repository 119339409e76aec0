// /server: a server's settings for the bot, for its admins (Manage Server) and the manager roles
// they name. Registered with Manage Server as the default permission, and checked again on every
// use from the interaction's own permissions and roles: a server may override who sees the command
// in its Integrations settings, and the re-check is what protects. Changes go to the service with
// the bot's own client (the admin need not have linked anything), naming who made them and what
// the bot checked; answers are private.
import { ChannelType, EmbedBuilder, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder, type ChatInputCommandInteraction, type SlashCommandSubcommandBuilder } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import type { Responder } from '../src/bot/responder.js';
import { botChannelPermissions } from '../src/bot/servers/bot-permissions.js';
import { managePermissionOf } from '../src/bot/servers/may-manage-server.js';
import { auditEmbed, auditPermissions } from '../src/bot/servers/permission-audit.js';
import { MAX_BLOCK_REASON, MAX_PROXY_DELAY_MS, type GuildSettings } from '../src/domain/guild.js';

/** Channels a blacklist or log-ignore entry can name: text-like channels, forums and categories. */
const PLACE_TYPES = [
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildForum,
  ChannelType.GuildMedia,
  ChannelType.GuildCategory,
  ChannelType.GuildVoice,
  ChannelType.GuildStageVoice,
] as const;
const LOG_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;

const stamp = (entry: { changedBy: string | null; changedAt: string | null }) =>
  entry.changedBy && entry.changedAt ? ` — <@${entry.changedBy}> <t:${Math.floor(Date.parse(entry.changedAt) / 1000)}:R>` : ' — default';

/** Fits a list into an embed field (1,024 characters), saying how many more there are. */
function fieldOf(lines: string[], empty: string): string {
  if (lines.length === 0) return empty;
  const out: string[] = [];
  let length = 0;
  for (const [index, line] of lines.entries()) {
    const more = `… and ${lines.length - index} more`;
    if (length + line.length + 1 + more.length > 1000) {
      out.push(more);
      break;
    }
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

const channelLines = (entries: GuildSettings['blacklist']) => entries.map((entry) => `<#${entry.id}>${stamp(entry)}`);
const blockLines = (settings: GuildSettings) => settings.blocks.map((block) => `${block.kind === 'role' ? `<@&${block.id}>` : `<@${block.id}>`}${block.reason ? ` (${block.reason})` : ''}${stamp(block)}`);

function showEmbed(settings: GuildSettings): EmbedBuilder {
  const { logChannel, requireTag, proxyDelay } = settings;
  return new EmbedBuilder()
    .setTitle('Server settings')
    .setColor(0x5865f2)
    .addFields(
      { name: 'Log channel', value: `${logChannel.channelId ? `<#${logChannel.channelId}>` : 'none'}${stamp(logChannel)}` },
      { name: 'Not logged', value: fieldOf(channelLines(settings.logIgnored), 'none') },
      { name: 'Blacklist (no proxying)', value: fieldOf(channelLines(settings.blacklist), 'none') },
      { name: 'Blocked', value: fieldOf(blockLines(settings), 'nobody') },
      { name: 'Display tag required', value: `${requireTag.enabled ? 'yes' : 'no'}${stamp(requireTag)}` },
      { name: 'Manager roles', value: fieldOf(settings.managerRoles.map((entry) => `<@&${entry.id}>${stamp(entry)}`), 'none (Manage Server only)') },
      { name: 'Proxy delay', value: `${proxyDelay.milliseconds} ms${stamp(proxyDelay)}` },
      { name: 'Log cleanup bots', value: fieldOf(settings.logCleanupBots.map((entry) => `<@${entry.id}>${stamp(entry)}`), 'none') },
    )
    .setFooter({ text: `Revision ${settings.revision}` });
}

interface Change {
  body: Record<string, unknown>;
  done: string;
}

/** What the subcommand changes, or undefined for the read-only ones. */
function changeOf(interaction: ChatInputCommandInteraction, settings: GuildSettings): Change | undefined {
  const group = interaction.options.getSubcommandGroup(false);
  const sub = interaction.options.getSubcommand();
  const listEdit = (key: string, id: string, adding: boolean) => ({ [key]: adding ? { add: [id] } : { remove: [id] } });
  switch (group) {
    case 'blacklist': {
      if (sub === 'list') return undefined;
      const target = interaction.options.getChannel('target', true);
      const adding = sub === 'add';
      return { body: listEdit('blacklist', target.id, adding), done: adding ? `Nothing is proxied in <#${target.id}> from now on${target.type === ChannelType.GuildCategory ? ' (nor in its channels)' : ''}; threads follow their channel. Commands still work there.` : `<#${target.id}> is off the blacklist.` };
    }
    case 'block': {
      if (sub === 'list') return undefined;
      // The option's own value is the id either way; `role` is set when a role was picked.
      const who = interaction.options.get('who', true);
      const id = String(who.value);
      const isRole = who.role !== undefined && who.role !== null;
      const mention = isRole ? `<@&${id}>` : `<@${id}>`;
      if (sub === 'remove') return { body: { blocks: { remove: [id] } }, done: `${mention} is no longer blocked.` };
      const reason = interaction.options.getString('reason');
      return { body: { blocks: { add: [{ id, kind: isRole ? 'role' : 'user', reason }] } }, done: `${mention} does not proxy here from now on. ${isRole ? 'Members with the role are' : 'They are'} told why (at most once a day).` };
    }
    case 'managers': {
      if (sub === 'list') return undefined;
      const role = interaction.options.getRole('role', true);
      const adding = sub === 'add';
      return { body: listEdit('managerRoles', role.id, adding), done: adding ? `Members with <@&${role.id}> may use \`/server\` from now on. Also allow the role to use \`/server\` in Server Settings → Integrations (a bot cannot).` : `<@&${role.id}> is no longer a manager role.` };
    }
    case 'log-cleanup': {
      if (sub === 'list') return undefined;
      const bot = interaction.options.getUser('bot', true);
      const adding = sub === 'add';
      return { body: listEdit('logCleanupBots', bot.id, adding), done: adding ? `<@${bot.id}>’s “message deleted” entries for messages I proxied are removed from now on.` : `<@${bot.id}>’s entries are left alone from now on.` };
    }
  }
  switch (sub) {
    case 'log-channel': {
      const channel = interaction.options.getChannel('channel');
      return { body: { logChannel: channel?.id ?? null }, done: channel ? `Proxied messages are logged in <#${channel.id}> from now on.` : 'Proxied messages are no longer logged.' };
    }
    case 'log-ignore': {
      const channel = interaction.options.getChannel('channel', true);
      const ignored = settings.logIgnored.some((entry) => entry.id === channel.id);
      return { body: listEdit('logIgnored', channel.id, !ignored), done: ignored ? `Messages in <#${channel.id}> are logged again.` : `Messages in <#${channel.id}> are not logged from now on.` };
    }
    case 'require-tag': {
      const enabled = interaction.options.getBoolean('enabled', true);
      return { body: { requireTag: enabled }, done: enabled ? 'Proxied names must carry the system’s display tag from now on; members without one are told what to set.' : 'A display tag is no longer required.' };
    }
    case 'proxy-delay': {
      const milliseconds = interaction.options.getInteger('milliseconds', true);
      return { body: { proxyDelayMs: milliseconds }, done: milliseconds === 0 ? 'Messages are proxied at once.' : `I wait ${milliseconds} ms before proxying; a message deleted meanwhile (by a filter bot) is not proxied.` };
    }
  }
  return undefined;
}

function listAnswer(interaction: ChatInputCommandInteraction, settings: GuildSettings): EmbedBuilder {
  const group = interaction.options.getSubcommandGroup(false);
  const [title, lines, empty] =
    group === 'blacklist' ? ['Blacklist', channelLines(settings.blacklist), 'Nothing is blacklisted.']
    : group === 'block' ? ['Blocked', blockLines(settings), 'Nobody is blocked.']
    : group === 'managers' ? ['Manager roles', settings.managerRoles.map((entry) => `<@&${entry.id}>${stamp(entry)}`), 'No manager roles: Manage Server only.']
    : ['Log cleanup bots', settings.logCleanupBots.map((entry) => `<@${entry.id}>${stamp(entry)}`), 'No logging bots named.'];
  return new EmbedBuilder().setTitle(title).setColor(0x5865f2).setDescription(fieldOf(lines, empty));
}

async function run(interaction: ChatInputCommandInteraction, { api, proxying }: BotContext, reply: Responder): Promise<void> {
  const guildId = interaction.guildId;
  if (!guildId || !interaction.inGuild()) {
    await reply.send({ content: '`/server` works in a server.' });
    return;
  }
  const { settings } = await proxying.servers.fresh(guildId);
  const permission = managePermissionOf(interaction, settings.managerRoles.map((entry) => entry.id));
  if (!permission) {
    await reply.send({ content: 'Only members with **Manage Server**, or a manager role the admins named, can use `/server` here.' });
    return;
  }
  if (interaction.options.getSubcommandGroup(false) === null && interaction.options.getSubcommand() === 'show') {
    await reply.send({ embeds: [showEmbed(settings)] });
    return;
  }
  if (interaction.options.getSubcommandGroup(false) === null && interaction.options.getSubcommand() === 'permissions') {
    // The bot's own permissions, computed by discord.js from the roles and overwrites it holds.
    const guild = interaction.guild ?? (await interaction.client.guilds.fetch(guildId));
    const channels = botChannelPermissions(guild);
    await reply.send({ embeds: [auditEmbed(auditPermissions(channels), channels.length)] });
    return;
  }
  const change = changeOf(interaction, settings);
  if (!change) {
    await reply.send({ embeds: [listAnswer(interaction, settings)] });
    return;
  }
  const updated = await api.editGuildSettings(guildId, { actor: { userId: interaction.user.id, permission }, ...change.body });
  proxying.servers.store(updated);
  await reply.send({ content: updated.revision === settings.revision ? `Nothing to change: that is already so.` : change.done });
}

const listSub = (sub: SlashCommandSubcommandBuilder, what: string) => sub.setName('list').setDescription(`List ${what}`);

export const server = {
  data: new SlashCommandBuilder()
    .setName('server')
    .setDescription('This server’s settings for switchboard (Manage Server or a manager role)')
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .setContexts(InteractionContextType.Guild)
    .addSubcommand((sub) => sub.setName('show').setDescription('Every setting, with who changed it last and when'))
    .addSubcommand((sub) => sub.setName('log-channel').setDescription('Log proxied messages in a channel (no channel: stop logging)').addChannelOption((o) => o.setName('channel').setDescription('Where to log').addChannelTypes(...LOG_TYPES)))
    .addSubcommand((sub) => sub.setName('log-ignore').setDescription('Stop or resume logging a channel (toggles)').addChannelOption((o) => o.setName('channel').setDescription('A channel or category').setRequired(true).addChannelTypes(...PLACE_TYPES)))
    .addSubcommand((sub) => sub.setName('require-tag').setDescription('Require proxied names to carry the system’s display tag').addBooleanOption((o) => o.setName('enabled').setDescription('Required or not').setRequired(true)))
    .addSubcommand((sub) => sub.setName('permissions').setDescription('Every channel where the bot lacks a permission it needs, and the fix'))
    .addSubcommand((sub) => sub.setName('proxy-delay').setDescription('Wait before proxying, so filter bots act first').addIntegerOption((o) => o.setName('milliseconds').setDescription(`0 to ${MAX_PROXY_DELAY_MS}`).setRequired(true).setMinValue(0).setMaxValue(MAX_PROXY_DELAY_MS)))
    .addSubcommandGroup((group) =>
      group
        .setName('blacklist')
        .setDescription('Channels and categories where nothing is proxied')
        .addSubcommand((sub) => sub.setName('add').setDescription('No proxying there').addChannelOption((o) => o.setName('target').setDescription('A channel or category').setRequired(true).addChannelTypes(...PLACE_TYPES)))
        .addSubcommand((sub) => sub.setName('remove').setDescription('Proxying there again').addChannelOption((o) => o.setName('target').setDescription('A channel or category').setRequired(true).addChannelTypes(...PLACE_TYPES)))
        .addSubcommand((sub) => listSub(sub, 'blacklisted channels')),
    )
    .addSubcommandGroup((group) =>
      group
        .setName('block')
        .setDescription('Members or roles who do not proxy here')
        .addSubcommand((sub) => sub.setName('add').setDescription('Stop a member, or a role’s members, proxying here').addMentionableOption((o) => o.setName('who').setDescription('A member or a role').setRequired(true)).addStringOption((o) => o.setName('reason').setDescription('Told to them').setMaxLength(MAX_BLOCK_REASON)))
        .addSubcommand((sub) => sub.setName('remove').setDescription('Let them proxy again').addMentionableOption((o) => o.setName('who').setDescription('A member or a role').setRequired(true)))
        .addSubcommand((sub) => listSub(sub, 'blocks')),
    )
    .addSubcommandGroup((group) =>
      group
        .setName('managers')
        .setDescription('Roles whose members may use /server besides Manage Server')
        .addSubcommand((sub) => sub.setName('add').setDescription('Let a role manage these settings').addRoleOption((o) => o.setName('role').setDescription('The role').setRequired(true)))
        .addSubcommand((sub) => sub.setName('remove').setDescription('Stop a role managing these settings').addRoleOption((o) => o.setName('role').setDescription('The role').setRequired(true)))
        .addSubcommand((sub) => listSub(sub, 'manager roles')),
    )
    .addSubcommandGroup((group) =>
      group
        .setName('log-cleanup')
        .setDescription('Logging bots whose “message deleted” entries for proxied originals are removed')
        .addSubcommand((sub) => sub.setName('add').setDescription('Clean up after a logging bot').addUserOption((o) => o.setName('bot').setDescription('The logging bot').setRequired(true)))
        .addSubcommand((sub) => sub.setName('remove').setDescription('Stop cleaning up after it').addUserOption((o) => o.setName('bot').setDescription('The logging bot').setRequired(true)))
        .addSubcommand((sub) => listSub(sub, 'logging bots')),
    ),
  ephemeral: true,
  fieldWords: { logChannel: 'channel', blacklist: 'target', blocks: 'who', managerRoles: 'role', proxyDelayMs: 'milliseconds', logCleanupBots: 'bot', logIgnored: 'channel' },
  execute: run,
} satisfies SlashCommand;
