// "Message info" (message context menu): who sent a proxied message, under which name, as which
// alter of which system. Anyone may ask; the sending account and the name it was sent under are
// always shown (moderation needs them, and the channel saw the name), the profiles as the system's
// privacy allows the asker. Answered privately.
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
    await reply.send({ embeds: [messageInfoEmbed(info, target.author.username)] });
  },
} satisfies MessageMenuCommand;
