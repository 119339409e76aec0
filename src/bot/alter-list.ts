// The paged alter list: an embed of one page and previous/next buttons. Buttons carry the system's
// owner and the offset (`alters:<userId>:<skip>`), and each click reads as the clicker (their own
// token, or the bot's client for another user's public alters when they never linked), so privacy
// always applies to whoever is looking. Pages go through the API's skip, so any
// number of alters can be paged.
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { BotContext } from './command.js';
import { ALTERS_PER_PAGE, alterListEmbed } from './embeds.js';
import type { ReplyPayload } from './responder.js';
import { ownerOf } from './target.js';

export const ALTER_PAGE_PREFIX = 'alters:';

export function parseAlterPageId(customId: string): { ownerId: string; skip: number } | undefined {
  const match = /^alters:(\d{17,20}):(\d{1,7})$/.exec(customId);
  return match ? { ownerId: match[1] as string, skip: Number(match[2]) } : undefined;
}

/** `target` is '@me' or a user id; `viewerId` is who is looking. */
export async function alterListPage({ api, accounts }: BotContext, viewerId: string, target: string, skip: number, title: string): Promise<ReplyPayload> {
  const page = await accounts.asViewer(viewerId, target, (token) => api.listAlters(token, target, { skip, max: ALTERS_PER_PAGE + 1 }));
  const hasMore = page.length > ALTERS_PER_PAGE;
  const ownerId = ownerOf(target, viewerId);
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${ALTER_PAGE_PREFIX}${ownerId}:${Math.max(0, skip - ALTERS_PER_PAGE)}`)
      .setLabel('Previous')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(skip === 0),
    new ButtonBuilder()
      .setCustomId(`${ALTER_PAGE_PREFIX}${ownerId}:${skip + ALTERS_PER_PAGE}`)
      .setLabel('Next')
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(!hasMore),
  );
  return { embeds: [alterListEmbed(page.slice(0, ALTERS_PER_PAGE), title, { skip, hasMore })], components: [row] };
}
