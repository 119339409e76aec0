// Messages this bot process proxied in the last minutes: what "reproxy", edit and delete need
// (which webhook sent it, as whom, for whom) without waiting for the record to reach the service.
// Bounded in size and age; after a restart these actions fall back to the service's records.
import type { ChannelWebhook } from './webhooks.js';

/** How long after sending a message its sender may still reproxy it as another alter. */
export const REPROXY_WINDOW_MS = 5 * 60_000;
const KEEP_MS = 15 * 60_000;
const MAX_KEPT = 20_000;

export interface RecentMessage {
  messageId: string;
  originalMessageId: string;
  senderId: string;
  guildId: string;
  /** Where the message is (a thread's own id in a thread). */
  channelId: string;
  /** The channel that owns the webhook (a thread's parent). */
  webhookChannelId: string;
  threadId: string | undefined;
  webhook: ChannelWebhook;
  alterId: number;
  content: string;
  sentAt: number;
}

export interface RecentMessages {
  remember(message: RecentMessage): void;
  get(messageId: string): RecentMessage | undefined;
  /** The sender's last proxied message in that channel, if it is recent enough to reproxy. */
  lastOf(senderId: string, channelId: string, now?: number): RecentMessage | undefined;
  /** After a reproxy or delete: the message is gone (or moved to `replacement`). */
  replace(messageId: string, replacement?: RecentMessage): void;
}

export function createRecentMessages(): RecentMessages {
  const byId = new Map<string, RecentMessage>();
  const last = new Map<string, string>();
  const lastKey = (senderId: string, channelId: string) => `${senderId}/${channelId}`;

  function prune(now: number): void {
    for (const [id, message] of byId) {
      if (byId.size <= MAX_KEPT && now - message.sentAt < KEEP_MS) break;
      byId.delete(id);
      if (last.get(lastKey(message.senderId, message.channelId)) === id) last.delete(lastKey(message.senderId, message.channelId));
    }
  }

  return {
    remember(message) {
      prune(message.sentAt);
      byId.set(message.messageId, message);
      last.set(lastKey(message.senderId, message.channelId), message.messageId);
    },
    get: (messageId) => byId.get(messageId),
    lastOf(senderId, channelId, now = Date.now()) {
      const id = last.get(lastKey(senderId, channelId));
      const message = id === undefined ? undefined : byId.get(id);
      return message && now - message.sentAt <= REPROXY_WINDOW_MS ? message : undefined;
    },
    replace(messageId, replacement) {
      const old = byId.get(messageId);
      byId.delete(messageId);
      if (old && last.get(lastKey(old.senderId, old.channelId)) === messageId) last.delete(lastKey(old.senderId, old.channelId));
      if (replacement) {
        byId.set(replacement.messageId, replacement);
        last.set(lastKey(replacement.senderId, replacement.channelId), replacement.messageId);
      }
    },
  };
}
