// /export: the caller's whole system as a PluralKit-compatible file, sent privately. PluralKit's
// importer accepts it; /import here restores every field (our own under the `switchboard` key).
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { formatBytes } from '../src/bot/imports/discord-attachment.js';
import { altersInFile, altersNoun } from '../src/bot/imports/import-report.js';

export const exportCommand = {
  data: new SlashCommandBuilder().setName('export').setDescription('Download your system as a file (PluralKit-compatible), privately'),
  ephemeral: true,
  async execute(interaction, { api, accounts }, reply) {
    const file = await accounts.withToken(interaction.user.id, (token) => api.exportSystem(token));
    if (file.length > interaction.attachmentSizeLimit) {
      await reply.send({
        content: `Your export is ${formatBytes(file.length)}, more than Discord lets the bot send here (${formatBytes(interaction.attachmentSizeLimit)}). Download it from the API instead: \`GET /v1/users/@me/system/export\`.`,
      });
      return;
    }
    const alters = altersInFile(file);
    const date = new Date().toISOString().slice(0, 10);
    await reply.send({
      content: [
        `Your system${alters === undefined ? '' : ` (${altersNoun(alters)})`} as a PluralKit-compatible file: PluralKit’s \`pk;import\` accepts it, and \`/import\` here restores every field.`,
        'Only you can see this message: save the file now.',
      ].join('\n'),
      files: [{ attachment: file, name: `switchboard-system-${date}.json`, contentType: 'application/json' }],
    });
  },
} satisfies SlashCommand;
