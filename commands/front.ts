// /front alter: push an alter to the front and show its profile.
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';

export const front = {
  data: new SlashCommandBuilder()
    .setName('front')
    .setDescription('Switch who is fronting')
    .addStringOption((o) => o.setName('alter').setDescription('The alter now fronting').setRequired(true).setAutocomplete(true)),
  ephemeral: false,
  async execute(interaction, { api, accounts, alters }, reply) {
    const alter = await requireAlter(interaction, alters, 'alter');
    await accounts.withToken(interaction.user.id, (token) => api.pushFront(token, alter.alterId));
    await reply.send({ content: `**${alterName(alter)}** is now fronting.`, embeds: [alterEmbed(alter)] });
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
