// What the message path needs of a server's rules besides the pure decision (domain/guild-rules.ts):
// where a message is, in the rules' terms, and what a member is told when a rule stops their
// message. The wording names who set a block and why, so a block is never silent.
import type { Channel, Message } from 'discord.js';
import type { MessagePlace, ProxyVerdict } from '../../domain/guild-rules.js';

/** A channel, a thread's parent, and the category (of the parent, for a thread). */
export function placeOfChannel(channel: Channel): MessagePlace {
  if (channel.isThread()) {
    return { channelId: channel.id, parentId: channel.parentId, categoryId: channel.parent?.parentId ?? null };
  }
  return { channelId: channel.id, parentId: null, categoryId: 'parentId' in channel ? (channel.parentId ?? null) : null };
}

/** Where a message is, in the rules' terms. */
export const placeOf = (message: Message<true>): MessagePlace => placeOfChannel(message.channel);

export function roleIdsOf(message: Message<true>): string[] {
  return message.member ? [...message.member.roles.cache.keys()] : [];
}

/** The private note for a refused message. */
export function refusalText(verdict: Exclude<ProxyVerdict, { allowed: true }>, where: string, channelId: string): string {
  switch (verdict.reason) {
    case 'blacklisted':
      return `Your message in <#${channelId}> was not proxied: the admins of **${where}** turned proxying off ${verdict.targetId === channelId ? 'in that channel' : `in <#${verdict.targetId}>, which contains it`}. Commands still work there.`;
    case 'blocked': {
      const who = verdict.block.kind === 'role' ? `members with the <@&${verdict.block.id}> role` : 'you';
      const by = verdict.block.changedBy ? ` by <@${verdict.block.changedBy}>` : '';
      const reason = verdict.block.reason ? ` Reason: ${verdict.block.reason}` : ' No reason was given.';
      return `Your messages are not proxied in **${where}**: ${who} may not proxy there (set${by}).${reason}`;
    }
    case 'tag-required':
      return `Your message was not proxied: **${where}** requires proxied names to carry your system’s display tag. Set one with \`/system edit display-tag:\` (a tag for this server only counts too), then try again.`;
  }
}
