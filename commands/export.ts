// /export: the caller's whole system as a PluralKit-compatible file, sent privately. PluralKit's
// importer accepts it; /import here restores every field (our own under the `switchboard` key).
// `/system delete` sends the same answer first (src/bot/imports/export-answer.ts).
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { exportAnswer } from '../src/bot/imports/export-answer.js';

export const exportCommand = {
  data: new SlashCommandBuilder().setName('export').setDescription('Download your system as a file (PluralKit-compatible), privately'),
  ephemeral: true,
  async execute(interaction, { api, accounts }, reply) {
    const file = await accounts.withToken(interaction.user.id, (token) => api.exportSystem(token));
    const answer = exportAnswer(file, interaction.attachmentSizeLimit);
    await reply.send({ content: answer.content, ...(answer.files ? { files: answer.files } : {}) });
  },
} satisfies SlashCommand;
