// A paged list: an embed of one page and Previous/Next buttons. Buttons carry the system's owner
// and the offset (`<prefix><userId>:<skip>`, then `:<state>` for a list that has one: its order and
// filters, which the list encodes within Discord's 100 characters of a custom id), and each press reads as whoever pressed it (the
// list's `load` chooses their token, or the bot's client for another user's public data), so
// privacy always applies to whoever is looking. Pages go through the API's skip, so any number of
// entries can be paged.
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type EmbedBuilder } from 'discord.js';
import type { BotContext, ButtonHandler } from '../command.js';
import { withinLimits, type ReplyPayload } from '../responder.js';
import { ownerOf, targetFor } from '../target.js';

export interface PagerOptions {
  /** Custom-id prefix of the buttons, unique among the bot's buttons. */
  prefix: string;
  perPage: number;
  /** The title when the message pressed no longer shows one. */
  defaultTitle: string;
  /** One page from `skip` as `viewerId` sees `target`, as an embed, and whether more follow. `state` is the list's own ('' when none). */
  load(context: BotContext, viewerId: string, target: string, skip: number, title: string, state: string): Promise<{ embed: EmbedBuilder; hasMore: boolean }>;
}

export interface Pager {
  /** `target` is '@me' or a user id; `viewerId` is who is looking. */
  page(context: BotContext, viewerId: string, target: string, skip: number, title: string, state?: string): Promise<ReplyPayload>;
  /** The Previous and Next buttons: a press shows the page it names. */
  buttons: ButtonHandler;
  /** The owner and offset a button's custom id names, if it is one of this pager's. */
  parse(customId: string): { ownerId: string; skip: number; state: string } | undefined;
}

export function definePager({ prefix, perPage, defaultTitle, load }: PagerOptions): Pager {
  const idPattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}(\\d{17,20}):(\\d{1,7})(?::(.*))?$`, 's');

  function parse(customId: string): { ownerId: string; skip: number; state: string } | undefined {
    const match = idPattern.exec(customId);
    return match ? { ownerId: match[1] as string, skip: Number(match[2]), state: match[3] ?? '' } : undefined;
  }

  async function page(context: BotContext, viewerId: string, target: string, skip: number, title: string, state = ''): Promise<ReplyPayload> {
    const { embed, hasMore } = await load(context, viewerId, target, skip, title, state);
    const ownerId = ownerOf(target, viewerId);
    const suffix = state === '' ? '' : `:${state}`;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder()
        .setCustomId(`${prefix}${ownerId}:${Math.max(0, skip - perPage)}${suffix}`)
        .setLabel('Previous')
        .setStyle(ButtonStyle.Secondary)
        .setDisabled(skip === 0),
      new ButtonBuilder()
        .setCustomId(`${prefix}${ownerId}:${skip + perPage}${suffix}`)
        .setLabel('Next')
        .setStyle(ButtonStyle.Secondary)
        .setDisabled(!hasMore),
    );
    return withinLimits({ embeds: [embed], components: [row] });
  }

  const buttons: ButtonHandler = {
    prefix,
    async press(interaction, context) {
      const pressed = parse(interaction.customId);
      if (!pressed) return;
      const target = targetFor(interaction.user.id, pressed.ownerId);
      const title = interaction.message.embeds[0]?.title ?? defaultTitle;
      await interaction.update(await page(context, interaction.user.id, target, pressed.skip, title, pressed.state));
    },
  };

  return { page, buttons, parse };
}
