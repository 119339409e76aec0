// The private answer that carries a system's export file (/export, and /system delete before it
// deletes anything), or says the file is too large for Discord to take from the bot.
import type { InteractionReplyOptions } from 'discord.js';
import { formatBytes } from './discord-attachment.js';
import { altersInFile, altersNoun } from './import-report.js';

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
