// The message path, in three steps: decide (a member's message in a server → the engine's decision
// and the server's rules → a plan, or why not), send (the webhook sends it as the alter, the
// original is deleted, or the copy withdrawn), record (the message remembered, logged, and its
// record queued for the service in the background). Send before delete, so a failed send leaves the original where it was; record after both, so
// nothing waits on the service (a sick service delays records, never messages). An original already
// gone when the bot deletes it was removed by someone else first (a filter bot, or its sender): the
// copy goes too, so proxying never keeps what moderation removed.
import { setTimeout as sleep } from 'node:timers/promises';
import { MessageType, PermissionFlagsBits, RESTJSONErrorCodes, Routes, makeURLSearchParams, type Message, type REST } from 'discord.js';
import type { Autoproxy, AutoproxyStateChange } from '../../domain/autoproxy.js';
import { mayProxyHere, noticeKeyFor, type MessagePlace } from '../../domain/guild-rules.js';
import { decisionInputFor, entryAfter, stateChangeFor } from '../../domain/proxy-input.js';
import { decideProxyCompiled } from '../../domain/proxy/index.js';
import type { ProxyProfile } from '../../domain/proxy-profile.js';
import type { ApiClient, RecordMessageBody } from '../api-client.js';
import type { BotLog } from '../log.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { downloadAttachments, uploadLimit } from './attachments.js';
import { allowedMentionsFor } from './mentions.js';
import type { Notices } from './notices.js';
import type { ProfileCache } from './profiles.js';
import type { RecentMessages } from './recent.js';
import type { PendingRecords } from './pending-records.js';
import type { DeliveryQueue } from './records.js';
import { replyEmbedFor } from './reply-embed.js';
import { sendThroughWebhook } from './sender.js';
import { webhookName } from './webhook-name.js';
import { isDiscordError, type WebhookCache } from './webhooks.js';
import type { GuildSettingsCache, HeldSettings } from '../servers/settings-cache.js';
import { placeOf, refusalText, roleIdsOf } from '../servers/rules.js';
import type { RecentDeletions } from '../servers/deletions.js';
import type { LogCleanup } from '../servers/log-cleanup.js';
import type { ServerLog } from '../servers/server-log.js';

/**
 * What became of one message: logs and tests read it. `withdrawn`: sent, but the original was
 * removed by someone else before the bot could delete it, so the copy was deleted too.
 */
export type MessageOutcome = 'ignored' | 'not-proxied' | 'proxied' | 'failed' | 'withdrawn';

/**
 * The original was gone when the bot came to delete it: another bot (a chat filter) or its sender
 * removed it first. The server's log says so, and `onOriginalRemovedFirst` is told.
 */
export interface OriginalRemovedFirst {
  guildId: string;
  /** Where the message was (a thread's own id in a thread). */
  channelId: string;
  originalMessageId: string;
  senderId: string;
  alterId: number;
  proxiedMessageId: string;
  /** The name the copy was sent under. */
  proxiedName: string;
  /** Whether the copy was deleted in turn (false: Discord refused; it is logged). */
  copyDeleted: boolean;
}

export interface MessagePathParts {
  webhookRest: REST;
  api: ApiClient;
  accounts: LinkedAccounts;
  profiles: ProfileCache;
  webhooks: WebhookCache;
  deliveries: DeliveryQueue;
  /** Message records, pending in the shared store until the service has them. */
  pending: PendingRecords;
  notices: Notices;
  recent: RecentMessages;
  log: BotLog;
  /** Servers' settings (src/bot/servers/): their rules apply to every message the engine would proxy. */
  servers: GuildSettingsCache;
  /** Messages deleted lately (a filter bot, or the sender, during the server's proxy delay). */
  deletions: RecentDeletions;
  serverLog: ServerLog;
  logCleanup: LogCleanup;
  /** Told after a copy was withdrawn because its original was removed first. */
  onOriginalRemovedFirst?: (event: OriginalRemovedFirst) => void;
}

/** Which permission a refused send lacked, as far as the bot's cached permissions tell. */
function missingForSending(message: Message<true>, parentId: string, inThread: boolean): string {
  const permissions = message.guild.members.me?.permissionsIn(parentId);
  if (permissions && !permissions.has(PermissionFlagsBits.ManageWebhooks)) return 'Manage Webhooks';
  if (inThread && permissions && !permissions.has(PermissionFlagsBits.SendMessagesInThreads)) return 'Send Messages in Threads';
  return 'Manage Webhooks';
}

