// "Reproxy message" (message context menu): its sender re-sends one of their proxied messages of the
// last hour as another alter. A context menu has no options, so a form asks which alter (a username
// or display name, as every `alter` option also takes); /reproxy message:<link> does the same.
import { ActionRowBuilder, ApplicationCommandType, ContextMenuCommandBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { MessageMenuCommand } from '../src/bot/command.js';
import { namedTarget } from '../src/bot/proxy/reproxy-target.js';
import { fetchNamed, reproxyAs } from './reproxy.js';

const PREFIX = 'reproxy:';
const FIELD = 'alter';

export const reproxyMessage = {
  data: new ContextMenuCommandBuilder().setName('Reproxy message').setType(ApplicationCommandType.Message),
  kind: 'message',
  async execute(interaction, { api, accounts, proxying }, reply) {
    const target = interaction.targetMessage;
    // Refused before the form: not ours, not theirs, or too old.
    await namedTarget({ api, accounts, recent: proxying.recent, webhooks: proxying.webhooks }, target, interaction.user.id);
    const modal = new ModalBuilder()
      .setCustomId(`${PREFIX}${target.channelId}:${target.id}`)
      .setTitle('Reproxy message')
      .addComponents(
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder().setCustomId(FIELD).setLabel('As which alter? (username or name)').setStyle(TextInputStyle.Short).setMaxLength(100).setRequired(true),
        ),
      );
    if (!(await reply.showModal(modal))) await reply.send({ content: 'That took too long; try again.' });
  },
  modal: {
    prefix: PREFIX,
    async submit(interaction, context, reply) {
      const { api, accounts, alters, proxying } = context;
      const [channelId, messageId] = interaction.customId.slice(PREFIX.length).split(':');
      if (!channelId || !messageId || !interaction.guildId) throw new ApiError('problem', 404, 'unknown-message', 'That message is gone.');
      const typed = interaction.fields.getTextInputValue(FIELD).trim();
      const chosen = await alters.resolve(interaction.user.id, typed);
      if (!chosen) throw new ApiError('problem', 404, 'unknown-alter', `No alter called “${typed.slice(0, 100)}” in your system.`);
      const source = await fetchNamed(interaction, `https://discord.com/channels/${interaction.guildId}/${channelId}/${messageId}`);
      const target = await namedTarget({ api, accounts, recent: proxying.recent, webhooks: proxying.webhooks }, source, interaction.user.id);
      await reply.send({ content: await reproxyAs(interaction, context, target, chosen, source) });
    },
  },
} satisfies MessageMenuCommand;
