// Attachments are downloaded and re-uploaded with the proxied message, within what the server lets
// a bot upload (10 MiB, 50 MiB at boost level 2, 100 MiB at level 3); larger ones are named so the
// sender can be told, and the message is proxied without them.
import { GuildPremiumTier, type Message, type RawFile } from 'discord.js';

const MIB = 1024 * 1024;

export function uploadLimit(tier: GuildPremiumTier): number {
  if (tier === GuildPremiumTier.Tier3) return 100 * MIB;
  if (tier === GuildPremiumTier.Tier2) return 50 * MIB;
  return 10 * MIB;
}

export async function downloadAttachments(message: Message<true>): Promise<{ files: RawFile[]; tooBig: string[] }> {
  const limit = uploadLimit(message.guild.premiumTier);
  const files: RawFile[] = [];
  const tooBig: string[] = [];
  let total = 0;
  for (const attachment of message.attachments.values()) {
    if (attachment.size > limit || total + attachment.size > limit) {
      tooBig.push(attachment.name);
      continue;
    }
    const response = await fetch(attachment.url, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`attachment ${attachment.name}: HTTP ${response.status}`);
    const data = Buffer.from(await response.arrayBuffer());
    total += data.length;
    files.push({ name: attachment.name, data, ...(attachment.contentType ? { contentType: attachment.contentType } : {}) });
  }
  return { files, tooBig };
}
