// Sends a proxied message through its channel's webhook (threads through the parent's webhook
// with thread_id), replacing a webhook Discord says is gone and trying once more. Webhook-token
// requests go through their own REST client (see webhookRest in ./index.ts).
import { Routes, makeURLSearchParams, type APIAllowedMentions, type APIEmbed, type APIMessage, type RawFile, type REST } from 'discord.js';
import { discordImageUrl } from '../../domain/image-url.js';
import { fitEmbeds } from '../embeds.js';
import { UNKNOWN_WEBHOOK, isDiscordError, type ChannelWebhook, type WebhookCache } from './webhooks.js';

export interface Outgoing {
  /** The channel that owns the webhook: the message's channel, or a thread's parent. */
  webhookChannelId: string;
  threadId: string | undefined;
  content: string;
  username: string;
  avatarUrl: string | null;
  allowedMentions: APIAllowedMentions;
  embeds: APIEmbed[];
  files: RawFile[];
}

async function execute(rest: REST, webhook: ChannelWebhook, out: Outgoing): Promise<APIMessage> {
  // An avatar stored before the service percent-encoded URLs may be one Discord refuses, which
  // would refuse the whole message: it is sent in the accepted form, or left out.
  const avatarUrl = out.avatarUrl === null ? null : discordImageUrl(out.avatarUrl);
  const body = {
    content: out.content,
    username: out.username,
    ...(avatarUrl ? { avatar_url: avatarUrl } : {}),
    allowed_mentions: out.allowedMentions,
    embeds: fitEmbeds(out.embeds),
  };
  return (await rest.post(Routes.webhook(webhook.id, webhook.token), {
    body,
    files: out.files.length > 0 ? out.files : undefined,
    query: makeURLSearchParams({ wait: true, ...(out.threadId ? { thread_id: out.threadId } : {}) }),
    auth: false,
  })) as APIMessage;
}

export async function sendThroughWebhook(rest: REST, webhooks: WebhookCache, out: Outgoing): Promise<{ message: APIMessage; webhook: ChannelWebhook }> {
  const webhook = await webhooks.get(out.webhookChannelId);
  try {
    return { message: await execute(rest, webhook, out), webhook };
  } catch (error) {
    if (!isDiscordError(error, UNKNOWN_WEBHOOK)) throw error;
    webhooks.invalidate(out.webhookChannelId, webhook);
    const replacement = await webhooks.get(out.webhookChannelId);
    return { message: await execute(rest, replacement, out), webhook: replacement };
  }
}