const missingPermission = (error: unknown) => isDiscordError(error, RESTJSONErrorCodes.MissingPermissions);

type Settle = ReturnType<ProfileCache['applyLocally']>;

/** A message the engine and the server's rules would proxy: everything sending and recording need. */
interface Plan {
  message: Message<true>;
  /** The channel whose webhook sends (a thread's parent), and the thread if any. */
  parentId: string;
  thread: { id: string } | undefined;
  place: MessagePlace;
  profile: ProxyProfile;
  alter: ProxyProfile['alters'][number];
  username: string;
  content: string;
  server: HeldSettings;
  /** The engine's state change for the service, if any, and what settles the local copy of it. */
  change: AutoproxyStateChange | undefined;
  settle: Settle | undefined;
  now: number;
}

/** What decide concludes: a plan to send, or the outcome already reached (notices told, local state settled). */
type Decision = { outcome: 'proxy'; plan: Plan } | { outcome: Exclude<MessageOutcome, 'proxied' | 'withdrawn'> };

type Sent = Awaited<ReturnType<typeof sendThroughWebhook>>;

export function createMessagePath(parts: MessagePathParts) {
  const {
    api,
    accounts,
    profiles,
    webhooks,
    webhookRest,
    deliveries,
    pending,
    notices,
    recent,
    log,
    servers,
    deletions,
    serverLog,
    logCleanup,
    onOriginalRemovedFirst,
  } = parts;

  // ── decide ──

  /** Whether this message is proxied, and as whom: the engine on the held profile, then the server's rules. */
  async function decide(message: Message): Promise<Decision> {
    // Bots, webhooks (our own proxied messages among them), system messages and DMs never proxy.
    if (message.author.bot || message.webhookId || message.system || !message.inGuild()) return { outcome: 'ignored' };
    if (message.type !== MessageType.Default && message.type !== MessageType.Reply) return { outcome: 'ignored' };
    const author = message.author;
    // Most authors are not systems: answered from memory, no store read and no network call.
    if (accounts.knownUnlinked(author.id) || !(await accounts.isLinked(author.id))) return { outcome: 'ignored' };

    const channel = message.channel;
    const thread = channel.isThread() ? channel : undefined;
    // A forum post's first message is the post itself (R13); the engine never sees it.
    if (thread && message.id === thread.id) return { outcome: 'ignored' };
    const parentId = thread ? thread.parentId : channel.id;
    if (!parentId) return { outcome: 'ignored' };

    const held = await profiles.forProxying(author.id, message.guildId);
    if (!held) {
      if (profiles.needsRelink(author.id)) {
        notices.tellOnce(author, 'relink', 'To proxy your messages, switchboard needs one more permission than when you linked: run `/link` again (once).');
      }
      return { outcome: 'ignored' };
    }
    const { profile } = held;
    const now = Date.now();
    const mapped = decisionInputFor(profile, { content: message.content, hasAttachment: message.attachments.size > 0, channelId: parentId, now });
    if (!mapped) return { outcome: 'ignored' };
    const { result, state } = decideProxyCompiled(held.system, mapped.input);

    const change = stateChangeFor(state, mapped.entries, now);
    const local: Autoproxy | undefined = entryAfter(state, mapped.entries, now);
    const settle = local ? profiles.applyLocally(author.id, message.guildId, local) : undefined;

    if (!result.proxy) {
      if ('error' in result) notices.tell(author, 'That message was not proxied: without its proxy tags it is still over 2,000 characters, Discord’s limit.');
      if (change) recordStateChange(author.id, change, settle);
      return { outcome: 'not-proxied' };
    }

    const alter = profile.alters.find((candidate) => candidate.alterId === result.alterId);
    if (!alter) return { outcome: 'not-proxied' };
    const username = webhookName({
      name: alter.name,
      pronouns: profile.showPronouns ? alter.pronouns : null,
      displayTag: profile.displayTag,
      fallback: alter.username,
    });

    // The server's rules. Its settings are held exactly: the profile just read told their revision.
    const server = await servers.atRevision(message.guildId, profiles.guildRevision(message.guildId));
    if (!server) {
      // Without the server's settings its blacklist and blocks cannot be honoured: nothing is sent.
      settle?.({ stored: false });
      return { outcome: 'failed' };
    }
    const place = placeOf(message);
    const verdict = mayProxyHere(
      server.rules,
      place,
      { userId: author.id, roleIds: roleIdsOf(message) },
      { name: username, displayTags: [profile.displayTag] },
    );
    if (!verdict.allowed) {
      // Nothing moves either: no latch is set by a message that was not proxied.
      settle?.({ stored: false });
      // A blacklisted place is told about for tagged messages only (autoproxy there just stops).
      if (verdict.reason !== 'blacklisted' || result.reason === 'tag') notices.tellDaily(author, noticeKeyFor(verdict, message.guildId, place), refusalText(verdict, message.guild.name, message.channel.id));
      return { outcome: 'not-proxied' };
    }
    if (server.rules.proxyDelayMs > 0) {
      // Filter bots act first; a message they (or the sender) delete meanwhile is not proxied.
      await sleep(server.rules.proxyDelayMs);
      if (deletions.has(message.id)) {
        settle?.({ stored: false });
        return { outcome: 'not-proxied' };
      }
    }
    return { outcome: 'proxy', plan: { message, parentId, thread, place, profile, alter, username, content: result.content, server, change, settle, now } };
  }

  // ── send ──

  /** Sends the copy and deletes the original; withdraws the copy when the original was already gone. */
  async function send(plan: Plan): Promise<{ outcome: 'sent'; sent: Sent } | { outcome: 'not-proxied' | 'failed' | 'withdrawn' }> {
    const { message, parentId, thread, alter, username, settle } = plan;
    const author = message.author;
    const channel = message.channel;
    const { files, tooBig } = await downloadAttachments(message).catch((error: unknown) => {
      log.warn({ err: error }, 'could not download attachments');
      return { files: [], tooBig: [...message.attachments.values()].map((attachment) => attachment.name) };
    });
    if (plan.content === '' && files.length === 0) {
      settle?.({ stored: false });
      notices.tell(author, `That message was not proxied: its attachments are over this server’s upload limit (${uploadLimit(message.guild.premiumTier) / 1024 / 1024} MiB).`);
      return { outcome: 'not-proxied' };
    }
    let sent: Sent;
    try {
      sent = await sendThroughWebhook(webhookRest, webhooks, {
        webhookChannelId: parentId,
        threadId: thread?.id,
        content: plan.content,
        username,
        avatarUrl: alter.avatarUrl,
        allowedMentions: allowedMentionsFor(message),
        embeds: await replyEmbedFor(message),
        files,
      });
    } catch (error) {
      // Nothing was sent: the original stays, and neither the latch nor anything else moves.
      settle?.({ stored: false });
      if (missingPermission(error)) {
        const missing = missingForSending(message, parentId, thread !== undefined);
        notices.tellOnce(author, `send:${message.guildId}:${missing}`, `I could not proxy your message in <#${channel.id}>: I need the **${missing}** permission there. Ask a server admin to grant it.`);
      } else {
        log.warn({ err: error, channel: channel.id }, 'proxying failed; the original message stays');
      }
      return { outcome: 'failed' };
    }
    // The copy exists: from now on its record is pending where any bot process can deliver it.
    await pending.hold(author.id, recordBody(plan, sent)).catch((error: unknown) => log.warn({ err: error }, 'could not keep the pending record in the shared store; it is delivered from memory'));
    if (tooBig.length > 0) {
      notices.tell(author, `Proxied without ${tooBig.join(', ')}: over this server’s upload limit (${uploadLimit(message.guild.premiumTier) / 1024 / 1024} MiB).`);
    }

    logCleanup.deleting(message.guildId, message.id);
    try {
      await message.delete();
    } catch (error) {
      if (isDiscordError(error, RESTJSONErrorCodes.UnknownMessage)) {
        await withdraw(plan, sent);
        return { outcome: 'withdrawn' };
      }
      if (missingPermission(error)) {
        notices.tellOnce(author, `delete:${message.guildId}`, `I proxied your message in <#${channel.id}> but could not remove the original: I need the **Manage Messages** permission there. Ask a server admin to grant it.`);
      } else {
        log.warn({ err: error }, 'could not delete the original message');
      }
    }
    return { outcome: 'sent', sent };
  }

  /**
   * The original was removed before the bot could: the copy must not outlive it. No record (the
   * copy is gone); the member's tags still said who speaks, so the engine's state change stands.
   */
  async function withdraw(plan: Plan, sent: Sent): Promise<void> {
    const { message, thread, change, settle } = plan;
    const copyDeleted = await webhookRest
      .delete(Routes.webhookMessage(sent.webhook.id, sent.webhook.token, sent.message.id), {
        query: makeURLSearchParams<{ thread_id?: string }>(thread ? { thread_id: thread.id } : {}),
        auth: false,
      })
      .then(
        () => true,
        (deleteError: unknown) => isDiscordError(deleteError, RESTJSONErrorCodes.UnknownMessage) || (log.warn({ err: deleteError, channel: message.channel.id }, 'could not withdraw a copy whose original was removed'), false),
      );
    await pending.drop(sent.message.id).catch((error: unknown) => log.warn({ err: error }, 'could not clear the pending record of a withdrawn copy'));
    if (change) recordStateChange(message.author.id, change, settle);
    else settle?.({ stored: false });
    serverLog.proxied(plan.server, { ...logEntryOf(plan, sent), removedFirst: { copyDeleted } }).catch((logError: unknown) => log.warn({ err: logError }, 'could not log the withdrawn message'));
    onOriginalRemovedFirst?.({
      guildId: message.guildId,
      channelId: message.channel.id,
      originalMessageId: message.id,
      senderId: message.author.id,
      alterId: plan.alter.alterId,
      proxiedMessageId: sent.message.id,
      proxiedName: sent.message.author.username,
      copyDeleted,
    });
  }

  // ── record ──

  function logEntryOf({ message, place, username, profile, alter }: Plan, sent: Sent) {
    return {
      guildId: message.guildId,
      place,
      messageId: sent.message.id,
      originalMessageId: message.id,
      username,
      senderId: message.author.id,
      systemId: profile.systemId,
      alterId: alter.alterId,
      content: message.content,
      attachments: message.attachments.size,
    };
  }

  /** A sent copy: remembered for reproxy, edit and delete, logged, and its record queued (with the state change). */
  function record(plan: Plan, sent: Sent): void {
    const { message, parentId, thread, alter, settle } = plan;
    recent.remember({
      messageId: sent.message.id,
      originalMessageId: message.id,
      senderId: message.author.id,
      guildId: message.guildId,
      channelId: message.channel.id,
      webhookChannelId: parentId,
      threadId: thread?.id,
      webhook: sent.webhook,
      alterId: alter.alterId,
      content: plan.content,
      sentAt: plan.now,
    });
    serverLog.proxied(plan.server, logEntryOf(plan, sent)).catch((error: unknown) => log.warn({ err: error }, 'could not log the proxied message'));
    pending.deliver(message.author.id, recordBody(plan, sent), (stored, answer) => {
      settle?.(stored && answer?.autoproxyStateApplied === true ? { stored: true, revision: answer.revision } : { stored: false });
    });
  }

  function recordBody({ message, alter, change }: Plan, sent: Sent): RecordMessageBody {
    return {
      messageId: sent.message.id,
      originalMessageId: message.id,
      channelId: message.channel.id,
      guildId: message.guildId,
      alterId: alter.alterId,
      // The name Discord shows on the copy: message info tells it to moderators whatever the privacy.
      proxiedName: sent.message.author.username,
      ...(change ? { autoproxyState: change } : {}),
    };
  }

  /** The engine's state change alone, when no record carries it. */
  function recordStateChange(authorId: string, change: AutoproxyStateChange, settle: Settle | undefined): void {
    deliveries.push({
      what: 'autoproxy state',
      send: () => accounts.withToken(authorId, (token) => api.applyAutoproxyState(token, change)),
      settled: (stored, answer) => {
        settle?.(stored && answer?.applied ? { stored: true, revision: answer.revision } : { stored: false });
      },
    });
  }

  return async function onMessage(message: Message): Promise<MessageOutcome> {
    const decision = await decide(message);
    if (decision.outcome !== 'proxy') return decision.outcome;
    const result = await send(decision.plan);
    if (result.outcome !== 'sent') return result.outcome;
    record(decision.plan, result.sent);
    return 'proxied';
  };
}
