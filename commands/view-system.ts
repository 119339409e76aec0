// "View system" (user context menu): a member's system and alters, privacy applied, shown only to
// the moderator who asked. Needs no link: a moderator who never linked sees what the member made
// public (through the bot's own client); a linked one reads with their own token.
import { ApplicationCommandType, ContextMenuCommandBuilder, type EmbedBuilder } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { UserMenuCommand } from '../src/bot/command.js';
import { alterListEmbed, systemEmbed } from '../src/bot/embeds.js';
import { targetFor } from '../src/bot/target.js';

const SHOWN_ALTERS = 25;

export const viewSystem = {
  data: new ContextMenuCommandBuilder().setName('View system').setType(ApplicationCommandType.User),
  async execute(interaction, { api, accounts }, reply) {
    const target = targetFor(interaction.user.id, interaction.targetUser.id);
    const embeds: EmbedBuilder[] = await accounts.asViewer(interaction.user.id, target, async (token) => {
      const system = await api.getSystem(token, target);
      const fronters = await api.currentFront(token, target).catch(() => []);
      const shown = [systemEmbed(system, fronters, { owner: target === '@me' })];
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
