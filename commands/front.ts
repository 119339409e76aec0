// /front alter: push an alter to the front and show its profile.
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';
import type { ApiClient } from '../src/bot/api-client.js';
import type { LinkedAccounts } from '../src/bot/linked-accounts.js';
import { nicknameFor } from '../src/bot/proxy/nickname.js';
import type { Alter } from '../src/domain/alter.js';

/** Nickname-mode alters: the member's server nickname follows the front (a sentence for the reply). */
async function setNickname(interaction: ChatInputCommandInteraction, api: ApiClient, accounts: LinkedAccounts, alter: Alter): Promise<string> {
  const guild = interaction.guild;
  if (!guild) return '';
  const system = await accounts.withToken(interaction.user.id, (token) => api.getSystem(token, '@me'));
  const nickname = nicknameFor(system.nicknameFormat ?? '%display%', alter);
  try {
    await guild.members.edit(interaction.user.id, { nick: nickname });
    return ` Your nickname here is now **${nickname}**.`;
  } catch {
    // Missing Manage Nicknames, or the member outranks the bot (server owners always do).
    return ' I could not change your nickname here (I need **Manage Nicknames**, and I can never rename the server owner).';
  }
}

export const front = {
  data: new SlashCommandBuilder()
    .setName('front')
    .setDescription('Switch who is fronting')
    .addStringOption((o) => o.setName('alter').setDescription('The alter now fronting').setRequired(true).setAutocomplete(true)),
  ephemeral: false,
  async execute(interaction, { api, accounts, alters }, reply) {
    const alter = await requireAlter(interaction, alters, 'alter');
    await accounts.withToken(interaction.user.id, (token) => api.pushFront(token, alter.alterId));
    const nickname = alter.alterMode === 'webhook' ? '' : await setNickname(interaction, api, accounts, alter);
    await reply.send({ content: `**${alterName(alter)}** is now fronting.${nickname}`, embeds: [alterEmbed(alter)] });
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
