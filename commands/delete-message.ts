// "Delete proxied message" (message context menu): its sender removes it (as ❌ does).
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import type { MessageMenuCommand } from '../src/bot/command.js';
import { ownProxied } from '../src/bot/proxy/own-message.js';
import { deleteProxied } from '../src/bot/proxy/reactions.js';

export const deleteMessage = {
  data: new ContextMenuCommandBuilder().setName('Delete proxied message').setType(ApplicationCommandType.Message),
  kind: 'message',
  async execute(interaction, { api, proxying }, reply) {
    const target = interaction.targetMessage;
    await ownProxied({ api, recent: proxying.recent, webhooks: proxying.webhooks }, target, interaction.user.id);
    await deleteProxied(proxying.webhookRest, proxying.recent, target);
    await reply.send({ content: 'Deleted.' });
  },
} satisfies MessageMenuCommand;
