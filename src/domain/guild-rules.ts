// The server's rules beside the proxy engine: may a message the engine would proxy be proxied in
// this place, by this member, under this name; and is it logged, and where. Pure: the bot hands in
// the settings and what Discord told it about the message.
//
// A place is the message's channel and what contains it: a thread's (or forum post's) parent
// channel, and that channel's category. The blacklist and the log-ignore list match any of them,
// so threads follow their parent and a category covers its channels.
import type { GuildBlock, GuildSettingsDocument } from './guild.js';

export interface MessagePlace {
  /** Where the message is: a thread's own id for a thread or forum post. */
  channelId: string;
  /** A thread's parent channel; null for a message in a channel. */
  parentId: string | null;
  /** The category of the channel (of the parent for a thread); null when there is none. */
  categoryId: string | null;
}

export interface MessageSender {
  userId: string;
  roleIds: readonly string[];
}

export interface ProxiedName {
  /** The name the webhook would send under. */
  name: string;
  /** The display tags that count: the system's tag for this server, and its global one. */
  displayTags: readonly (string | null)[];
}

export type ProxyVerdict =
  | { allowed: true }
  | { allowed: false; reason: 'blacklisted'; targetId: string }
  | { allowed: false; reason: 'blocked'; block: GuildBlock }
  | { allowed: false; reason: 'tag-required' };

/** The settings in the shape the message path asks them: set lookups, made once per revision. */
export interface CompiledGuildRules {
  blacklist: ReadonlySet<string>;
  logIgnored: ReadonlySet<string>;
  userBlocks: ReadonlyMap<string, GuildBlock>;
  roleBlocks: ReadonlyMap<string, GuildBlock>;
  requireTag: boolean;
  logChannelId: string | null;
  proxyDelayMs: number;
}

export function compileGuildRules(settings: GuildSettingsDocument): CompiledGuildRules {
  return {
    blacklist: new Set(settings.blacklist.map((entry) => entry.id)),
    logIgnored: new Set(settings.logIgnored.map((entry) => entry.id)),
    userBlocks: new Map(settings.blocks.filter((block) => block.kind === 'user').map((block) => [block.id, block])),
    roleBlocks: new Map(settings.blocks.filter((block) => block.kind === 'role').map((block) => [block.id, block])),
    requireTag: settings.requireTag.enabled,
    logChannelId: settings.logChannel.channelId,
    proxyDelayMs: settings.proxyDelay.milliseconds,
  };
}

/** The ids of the place, innermost first. */
function idsOf(place: MessagePlace): string[] {
  const ids = [place.channelId];
  if (place.parentId !== null) ids.push(place.parentId);
  if (place.categoryId !== null) ids.push(place.categoryId);
  return ids;
}

/** Whether a name carries one of the display tags (zero-width spaces the webhook name adds are ignored). */
export function carriesDisplayTag(name: string, displayTags: readonly (string | null)[]): boolean {
  const plain = name.replaceAll('\u200b', '');
  return displayTags.some((tag) => {
    const trimmed = tag?.trim();
    return trimmed !== undefined && trimmed !== '' && plain.includes(trimmed);
  });
}

/**
 * Whether the message may be proxied here. The blacklist comes first (it concerns the place, not
 * the member), then a block of the member, then one of their roles (the first in the member's role
 * order), then the tag requirement.
 */
export function mayProxyHere(rules: CompiledGuildRules, place: MessagePlace, sender: MessageSender, proxied: ProxiedName): ProxyVerdict {
  for (const id of idsOf(place)) if (rules.blacklist.has(id)) return { allowed: false, reason: 'blacklisted', targetId: id };
  const userBlock = rules.userBlocks.get(sender.userId);
  if (userBlock) return { allowed: false, reason: 'blocked', block: userBlock };
  if (rules.roleBlocks.size > 0) {
    for (const roleId of sender.roleIds) {
      const block = rules.roleBlocks.get(roleId);
      if (block) return { allowed: false, reason: 'blocked', block };
    }
  }
  if (rules.requireTag && !carriesDisplayTag(proxied.name, proxied.displayTags)) return { allowed: false, reason: 'tag-required' };
  return { allowed: true };
}

/** The channel a proxied message in this place is logged to, or null (no log channel, or the place is ignored). */
export function logChannelFor(rules: CompiledGuildRules, place: MessagePlace): string | null {
  if (rules.logChannelId === null) return null;
  for (const id of idsOf(place)) if (rules.logIgnored.has(id)) return null;
  return rules.logChannelId;
}

/**
 * The key under which a member is told why a message was not proxied, so that they are told at
 * most once a day per key: a blacklisted place per channel (a thread counts as its parent), a
 * block and the tag requirement per server.
 */
export function noticeKeyFor(verdict: Exclude<ProxyVerdict, { allowed: true }>, guildId: string, place: MessagePlace): string {
  switch (verdict.reason) {
    case 'blacklisted':
      return `blacklisted:${place.parentId ?? place.channelId}`;
    case 'blocked':
      return `blocked:${guildId}`;
    case 'tag-required':
      return `tag-required:${guildId}`;
  }
}
