// The paged switch history: an embed of one page and previous/next buttons, like the alter list.
// Buttons carry the system's owner and the offset (`fronts:<userId>:<skip>`), and each click reads
// with the clicker's own token, so privacy always applies to whoever is looking.
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { BotContext } from './command.js';
import { SWITCHES_PER_PAGE, frontHistoryEmbed } from './embeds.js';
import type { ReplyPayload } from './responder.js';
import { ownerOf } from './target.js';

export const FRONT_PAGE_PREFIX = 'fronts:';

export function parseFrontPageId(customId: string): { ownerId: string; skip: number } | undefined {
  const match = /^fronts:(\d{17,20}):(\d{1,7})$/.exec(customId);
  return match ? { ownerId: match[1] as string, skip: Number(match[2]) } : undefined;
}

/** `target` is '@me' or a user id; `viewerId` is who is looking. */
export async function frontHistoryPage({ api, accounts }: BotContext, viewerId: string, target: string, skip: number, title: string): Promise<ReplyPayload> {
  const page = await accounts.asViewer(viewerId, target, (token) => api.frontHistory(token, target, { skip, max: SWITCHES_PER_PAGE }));
  const hasMore = page.next !== null;
  const ownerId = ownerOf(target, viewerId);
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${FRONT_PAGE_PREFIX}${ownerId}:${Math.max(0, skip - SWITCHES_PER_PAGE)}`)
      .setLabel('Previous')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(skip === 0),
    new ButtonBuilder()
      .setCustomId(`${FRONT_PAGE_PREFIX}${ownerId}:${skip + SWITCHES_PER_PAGE}`)
      .setLabel('Next')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(!hasMore),
  );
  return { embeds: [frontHistoryEmbed(page.switches, page.alters, title, { skip, hasMore })], components: [row] };
}
