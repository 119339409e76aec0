// Channel webhooks: the bot's and those made in the channel settings, their tokens, where their
// messages go (threads, forum posts) and the record of every execution, edit and deletion.
import { randomBytes } from 'node:crypto';
import { Intent, OWNER_ID, THREAD_ONLY_TYPES, isThread } from './constants.js';
import { shortHash, user } from './objects.js';
import { HttpError, unknownChannel, unknownMessage, unknownWebhook } from './refusals.js';
import type { Gateway } from './gateway.js';
import type { GuildModel } from './guild.js';
import type { FakeState } from './state.js';
import type { ApiChannel, ApiMessage, ApiUser, ApiWebhook, FakeDiscord, Json, WebhookExecution, WebhookState } from './types.js';

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks(state: FakeState, gateway: Pick<Gateway, 'dispatchIf'>, guildModel: Pick<GuildModel, 'channelJson'>) {
  const { guild, botUser, applicationId, channels, messages, webhooks, executions, snowflake, notify } = state;
  const { dispatchIf } = gateway;
  const { channelJson } = guildModel;

  const webhookJson = (webhook: WebhookState, withToken: boolean, withUser = true): ApiWebhook => {
    const { token, user: creator, ...rest } = webhook;
    return { ...structuredClone(rest), ...(withUser && creator ? { user: creator } : {}), ...(withToken ? { token } : {}) };
  };

  const ownWebhook = (webhook: WebhookState): boolean => webhook.application_id === applicationId;

  const putWebhook = (
    inChannel: string,
    name: string,
    avatar: string | null,
    owner: string | null,
    creator: ApiUser | null,
    id = snowflake(),
  ): WebhookState => {
    const webhook: WebhookState = {
      id,
      type: 1,
      guild_id: guild.id,
      channel_id: inChannel,
      name,
      avatar,
      application_id: owner,
      token: randomBytes(51).toString('base64url'),
      user: creator,
    };
    webhooks.set(id, webhook);
    dispatchIf(Intent.GuildWebhooks, 'WEBHOOKS_UPDATE', { guild_id: guild.id, channel_id: inChannel });
    return webhook;
  };

  const dropWebhook = (webhook: WebhookState): void => {
    webhooks.delete(webhook.id);
    dispatchIf(Intent.GuildWebhooks, 'WEBHOOKS_UPDATE', { guild_id: guild.id, channel_id: webhook.channel_id });
  };

  /** A webhook edit's name and avatar (both routes: by bot token and by webhook token). */
  const renameWebhook = (webhook: ApiWebhook, json: Json): void => {
    if (typeof json.name === 'string') webhook.name = json.name;
    if (json.avatar !== undefined) webhook.avatar = typeof json.avatar === 'string' && json.avatar !== '' ? shortHash(json.avatar) : null;
  };

  const webhookFor = (id: string, token?: string): WebhookState => {
    const webhook = webhooks.get(id);
    if (!webhook) throw unknownWebhook();
    // Safe to answer 401 here: discord.js calls token routes with auth: false, so the REST client
    // keeps its bot token. (A bot calling them with its token set would lose it, as on Discord.)
    if (token !== undefined && webhook.token !== token) throw new HttpError(401, { message: 'Invalid Webhook Token', code: 50027 });
    return webhook;
  };

  const webhookAuthor = (webhook: WebhookState, username: unknown, avatarUrl: unknown): ApiUser =>
    user(webhook.id, typeof username === 'string' ? username : webhook.name, {
      bot: true,
      discriminator: '0000',
      avatar: typeof avatarUrl === 'string' && avatarUrl !== '' ? shortHash(avatarUrl) : webhook.avatar,
    });

  /** The channel a webhook message goes to: the named thread (its parent must be the webhook's
   * channel), a new forum post, or the webhook's channel. */
  const webhookTarget = (webhook: WebhookState, threadId: string | undefined, body: Json, messageId: string): { channel: ApiChannel; created?: ApiChannel } => {
    const home = channels.get(webhook.channel_id);
    if (!home) throw unknownChannel();
    const threadName = typeof body.thread_name === 'string' && body.thread_name !== '' ? body.thread_name : undefined;
    if (threadId !== undefined) {
      if (threadName) throw new HttpError(400, { message: 'Webhooks posted to forum channels cannot have both a thread_name and thread_id', code: 220002 });
      const thread = channels.get(threadId);
      // Discord answers a thread elsewhere (or no thread at all) as an unknown channel.
      if (!thread || !isThread(thread) || thread.parent_id !== home.id) throw unknownChannel();
      return { channel: thread };
    }
    if (THREAD_ONLY_TYPES.has(home.type)) {
      if (!threadName) throw new HttpError(400, { message: 'Webhooks posted to forum channels must have a thread_name or thread_id', code: 220001 });
      // A forum post's thread has the id of its first message.
      const created = channelJson({ id: messageId, name: threadName, type: 11, parentId: home.id }, messageId);
      return { channel: created, created };
    }
    if (threadName) throw new HttpError(400, { message: 'Webhooks can only create threads in forum channels', code: 220003 });
    return { channel: home };
  };

  /** A message a channel webhook sent, addressed through the webhook's token routes. */
  const webhookMessage = (webhook: WebhookState, messageId: string, threadId: string | undefined): ApiMessage => {
    const message = messages.get(messageId);
    if (!message || message.webhook_id !== webhook.id || message.channel_id !== (threadId ?? webhook.channel_id)) throw unknownMessage();
    return message;
  };

  const recordExecution = (execution: WebhookExecution): void => {
    executions.push(execution);
  };

  const api: Pick<FakeDiscord, 'addWebhook' | 'deleteWebhook' | 'webhooks' | 'webhookExecutions'> = {
    addWebhook(input) {
      if (!channels.has(input.channelId)) throw new Error(`fake Discord: no channel ${input.channelId}`);
      const owner = input.applicationId ?? null;
      const webhook = putWebhook(input.channelId, input.name, null, owner, owner === applicationId ? botUser : user(OWNER_ID, 'owner'), input.id);
      notify();
      return webhookJson(webhook, true);
    },

    deleteWebhook(id) {
      const webhook = webhooks.get(id);
      if (!webhook) throw new Error(`fake Discord: no webhook ${id}`);
      dropWebhook(webhook);
      notify();
    },

    webhooks(id) {
      return [...webhooks.values()].filter((w) => id === undefined || w.channel_id === id).map((w) => webhookJson(w, true));
    },

    webhookExecutions() {
      return executions.map((e) => ({ ...e, body: structuredClone(e.body), files: e.files.map((f) => ({ ...f })) }));
    },
  };

  return { api, webhookJson, ownWebhook, putWebhook, dropWebhook, renameWebhook, webhookFor, webhookAuthor, webhookTarget, webhookMessage, recordExecution };
}
