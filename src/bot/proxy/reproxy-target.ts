// Which proxied message a reproxy re-sends: the sender's last one in the channel (within
// REPROXY_WINDOW_MS, from this process's memory), or one they name, by a message link or the
// message context menu, within the last hour. A named message this process no longer remembers
// (older than its memory, or sent before a restart) is found in Discord and checked against the
// service's record: only its sender may reproxy it.
import type { Message } from 'discord.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { ownProxied } from './own-message.js';
import type { RecentMessage, RecentMessages } from './recent.js';
import type { WebhookCache } from './webhooks.js';

/** How old a message named explicitly may be. */
export const REPROXY_TARGET_WINDOW_MS = 60 * 60_000;

/**
 * A message link (`https://discord.com/channels/<server>/<channel>/<message>`, also canary and ptb,
 * with or without <>) or a bare message id, meaning this channel.
 */
export function parseMessageRef(text: string, here: { guildId: string; channelId: string }): { channelId: string; messageId: string } | undefined {
  const trimmed = text.trim().replace(/^<(.*)>$/s, '$1');
  if (/^\d{17,20}$/.test(trimmed)) return { channelId: here.channelId, messageId: trimmed };
  const link = /^https:\/\/(?:(?:canary|ptb)\.)?discord(?:app)?\.com\/channels\/(\d{17,20})\/(\d{17,20})\/(\d{17,20})\/?$/.exec(trimmed);
  if (!link || link[1] !== here.guildId) return undefined;
  return { channelId: link[2] as string, messageId: link[3] as string };
}

export interface ReproxyParts {
  api: ApiClient;
  accounts: LinkedAccounts;
  recent: RecentMessages;
  webhooks: WebhookCache;
}

/** The named message as a reproxy needs it, or a friendly refusal. */
export async function namedTarget(parts: ReproxyParts, message: Message, userId: string, now = Date.now()): Promise<RecentMessage> {
  // Checks that it is ours and theirs, and finds the webhook that can replace it.
  const own = await ownProxied(parts, message, userId);
  const known = parts.recent.get(message.id);
  const sentAt = known?.sentAt ?? message.createdTimestamp;
  if (now - sentAt > REPROXY_TARGET_WINDOW_MS) {
    throw new ApiError('problem', 403, 'too-old', `Only messages from the last ${REPROXY_TARGET_WINDOW_MS / 60_000} minutes can be re-sent as another alter.`);
  }
  if (known) return known;
  // The owner's view of the record: which alter it was sent as (others may not be told).
  const info = await parts.accounts.withToken(userId, (token) => parts.api.messageInfo(message.id, token));
  return {
    messageId: message.id,
    originalMessageId: info.originalMessageId,
    senderId: info.senderId,
    guildId: info.guildId,
    channelId: message.channelId,
    webhookChannelId: own.webhookChannelId,
    threadId: own.threadId,
    webhook: own.webhook,
    alterId: info.alterId ?? 0,
    content: message.content,
    sentAt,
  };
}
