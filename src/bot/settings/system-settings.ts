// The system's settings in words: how proxying behaves (on or off, proxy tags kept, case, pronouns
// in names, the latch timeout, the nickname format) as /system settings sets and shows them, and a
// server's own settings (its display tag, proxying there) as /system server does. The service
// stores some of them as flag bits and milliseconds; nobody types those here.
import { EmbedBuilder, type ChatInputCommandInteraction, type Client, type SlashCommandSubcommandBuilder } from 'discord.js';
import { SystemFlags } from '../../domain/privacy-bits.js';
import { MAX_LATCH_EXPIRATION_MS, type System } from '../../domain/system.js';
import { NAME_MAX } from '../../domain/values.js';
import { clampGraphemes, shortenGraphemes } from '../../domain/proxy/text.js';
import { ApiError } from '../api-client.js';
import { formatDuration, parseDuration } from './durations.js';
import { serverName } from './servers.js';
import { CLEAR } from '../options.js';


/** A flag bit the owner turns on or off, with the option that does it. */
const FLAG_SETTINGS = [
  { option: 'keep-proxy-tags', bit: SystemFlags.keepProxy, description: 'Keep the proxy tags in the re-sent message (default: removed)' },
  { option: 'case-insensitive-tags', bit: SystemFlags.tagsIgnoreCase, description: 'Match proxy tags whatever their case (default: exact case)' },
  { option: 'pronouns-in-name', bit: SystemFlags.showPronouns, description: 'Add the alter’s pronouns to its proxied name' },
] as const;

export const SYSTEM_SETTING_OPTIONS = {
  timezone: 'timezone',
  proxying: 'proxying',
  latchTimeout: 'latch-timeout',
  nicknameFormat: 'nickname-format',
} as const;

/** The service's field names → these options, so its errors name what the user typed. */
export const SYSTEM_SETTING_WORDS = {
  systemTimezone: SYSTEM_SETTING_OPTIONS.timezone,
  disabled: SYSTEM_SETTING_OPTIONS.proxying,
  latchExpiration: SYSTEM_SETTING_OPTIONS.latchTimeout,
  nicknameFormat: SYSTEM_SETTING_OPTIONS.nicknameFormat,
  flags: 'settings',
};

export function addSystemSettingOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  sub.addBooleanOption((o) => o.setName(SYSTEM_SETTING_OPTIONS.proxying).setDescription('Proxy your messages at all (false: the bot leaves them alone everywhere)'));
  for (const { option, description } of FLAG_SETTINGS) sub.addBooleanOption((o) => o.setName(option).setDescription(description));
  sub.addStringOption((o) =>
    o.setName(SYSTEM_SETTING_OPTIONS.latchTimeout).setDescription('How long a latch lasts after your last proxied message: 6h, 90m, never').setMaxLength(40),
  );
  sub.addStringOption((o) =>
    o.setName(SYSTEM_SETTING_OPTIONS.timezone).setDescription('Your time zone, for times you type (/front set when:): Europe/Berlin, America/New_York, UTC').setMaxLength(64),
  );
  sub.addStringOption((o) =>
    o.setName(SYSTEM_SETTING_OPTIONS.nicknameFormat).setDescription('Nickname mode’s nickname: %username% and %display% are replaced').setMinLength(1).setMaxLength(NAME_MAX),
  );
  return sub;
}

/** The edit the options ask for, given the stored system; empty when they change nothing. */
export function systemSettingsPatch(interaction: ChatInputCommandInteraction, current: System): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const proxying = interaction.options.getBoolean(SYSTEM_SETTING_OPTIONS.proxying);
  if (proxying !== null && proxying === current.disabled) patch.disabled = !proxying;
  let flags = current.flags ?? 0;
  for (const { option, bit } of FLAG_SETTINGS) {
    const on = interaction.options.getBoolean(option);
    if (on !== null) flags = on ? flags | bit : flags & ~bit;
  }
  if (flags !== (current.flags ?? 0)) patch.flags = flags;
  const latch = interaction.options.getString(SYSTEM_SETTING_OPTIONS.latchTimeout);
  if (latch !== null) {
    const ms = parseDuration(latch);
    if (ms === undefined) {
      throw new ApiError('problem', 400, 'invalid-duration', `“${clampGraphemes(latch, 40)}” is not a duration: try \`6h\`, \`90m\`, \`1h 30m\` or \`never\`.`, SYSTEM_SETTING_OPTIONS.latchTimeout);
    }
    if (ms > MAX_LATCH_EXPIRATION_MS) {
      throw new ApiError('problem', 400, 'invalid-duration', `A latch lasts at most ${formatDuration(MAX_LATCH_EXPIRATION_MS)}; \`never\` keeps it until you change it.`, SYSTEM_SETTING_OPTIONS.latchTimeout);
    }
    if (ms !== current.latchExpiration) patch.latchExpiration = ms;
  }
  const zone = interaction.options.getString(SYSTEM_SETTING_OPTIONS.timezone);
  if (zone !== null) {
    // UTC is the default: stored as none.
    const wanted = zone.trim().toUpperCase() === 'UTC' ? null : zone.trim();
    if (wanted !== (current.systemTimezone ?? null)) patch.systemTimezone = wanted;
  }
  const format = interaction.options.getString(SYSTEM_SETTING_OPTIONS.nicknameFormat);
  if (format !== null && format !== current.nicknameFormat) patch.nicknameFormat = format;
  return patch;
}

