// "Message info" (message context menu): who sent a proxied message, as which alter of which
// system. Anyone may ask; the sending account is always shown (moderation needs it), the rest as
// the system's privacy allows the asker. Answered privately.
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { MessageMenuCommand } from '../src/bot/command.js';
import { messageInfoEmbed } from '../src/bot/proxy/message-info.js';
import { messageInfoFor } from '../src/bot/proxy/reactions.js';

export const messageInfo = {
  data: new ContextMenuCommandBuilder().setName('Message info').setType(ApplicationCommandType.Message),
  kind: 'message',
  async execute(interaction, { api, accounts }, reply) {
    const target = interaction.targetMessage;
    if (!target.webhookId) throw new ApiError('problem', 404, 'unknown-message', 'That is not a proxied message.');
    const info = await messageInfoFor({ api, accounts }, target.id, interaction.user.id);
    await reply.send({ embeds: [messageInfoEmbed(info)] });
  },
} satisfies MessageMenuCommand;
