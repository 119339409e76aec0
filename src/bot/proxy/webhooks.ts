// One webhook per channel, owned by the bot's application: found (after a restart the bot reuses
// the webhook it made before) or created on first use, remembered, and replaced when Discord says it
// is gone (10015 Unknown Webhook). Threads and forum posts use their parent channel's webhook.
import { DiscordAPIError, Routes, type APIWebhook, type Client } from 'discord.js';

export const WEBHOOK_NAME = 'switchboard';
const MAX_CHANNELS = 50_000;
export const UNKNOWN_WEBHOOK = 10015;

export interface ChannelWebhook {
  id: string;
  token: string;
}

export interface WebhookCache {
  get(channelId: string): Promise<ChannelWebhook>;
  /** Forgets a webhook Discord no longer knows, so the next get finds or creates another. */
  invalidate(channelId: string, webhook: ChannelWebhook): void;
}

export function createWebhookCache(client: Client): WebhookCache {
  const cache = new Map<string, { pending: Promise<ChannelWebhook>; value?: ChannelWebhook }>();

  async function findOrCreate(channelId: string): Promise<ChannelWebhook> {
    const applicationId = client.application?.id ?? client.user?.id;
    const existing = (await client.rest.get(Routes.channelWebhooks(channelId))) as APIWebhook[];
    const own = existing.find((webhook) => webhook.application_id === applicationId && webhook.token);
    if (own?.token) return { id: own.id, token: own.token };
    const created = (await client.rest.post(Routes.channelWebhooks(channelId), { body: { name: WEBHOOK_NAME } })) as APIWebhook;
    if (!created.token) throw new Error('Discord created a webhook without a token');
    return { id: created.id, token: created.token };
  }

  return {
    get(channelId) {
      const known = cache.get(channelId);
      if (known) return known.pending;
      // One lookup per channel even when several messages arrive at once.
      const entry: { pending: Promise<ChannelWebhook>; value?: ChannelWebhook } = { pending: findOrCreate(channelId) };
      if (cache.size >= MAX_CHANNELS) cache.delete(cache.keys().next().value as string);
      cache.set(channelId, entry);
      entry.pending.then(
        (value) => (entry.value = value),
        () => cache.get(channelId) === entry && cache.delete(channelId),
      );
      return entry.pending;
    },
    invalidate(channelId, webhook) {
      if (cache.get(channelId)?.value?.id === webhook.id) cache.delete(channelId);
    },
  };
}

/**
 * A Discord API error with this code. Checked by shape as well as class: @discordjs/rest's ESM and
 * CommonJS builds each have their own DiscordAPIError, and a REST client from either can throw.
 */
export function isDiscordError(error: unknown, code: number): boolean {
  if (error instanceof DiscordAPIError) return error.code === code;
  const shaped = error as { name?: unknown; code?: unknown; rawError?: unknown } | null;
  return typeof shaped === 'object' && shaped !== null && shaped.code === code && typeof shaped.rawError === 'object' && String(shaped.name).startsWith('DiscordAPIError');
}