const onOff = (on: boolean) => (on ? 'on' : 'off');
const list = (lines: string[], empty: string) => (lines.length === 0 ? empty : shortenGraphemes(lines.join('\n'), 1024));

/** Every setting of the owner's system in one card, with the command that changes each. */
export function systemSettingsEmbed(system: System, client: Client): EmbedBuilder {
  const flags = system.flags ?? 0;
  const offIn = system.disabledGuilds.map((id) => `• ${serverName(client, id)}`);
  const tags = Object.entries(system.displayTagMap).map(([id, tag]) => `• ${serverName(client, id)}: ${tag}`);
  const latch = system.latchExpiration ?? 0;
  return new EmbedBuilder()
    .setTitle('Your settings')
    .setColor(0x5865f2)
    .addFields(
      { name: 'Proxying', value: system.disabled ? 'off everywhere' : 'on', inline: true },
      { name: 'Proxy tags in messages', value: flags & SystemFlags.keepProxy ? 'kept' : 'removed', inline: true },
      { name: 'Proxy tag case', value: flags & SystemFlags.tagsIgnoreCase ? 'ignored' : 'must match', inline: true },
      { name: 'Pronouns in names', value: onOff((flags & SystemFlags.showPronouns) !== 0), inline: true },
      { name: 'Time zone', value: system.systemTimezone ?? 'UTC', inline: true },
      { name: 'Latch timeout', value: latch === 0 ? 'never (a latch lasts until changed)' : formatDuration(latch), inline: true },
      { name: 'Nickname format', value: `\`${(system.nicknameFormat ?? '').replaceAll('`', 'ˋ')}\``, inline: true },
      { name: 'Messages about other apps’ changes', value: onOff(system.systemOperationDM === true), inline: true },
      { name: 'Display tag', value: system.systemDisplayTag ?? 'none', inline: true },
      { name: 'Display tag per server', value: list(tags, 'none') },
      { name: 'Proxying off in', value: list(offIn, 'no server') },
    )
    .setFooter({ text: 'Change: /system settings · per server: /system server · profile: /system edit · privacy: /system privacy' });
}

export const SERVER_SETTING_OPTIONS = { displayTag: 'display-tag', proxying: 'proxying' } as const;

export function addServerSettingOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub
    .addStringOption((o) => o.setName(SERVER_SETTING_OPTIONS.displayTag).setDescription('Your display tag in that server (- for your usual one)').setMaxLength(NAME_MAX))
    .addBooleanOption((o) => o.setName(SERVER_SETTING_OPTIONS.proxying).setDescription('Proxy your messages in that server'));
}

/** The edit of the system's per-server settings for `serverId` the options ask for; empty when none. */
export function serverSettingsPatch(interaction: ChatInputCommandInteraction, current: System, serverId: string): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const tag = interaction.options.getString(SERVER_SETTING_OPTIONS.displayTag);
  if (tag !== null) {
    const others = Object.entries(current.displayTagMap).filter(([id]) => id !== serverId);
    const map = Object.fromEntries(tag === CLEAR ? others : [...others, [serverId, tag]]);
    const stored = current.displayTagMap[serverId];
    if (tag === CLEAR ? stored !== undefined : stored !== tag) patch.displayTagMap = map;
  }
  const proxying = interaction.options.getBoolean(SERVER_SETTING_OPTIONS.proxying);
  if (proxying !== null && proxying === current.disabledGuilds.includes(serverId)) {
    patch.disabledGuilds = proxying ? current.disabledGuilds.filter((id) => id !== serverId) : [...current.disabledGuilds, serverId];
  }
  return patch;
}

/** The system's settings for one server, as a line each. */
export function serverSettingsText(system: System, serverId: string, client: Client): string {
  const tag = system.displayTagMap[serverId];
  const name = serverName(client, serverId);
  return [
    `**${name}**`,
    `Display tag: ${tag !== undefined ? tag : `${system.systemDisplayTag ?? 'none'} (your usual one)`}`,
    `Proxying: ${system.disabledGuilds.includes(serverId) ? 'off in this server' : system.disabled ? 'off everywhere (`/system settings proxying:true`)' : 'on'}`,
  ].join('\n');
}
