// Reaction shortcuts on proxied messages, as PluralKit users know them: ❓ sends the reactor the
// message's info privately; ❌ by the account that sent it deletes it. The reaction is removed
// afterwards where the bot may (it needs Manage Messages for that; nothing fails without it).
import { Routes, makeURLSearchParams, type MessageReaction, type PartialMessageReaction, type PartialUser, type REST, type User } from 'discord.js';
import { ApiError, type ApiClient } from '../api-client.js';
import { fitEmbeds } from '../embeds.js';
import type { BotLog } from '../log.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { messageInfoEmbed } from './message-info.js';
import type { RecentMessages } from './recent.js';

export const INFO_EMOJI = '❓';
export const DELETE_EMOJI = '❌';

interface ReactionParts {
  webhookRest: REST;
  api: ApiClient;
  accounts: LinkedAccounts;
  recent: RecentMessages;
  log: BotLog;
}

/** Message info as the asker sees it: with their own link when they have one. */
export async function messageInfoFor(parts: Pick<ReactionParts, 'api' | 'accounts'>, messageId: string, askerId: string) {
  if (await parts.accounts.isLinked(askerId)) return parts.accounts.withToken(askerId, (token) => parts.api.messageInfo(messageId, token));
  return parts.api.messageInfo(messageId);
}

/** Deletes a proxied message: through the webhook that sent it when known (no permission needed). */
export async function deleteProxied(
  webhookRest: REST,
  recent: RecentMessages,
  message: { id: string; channelId: string; delete(): Promise<unknown> },
): Promise<void> {
  const known = recent.get(message.id);
  if (known) {
    await webhookRest.delete(Routes.webhookMessage(known.webhook.id, known.webhook.token, known.messageId), {
      query: makeURLSearchParams<{ thread_id?: string }>(known.threadId ? { thread_id: known.threadId } : {}),
      auth: false,
    });
  } else {
    await message.delete();
  }
  recent.replace(message.id);
}

export function createReactionHandler(parts: ReactionParts) {
  const { webhookRest, api, recent, log } = parts;
  return async function onReaction(reaction: MessageReaction | PartialMessageReaction, user: User | PartialUser): Promise<void> {
    const emoji = reaction.emoji.name;
    if (user.bot || (emoji !== INFO_EMOJI && emoji !== DELETE_EMOJI)) return;
    try {
      const message = reaction.message.partial ? await reaction.message.fetch() : reaction.message;
      if (!message.webhookId || !message.inGuild()) return;
      const removeReaction = () => reaction.users.remove(user.id).catch(() => undefined);
      if (emoji === INFO_EMOJI) {
        const info = await messageInfoFor(parts, message.id, user.id);
        const asker = user.partial ? await user.fetch() : user;
        await asker.send({ embeds: fitEmbeds([messageInfoEmbed(info, message.author.username)]) }).catch(() => undefined);
        await removeReaction();
        return;
      }
      const senderId = recent.get(message.id)?.senderId ?? (await api.messageInfo(message.id)).senderId;
      if (senderId !== user.id) return;
      await deleteProxied(webhookRest, recent, message);
    } catch (error) {
      // Not one of ours (unknown-message), or Discord refused: a reaction never needs an answer.
      if (!(error instanceof ApiError && error.type === 'unknown-message')) log.info({ err: error }, 'reaction shortcut failed');
    }
  };
}
