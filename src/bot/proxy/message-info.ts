// "Message info" as moderators and members see it: who sent a proxied message (always), as which
// alter of which system (as their privacy allows the asker).
import type { APIEmbed } from 'discord.js';
import type { MessageInfo } from '../../domain/proxied-message.js';

export function messageInfoEmbed(info: MessageInfo): APIEmbed {
  const alter = info.alter;
  const alterLine = alter
    ? `${alter.displayName ?? alter.username ?? `#${alter.alterId}`}${alter.username && alter.displayName ? ` (\`${alter.username}\`)` : ''}`
    : info.alterDeleted
      ? '*(deleted)*'
      : // Only the owner learns whether an alter is gone; to others a hidden and a deleted one look alike.
        '*(private or deleted)*';
  const system = info.system?.systemName ?? '*(private)*';
  return {
    title: 'Proxied message',
    fields: [
      { name: 'Sent by', value: `<@${info.senderId}> (\`${info.senderId}\`)`, inline: false },
      { name: 'Alter', value: alterLine, inline: true },
      { name: 'System', value: `${system}${info.system?.systemDisplayTag ? ` ${info.system.systemDisplayTag}` : ''} · <@${info.senderId}>`, inline: true },
    ],
    footer: { text: `Message ${info.messageId} · original ${info.originalMessageId}` },
    timestamp: info.timestamp,
  };
}
