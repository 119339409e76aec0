// An alter's proxying settings in words: the proxy avatar (the avatar its proxied messages use
// when it should differ from the profile's), how it proxies (webhook, nickname or both), and its
// name and avatar in one server, as /alter edit and /alter server set them and the owner's card
// shows them.
import type { ChatInputCommandInteraction, Client, SlashCommandSubcommandBuilder } from 'discord.js';
import { ALTER_MODES, type Alter } from '../../domain/alter.js';
import { NAME_MAX, URL_MAX } from '../../domain/values.js';
import { serverName } from './servers.js';
import { CLEAR } from '../options.js';


export const ALTER_PROXY_OPTIONS = { proxyAvatar: 'proxy-avatar', proxyMode: 'proxy-mode' } as const;

const MODE_WORDS: Record<(typeof ALTER_MODES)[number], string> = {
  webhook: 'messages re-sent as the alter',
  nickname: 'your nickname changed to the alter’s',
  both: 'messages re-sent and nickname changed',
};

/** The service's field names → these options. */
export const ALTER_PROXY_WORDS = { webhookAvatarUrl: ALTER_PROXY_OPTIONS.proxyAvatar, alterMode: ALTER_PROXY_OPTIONS.proxyMode };

export function addAlterProxyOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub
    .addStringOption((o) =>
      o.setName(ALTER_PROXY_OPTIONS.proxyAvatar).setDescription('Avatar URL for proxied messages, if not the profile’s (- to clear)').setMaxLength(URL_MAX),
    )
    .addStringOption((o) =>
      o
        .setName(ALTER_PROXY_OPTIONS.proxyMode)
        .setDescription('How it proxies')
        .addChoices(ALTER_MODES.map((mode) => ({ name: `${mode}: ${MODE_WORDS[mode]}`, value: mode }))),
    );
}

/** The part of an /alter edit these options ask for. */
export function alterProxyPatch(interaction: ChatInputCommandInteraction): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  const avatar = interaction.options.getString(ALTER_PROXY_OPTIONS.proxyAvatar);
  if (avatar !== null) patch.webhookAvatarUrl = avatar === CLEAR ? null : avatar;
  const mode = interaction.options.getString(ALTER_PROXY_OPTIONS.proxyMode);
  if (mode !== null) patch.alterMode = mode;
  return patch;
}

export const ALTER_SERVER_OPTIONS = { name: 'name', avatar: 'avatar' } as const;

export function addAlterServerOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub
    .addStringOption((o) => o.setName(ALTER_SERVER_OPTIONS.name).setDescription('Its name in that server (- for its usual one)').setMaxLength(NAME_MAX))
    .addStringOption((o) => o.setName(ALTER_SERVER_OPTIONS.avatar).setDescription('Its avatar URL in that server (- for its usual one)').setMaxLength(URL_MAX));
}

/** The edit of an alter's name and avatar in `serverId` the options ask for; empty when none. */
export function alterServerPatch(interaction: ChatInputCommandInteraction, alter: Alter, serverId: string): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const name = interaction.options.getString(ALTER_SERVER_OPTIONS.name);
  const names = alter.nameMap ?? [];
  const storedName = names.find((entry) => entry.server === serverId)?.name;
  if (name !== null && (name === CLEAR ? storedName !== undefined : storedName !== name)) {
    const others = names.filter((entry) => entry.server !== serverId);
    patch.nameMap = name === CLEAR ? others : [...others, { server: serverId, name }];
  }
  const avatar = interaction.options.getString(ALTER_SERVER_OPTIONS.avatar);
  const avatars = alter.avatarUrlMap ?? {};
  const storedAvatar = avatars[serverId];
  if (avatar !== null && (avatar === CLEAR ? storedAvatar !== undefined : storedAvatar !== avatar)) {
    const others = Object.entries(avatars).filter(([id]) => id !== serverId);
    patch.avatarUrlMap = Object.fromEntries(avatar === CLEAR ? others : [...others, [serverId, avatar]]);
  }
  return patch;
}

/** The owner's card's "Proxying" lines: mode, proxy avatar, per-server names and avatars. */
export function alterProxyingText(alter: Alter, client?: Client): string {
  const lines = [`Mode: ${alter.alterMode ?? 'webhook'} (${MODE_WORDS[alter.alterMode ?? 'webhook']})`];
  if (alter.webhookAvatarUrl) lines.push(`Proxy avatar: ${alter.webhookAvatarUrl}`);
  const servers = new Set([...(alter.nameMap ?? []).map((entry) => entry.server), ...Object.keys(alter.avatarUrlMap ?? {})]);
  for (const id of servers) {
    const name = (alter.nameMap ?? []).find((entry) => entry.server === id)?.name;
    const avatar = alter.avatarUrlMap?.[id];
    const parts = [name ? `name ${name}` : undefined, avatar ? 'own avatar' : undefined].filter(Boolean).join(', ');
    lines.push(`In ${client ? serverName(client, id) : `server ${id}`}: ${parts}`);
  }
  return lines.join('\n');
}
