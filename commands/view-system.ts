// "View system" (user context menu): a member's system and alters, privacy applied, shown only to
// the moderator who asked.
import { ApplicationCommandType, ContextMenuCommandBuilder, type EmbedBuilder } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { UserMenuCommand } from '../src/bot/command.js';
import { alterListEmbed, systemEmbed } from '../src/bot/embeds.js';

const SHOWN_ALTERS = 25;

export const viewSystem = {
  data: new ContextMenuCommandBuilder().setName('View system').setType(ApplicationCommandType.User),
  async execute(interaction, { api, accounts }, reply) {
    const target = interaction.targetUser.id === interaction.user.id ? '@me' : interaction.targetUser.id;
    const embeds: EmbedBuilder[] = await accounts.withToken(interaction.user.id, async (token) => {
      const system = await api.getSystem(token, target);
      const front = await api.getFront(token, target).catch(() => undefined);
      const shown = [systemEmbed(system, front)];
      try {
        const alters = await api.listAlters(token, target, { skip: 0, max: SHOWN_ALTERS + 1 });
        shown.push(alterListEmbed(alters.slice(0, SHOWN_ALTERS), `Alters of ${interaction.targetUser.username}`, { skip: 0, hasMore: alters.length > SHOWN_ALTERS }));
      } catch (error) {
        if (!(error instanceof ApiError && error.type === 'alters-private')) throw error;
      }
      return shown;
    });
    await reply.send({ embeds });
  },
} satisfies UserMenuCommand;
