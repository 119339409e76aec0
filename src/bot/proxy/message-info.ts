// "Message info" as moderators and members see it: the name the message was sent under, who sent it
// (always: moderation needs both, and everyone in the channel saw the name), when, and a link to it;
// then the alter's and the system's profiles as their privacy allows the asker.
import { escapeMarkdown, messageLink, time, TimestampStyles, type APIEmbed } from 'discord.js';
import type { MessageInfo } from '../../domain/proxied-message.js';

/**
 * `shownName` is the name Discord shows on the message itself (the webhook message's author), for
 * records made before the service kept the name.
 */
export function messageInfoEmbed(info: MessageInfo, shownName?: string): APIEmbed {
  const alter = info.alter;
  const sentAs = info.proxiedName ?? shownName;
  const alterLine = info.systemDeleted
    ? '*(system deleted)*'
    : alter
      ? `${alter.displayName ?? alter.username ?? `#${alter.alterId}`}${alter.username && alter.displayName ? ` (\`${alter.username}\`)` : ''}`
      : info.alterDeleted
        ? '*(deleted)*'
        : info.alterId !== null
          ? `#${info.alterId}`
          : // Only the owner learns whether an alter is gone; to others a hidden and a deleted one look alike.
            '*(profile private, or deleted)*';
  // A deleted system's records keep the sender: moderation still acts on the account.
  const system = info.systemDeleted ? '*(deleted)*' : (info.system?.systemName ?? '*(private)*');
  const sentAt = new Date(info.timestamp);
  return {
    title: 'Proxied message',
    fields: [
      { name: 'Sent as', value: sentAs ? `**${escapeMarkdown(sentAs)}**` : '*(unknown)*', inline: false },
      { name: 'Sent by', value: `<@${info.senderId}> (\`${info.senderId}\`)`, inline: false },
      { name: 'Sent', value: `${time(sentAt, TimestampStyles.LongDateTime)} · [jump to message](${messageLink(info.channelId, info.messageId, info.guildId)})`, inline: false },
      { name: 'Alter', value: alterLine, inline: true },
      { name: 'System', value: `${system}${info.system?.systemDisplayTag ? ` ${info.system.systemDisplayTag}` : ''} · <@${info.senderId}>`, inline: true },
    ],
    footer: { text: `Message ${info.messageId} · original ${info.originalMessageId}` },
    timestamp: info.timestamp,
  };
}
