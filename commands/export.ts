// /export: the caller's whole system as a PluralKit-compatible file, sent privately. PluralKit's
// importer accepts it; /import here restores every field (our own under the `switchboard` key).
// `/system delete` sends the same answer first (exportAnswer).
import { SlashCommandBuilder, type InteractionReplyOptions } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { formatBytes } from '../src/bot/imports/discord-attachment.js';
import { altersInFile, altersNoun } from '../src/bot/imports/import-report.js';

/** The private answer carrying the export file, or saying it is too large to send here. */
export function exportAnswer(file: Buffer, sizeLimit: number): Pick<InteractionReplyOptions, 'content' | 'files'> & { sent: boolean } {
  if (file.length > sizeLimit) {
    return {
      sent: false,
      content: `Your export is ${formatBytes(file.length)}, more than Discord lets the bot send here (${formatBytes(sizeLimit)}). Download it from the API instead: \`GET /v1/users/@me/system/export\`.`,
    };
  }
  const alters = altersInFile(file);
  const date = new Date().toISOString().slice(0, 10);
  return {
    sent: true,
    content: [
      `Your system${alters === undefined ? '' : ` (${altersNoun(alters)})`} as a PluralKit-compatible file: PluralKit’s \`pk;import\` accepts it, and \`/import\` here restores every field.`,
      'Only you can see this message: save the file now.',
    ].join('\n'),
    files: [{ attachment: file, name: `switchboard-system-${date}.json`, contentType: 'application/json' }],
  };
}

export const exportCommand = {
  data: new SlashCommandBuilder().setName('export').setDescription('Download your system as a file (PluralKit-compatible), privately'),
  ephemeral: true,
  async execute(interaction, { api, accounts }, reply) {
    const file = await accounts.withToken(interaction.user.id, (token) => api.exportSystem(token));
    const answer = exportAnswer(file, interaction.attachmentSizeLimit);
    await reply.send({ content: answer.content, ...(answer.files ? { files: answer.files } : {}) });
  },
} satisfies SlashCommand;
