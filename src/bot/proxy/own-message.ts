// A proxied message that its sender wants to change (edit, delete, reproxy): checks that it is one
// of ours and that the asker sent it, and finds the webhook that can change it.
import type { Message } from 'discord.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { RecentMessages } from './recent.js';
import type { ChannelWebhook, WebhookCache } from './webhooks.js';

export interface OwnProxied {
  webhook: ChannelWebhook;
  webhookChannelId: string;
  threadId: string | undefined;
}

const refuse = (text: string) => new ApiError('problem', 403, 'not-yours', text);

export async function ownProxied(
  parts: { api: ApiClient; recent: RecentMessages; webhooks: WebhookCache },
  message: Message,
  userId: string,
): Promise<OwnProxied> {
  if (!message.webhookId || !message.inGuild()) throw refuse('That is not a proxied message.');
  const known = parts.recent.get(message.id);
  const senderId = known?.senderId ?? (await parts.api.messageInfo(message.id).catch(() => undefined))?.senderId;
  if (senderId === undefined) throw refuse('That is not a message switchboard proxied.');
  if (senderId !== userId) throw refuse('Only the person who sent a proxied message can change it.');
  if (known) return { webhook: known.webhook, webhookChannelId: known.webhookChannelId, threadId: known.threadId };
  const channel = message.channel;
  const webhookChannelId = channel.isThread() ? channel.parentId : channel.id;
  if (!webhookChannelId) throw refuse('That message’s channel is gone.');
  const webhook = await parts.webhooks.get(webhookChannelId);
  if (webhook.id !== message.webhookId) throw refuse('That message was sent through a webhook switchboard no longer has, so it cannot be changed.');
  return { webhook, webhookChannelId, threadId: channel.isThread() ? channel.id : undefined };
}
