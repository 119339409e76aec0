// /link: connect this Discord account to switchboard (OAuth device flow + one-time login link).
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';

export const link = {
  data: new SlashCommandBuilder().setName('link').setDescription('Connect your Discord account to switchboard'),
  ephemeral: true,
  async execute(interaction, { linkFlow }, reply) {
    await linkFlow.start(interaction, reply);
  },
} satisfies SlashCommand;
