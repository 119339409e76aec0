// "Edit proxied message" (message context menu): its sender gets a form with the text and the
// webhook edits the message in place (a webhook message keeps its alter, name and avatar).
import { ActionRowBuilder, ApplicationCommandType, ContextMenuCommandBuilder, ModalBuilder, Routes, TextInputBuilder, TextInputStyle, makeURLSearchParams } from 'discord.js';
import { clampGraphemes } from '../src/domain/proxy/text.js';
import { ApiError } from '../src/bot/api-client.js';
import type { MessageMenuCommand } from '../src/bot/command.js';
import { ownProxied } from '../src/bot/proxy/own-message.js';

const PREFIX = 'proxy-edit:';
const FIELD = 'content';

export const editMessage = {
  data: new ContextMenuCommandBuilder().setName('Edit proxied message').setType(ApplicationCommandType.Message),
  kind: 'message',
  async execute(interaction, { api, proxying }, reply) {
    const target = interaction.targetMessage;
    await ownProxied({ api, recent: proxying.recent, webhooks: proxying.webhooks }, target, interaction.user.id);
    const modal = new ModalBuilder()
      .setCustomId(`${PREFIX}${target.channelId}:${target.id}`)
      .setTitle('Edit proxied message')
      .addComponents(
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder().setCustomId(FIELD).setLabel('Message').setStyle(TextInputStyle.Paragraph).setMaxLength(2000).setRequired(true).setValue(clampGraphemes(target.content, 2000) || ' '),
        ),
      );
    if (!(await reply.showModal(modal))) await reply.send({ content: 'That took too long; try again.' });
  },
  modal: {
    prefix: PREFIX,
    async submit(interaction, { api, proxying }, reply) {
      const [channelId, messageId] = interaction.customId.slice(PREFIX.length).split(':');
      const channel = channelId ? await interaction.client.channels.fetch(channelId).catch(() => null) : null;
      if (!channel?.isTextBased() || !messageId) throw new ApiError('problem', 404, 'unknown-message', 'That message is gone.');
      const target = await channel.messages.fetch(messageId).catch(() => null);
      if (!target) throw new ApiError('problem', 404, 'unknown-message', 'That message is gone.');
      const own = await ownProxied({ api, recent: proxying.recent, webhooks: proxying.webhooks }, target, interaction.user.id);
      const content = interaction.fields.getTextInputValue(FIELD).trim();
      if (content === '') throw new ApiError('problem', 400, 'validation', 'A message cannot be empty; delete it instead.');
      await proxying.webhookRest.patch(Routes.webhookMessage(own.webhook.id, own.webhook.token, target.id), {
        body: { content, allowed_mentions: { parse: [] } },
        query: makeURLSearchParams<{ thread_id?: string }>(own.threadId ? { thread_id: own.threadId } : {}),
        auth: false,
      });
      await reply.send({ content: 'Edited.' });
    },
  },
} satisfies MessageMenuCommand;
