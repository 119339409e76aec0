// The fake's public types (what tests build and read back) and the internal records of its state.
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { CommandPermission } from '../command-permissions.js';

export interface RecordedRequest {
  method: string;
  /** Path with each segment percent-decoded (`%40original` is recorded as `@original`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeDiscordUser {
  id: string;
  username: string;
}

export type Json = Record<string, unknown>;

/** A user object as the Discord API sends it. */
export interface ApiUser extends Json {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  discriminator: string;
  bot: boolean;
}

/** A message object as the Discord API sends it (the fields the fake keeps, plus any extra). */
export interface ApiMessage extends Json {
  id: string;
  channel_id: string;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: Json[];
  mentions: ApiUser[];
  mention_roles: string[];
  flags: number;
  type: number;
  author: ApiUser;
  timestamp: string;
  edited_timestamp: string | null;
}

/** A permission overwrite as Discord sends it: type 0 for a role, 1 for a member. */
export interface ApiOverwrite extends Json {
  id: string;
  type: 0 | 1;
  allow: string;
  deny: string;
}

/** A guild channel or thread as Discord sends it. */
export interface ApiChannel extends Json {
  id: string;
  type: number;
  guild_id: string;
  name: string;
  parent_id: string | null;
  permission_overwrites?: ApiOverwrite[];
}

export interface ApiRole extends Json {
  id: string;
  name: string;
  permissions: string;
  position: number;
}

/** A guild member as Discord sends it (with `user`). */
export interface ApiMember extends Json {
  user: ApiUser;
  roles: string[];
  nick: string | null;
  joined_at: string;
}

/** A webhook object; `token` is only sent for webhooks the bot's application created. */
export interface ApiWebhook extends Json {
  id: string;
  type: number;
  guild_id: string;
  channel_id: string;
  name: string;
  avatar: string | null;
  application_id: string | null;
  token?: string;
}

/** A gateway INTERACTION_CREATE payload (the `d`); builders fill every field discord.js reads. */
export interface InteractionPayload extends Json {
  id: string;
  application_id: string;
  type: number;
  token: string;
  data?: Json;
  message?: ApiMessage;
}

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface RecordedResponse {
  /** callback: POST /interactions/{id}/{token}/callback; edit: PATCH of @original or a
   * follow-up; followup: POST /webhooks/{app}/{token}; delete: DELETE of a response message. */
  kind: 'callback' | 'edit' | 'followup' | 'delete';
  /** For callbacks: 4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 autocomplete, 9 modal. */
  callbackType?: number;
  /** The message created or changed, when there is one ('@original' resolved to its id). */
  messageId?: string;
  /** The message data: for callbacks the callback's `data` (choices for type 8, the modal for
   * type 9), otherwise the request body; `payload_json` when the request was multipart. */
  body: Json;
  files: RecordedFile[];
  receivedAt: bigint;
}

/** A successful call on a channel webhook's token routes (execute, edit or delete a message). */
export interface WebhookExecution {
  kind: 'execute' | 'edit' | 'delete';
  webhookId: string;
  /** The `thread_id` query parameter, when given. */
  threadId?: string;
  /** Where the message is (the thread, a new forum post, or the webhook's channel). */
  channelId: string;
  messageId: string;
  /** `wait=true` was asked (execute only). */
  wait: boolean;
  /** The JSON body, or `payload_json` of a multipart body. */
  body: Json;
  /** Files of a multipart body (`files[n]` fields), with their bytes. */
  files: RecordedFile[];
  receivedAt: bigint;
}

export interface InteractionHandle {
  id: string;
  token: string;
  payload: InteractionPayload;
  /** process.hrtime.bigint() when INTERACTION_CREATE went out on the socket (or was buffered). */
  sentAt: bigint;
  responses: RecordedResponse[];
  /** First recorded response (already recorded or yet to come) the predicate accepts. */
  waitForResponse(predicate?: (response: RecordedResponse) => boolean, timeoutMs?: number): Promise<RecordedResponse>;
  /** The message the interaction's @original currently is, with all edits applied. */
  latestMessage(): ApiMessage | undefined;
}

export interface RestFailureMatcher {
  method?: string;
  /** Tested against the decoded path, e.g. /api/v10/interactions/{id}/{token}/callback or
   * /api/v10/webhooks/{id}/{token} (the query string is not part of it). */
  path: RegExp;
}

export interface RestFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail; unlimited when left out. */
  times?: number;
}

export interface InteractionBase {
  user: FakeDiscordUser | ApiUser;
  /** The invoking member's permissions in the channel (a bitfield string). */
  permissions?: string;
  locale?: string;
  channelId?: string;
}

export interface SlashCommandInput extends InteractionBase {
  name: string;
  /** `data.options` exactly as Discord sends them (nested under the subcommand if one is given). */
  options?: Json[];
  subcommand?: string;
  subcommandGroup?: string;
  /** `data.resolved`, e.g. from resolvedUsers() for user options. */
  resolved?: Json;
  commandId?: string;
}

export type AutocompleteInput = SlashCommandInput;

export interface ComponentInput extends InteractionBase {
  customId: string;
  /** The message the component is on (e.g. a handle's latestMessage()). */
  message: ApiMessage;
  /** 2 button (default), 3 string select, 5-8 the other selects. */
  componentType?: number;
  values?: string[];
  resolved?: Json;
}

export interface UserContextMenuInput extends InteractionBase {
  name: string;
  targetUser: FakeDiscordUser | ApiUser;
  commandId?: string;
}

export interface MessageContextMenuInput extends InteractionBase {
  name: string;
  /** The message the command is used on (a stored message or its id); its channel is the
   * interaction's channel unless channelId says otherwise. */
  targetMessage: ApiMessage | string;
  commandId?: string;
}

export interface ModalSubmitInput extends InteractionBase {
  customId: string;
  /** `data.components` as Discord sends them (action rows or labels with text inputs). */
  components: Json[];
  message?: ApiMessage;
}

export interface OverwriteInput {
  /** A role id (the guild id is @everyone) or a user id. */
  id: string;
  /** Defaults to 'role' when `id` names a role, else 'member'. */
  type?: 'role' | 'member';
  allow?: bigint;
  deny?: bigint;
}

export interface ChannelInput {
  id?: string;
  name: string;
  /** 0 text (default), 4 category, 5 announcement, 15 forum, 11 public thread, 12 private thread. */
  type?: number;
  /** A category (type 4) for channels, the parent channel (required) for threads; categories have
   * none. A channel created in a category without `overwrites` is synced to it, as on Discord. */
  parentId?: string;
  /** Not for threads: they take their permissions from the parent. */
  overwrites?: OverwriteInput[];
  /** Threads: archived or locked flags in thread_metadata. */
  archived?: boolean;
  locked?: boolean;
}

export interface RoleInput {
  id?: string;
  name: string;
  permissions: bigint | string;
  position?: number;
  /** Whether anyone may ping the role (default false). */
  mentionable?: boolean;
}

export interface MemberInput {
  user: FakeDiscordUser | ApiUser;
  /** Role ids besides @everyone. */
  roles?: string[];
  nick?: string | null;
}

export interface AttachmentInput {
  filename: string;
  contentType?: string;
  data: Buffer;
  description?: string;
}

export interface UserMessageInput {
  author: FakeDiscordUser | ApiUser;
  /** A chosen snowflake, e.g. a forum post's starter message, whose id is the thread's. */
  id?: string;
  /** Defaults to the fake's text channel; a thread id posts in the thread. */
  channelId?: string;
  content?: string;
  attachments?: AttachmentInput[];
  embeds?: Json[];
  /** The author's roles; updates the stored member (added silently when unknown). */
  member?: { roles?: string[]; nick?: string | null };
  /** A reply: sets type 19, message_reference and referenced_message. */
  messageReference?: { messageId: string; channelId?: string };
  /** Overrides the mentions parsed from the content (`<@id>`, `<@&id>`, `@everyone`). */
  mentions?: (FakeDiscordUser | ApiUser)[];
  mentionRoles?: string[];
  mentionEveryone?: boolean;
  type?: number;
  flags?: number;
  /** A message from a webhook the bot does not own (the author becomes the webhook's user). */
  webhookId?: string;
  /** Marks the author as a bot. */
  bot?: boolean;
}

export interface ReactionInput {
  userId: string;
  messageId: string;
  /** Defaults to the message's channel. */
  channelId?: string;
  /** A unicode emoji ('❓', '❌') or a custom one as `name:id` / `<:name:id>` / `<a:name:id>`. */
  emoji: string;
}

export interface WebhookInput {
  channelId: string;
  name: string;
  /** The owning application; null (default) for a webhook someone made in the channel settings. */
  applicationId?: string | null;
  id?: string;
}

export interface FakeDiscord {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  requests: RecordedRequest[];
  /** Who "signs in" at the authorize page; undefined makes the user press Cancel. */
  setUser(user: FakeDiscordUser | undefined): void;

  botToken: string;
  /** The application id; also the bot user's id and the OAuth client id, as on Discord. */
  applicationId: string;
  botUser: ApiUser;
  guild: { id: string; name: string };
  /** The default text channel, #general. */
  channelId: string;
  /** The role Discord gives the bot when it joins (it carries DEFAULT_BOT_PERMISSIONS). */
  botRoleId: string;
  /** The guild owner's user id (not a member until addMember()); owners have every permission. */
  ownerId: string;
  /** Commands registered with PUT/POST, globally or for a guild. */
  commands(guildId?: string): Json[];
  /** IDENTIFY payloads received, in order. */
  identifies: Json[];
  /** Identifies of one max_concurrency bucket that came sooner than Discord allows. */
  identifyViolations: Array<{ shard: number; bucket: number; sinceLastMs: number }>;
  /** Ids of the messages whose MESSAGE_CREATE went out on an open gateway socket, in order. */
  deliveredMessages(): string[];
  /** The shard a guild's events go to: `(guild_id >> 22) % count` (count: the current one). */
  shardOf(guildId: string, count?: number): number;
  /**
   * Another guild the bot is in, with an id on `shard` of `count`; its id. Bare unless sized:
   * `channels` text channels and `roles` roles besides @everyone (each channel with one role
   * overwrite, as servers set them), for measuring what a server costs the bot.
   */
  addGuild(input: { name: string; shard: number; count: number; channels?: number; roles?: number }): string;
  resumeCount(): number;
  /** Calls `listener` right after the next IDENTIFY is answered (before the client can act on it). */
  afterNextIdentify(listener: () => void): void;
  /** RESUMEs answered with an invalid session (unknown, ended or expired), and why. */
  refusedResumes: Array<{ shard: number | undefined; reason: 'unknown' | 'expired' | 'shard count' | 'token' }>;
  /** Resolves once every shard of the current shard count has a connected session. */
  waitForReady(timeoutMs?: number): Promise<void>;
  /** Drops the connection of the session `guildId`'s events go to (default: the fake's guild). */
  disconnectGateway(code?: number, guildId?: string): void;
  /** Resolves once a RESUME has been answered after the last disconnectGateway() call. */
  waitForResume(timeoutMs?: number): Promise<void>;
  /** Makes matching requests fail (checked before any route); undefined removes the rule. */
  setRestFailure(matcher: RestFailureMatcher, response: RestFailure | undefined): void;
  /** Most bytes of files one request may upload (default 10 MiB); more get 413 code 40005. */
  setUploadLimit(bytes: number): void;
  /** The guild's boost level (GUILD_UPDATE); sets the upload limit Discord gives it (10, 10, 50,
   * 100 MiB). */
  setPremiumTier(tier: 0 | 1 | 2 | 3): void;

  // ---- guild model (changes after READY are dispatched so discord.js's cache follows) ----
  /** Adds (or, with a known id, replaces) a channel or thread: CHANNEL_/THREAD_CREATE or _UPDATE. */
  addChannel(input: ChannelInput): ApiChannel;
  /** Replaces a channel's permission overwrites (CHANNEL_UPDATE). On a category, its channels still
   * synced to it (the same overwrites as the category had) follow, as Discord keeps them in sync. */
  setChannelOverwrites(channelId: string, overwrites: OverwriteInput[]): ApiChannel;
  /** "Sync permissions" on a channel of a category: it takes the category's overwrites. */
  syncWithCategory(channelId: string): ApiChannel;
  /** Adds or updates a role (GUILD_ROLE_CREATE / GUILD_ROLE_UPDATE). The guild id is @everyone. */
  addRole(input: RoleInput): ApiRole;
  /** Adds or updates a member (GUILD_MEMBER_ADD / _UPDATE, which need the GuildMembers intent
   * except for the bot's own member). */
  addMember(input: MemberInput): ApiMember;
  /** 'guild': the bot's role gets `permissions` (null: back to DEFAULT_BOT_PERMISSIONS). A channel
   * id: a member overwrite for the bot makes its permissions there exactly `permissions` (null
   * removes it). Threads follow their parent's overwrites. */
  setBotPermissions(target: string, permissions: bigint | null): void;
  /** A member's permissions in a channel (or the guild), computed like discord.js does from
   * roles and overwrites (owner and Administrator get everything). Defaults to the bot. */
  permissionsIn(channelId: string | 'guild', userId?: string): bigint;

  // ---- command permissions (Server Settings → Integrations) ----
  /** An admin sets a command's overrides (by command id, or the application id for the whole app):
   * APPLICATION_COMMAND_PERMISSIONS_UPDATE. A bot cannot: its PUT answers 403 code 20001. */
  setCommandPermissions(commandId: string, permissions: CommandPermission[]): void;
  /** Whether Discord lets `userId` use the named command in the channel (default #general), from
   * its default_member_permissions, the overrides and the member's roles. Interactions of an
   * application command that Discord would not deliver are refused by the payload builders. */
  mayUseCommand(name: string, userId: string, channelId?: string, type?: number): boolean;

  // ---- other bots: chat filters and loggers ----
  /** Another bot joins (its member, with a role carrying `permissions`, and a position). */
  addOtherBot(input: { user: FakeDiscordUser; permissions: bigint; position?: number }): ApiMember;
  /** Another bot deletes a message (MESSAGE_DELETE, which never says by whom, as on Discord);
   * throws as Discord refuses: unknown message (10008), or no View Channel / Manage Messages. */
  deleteAsOtherBot(botId: string, messageId: string): void;
  /** A chat filter: deletes each new member message `matches` accepts, as `botId`. `on-create`:
   * right after its MESSAGE_CREATE; `before-bot-deletes`: when this bot's own DELETE of it arrives
   * (the race a filter wins just before the bot). Returns a function that removes the filter. */
  addFilterBot(input: { botId: string; matches: (message: ApiMessage) => boolean; when: 'on-create' | 'before-bot-deletes' }): () => void;
  /** Another bot posts a message (MESSAGE_CREATE); refused without View Channel and Send Messages
   * (and Embed Links for embeds) there. */
  postAsOtherBot(botId: string, channelId: string, fields: { content?: string; embeds?: Json[] }): ApiMessage;
  /** A logging bot: after each deletion of a member's message, posts a "message deleted" entry in
   * `logChannelId` naming the message's id, author and channel, as common loggers do. */
  addLoggingBot(input: { botId: string; logChannelId: string }): () => void;
  channel(id: string): ApiChannel | undefined;
  member(userId: string): ApiMember | undefined;

  // ---- messages ----
  /** A user posts a message: stored and dispatched as MESSAGE_CREATE (with guild_id, member). */
  sendUserMessage(input: UserMessageInput): ApiMessage;
  /** Its author edits a message (MESSAGE_UPDATE). */
  editUserMessage(messageId: string, fields: { content?: string; embeds?: Json[] }): ApiMessage;
  /** Its author (or a moderator) deletes a message (MESSAGE_DELETE). */
  deleteUserMessage(messageId: string): void;
  /** A member reacts (MESSAGE_REACTION_ADD with guild_id and member). */
  addReaction(input: ReactionInput): void;
  /** A member takes a reaction back (MESSAGE_REACTION_REMOVE). */
  removeReaction(input: ReactionInput): void;
  /** Current messages of a channel or thread, oldest first (ephemeral ones are not in channels). */
  messages(channelId: string): ApiMessage[];
  /** Deleted messages as they were when deleted, in deletion order. */
  deletedMessages(channelId?: string): ApiMessage[];
  /** What the bot sent a user in DMs (POST /users/@me/channels, then the DM channel), oldest first. */
  directMessages(userId: string): ApiMessage[];
  /** false: the user does not accept DMs (sending answers 403 code 50007). */
  setDirectMessagesOpen(userId: string, open: boolean): void;
  /** Stores a message without dispatching it (e.g. one carrying buttons that no interaction
   * created, or an old message the bot never saw). */
  createMessage(fields: Partial<ApiMessage>): ApiMessage;
  getMessage(id: string): ApiMessage | undefined;

  // ---- webhooks ----
  /** A webhook made outside the bot (token-less to the bot unless applicationId is the bot's). */
  addWebhook(input: WebhookInput): ApiWebhook;
  /** Deletes a webhook: any later use answers 404 Unknown Webhook (10015). */
  deleteWebhook(id: string): void;
  /** Current webhooks (with tokens), of one channel or all. */
  webhooks(channelId?: string): ApiWebhook[];
  /** Successful executions, edits and deletions through channel webhook tokens, in order. */
  webhookExecutions(): WebhookExecution[];

  // ---- waiting ----
  /** Resolves with the first truthy value `probe` returns, checked now and after every change
   * (HTTP request, stored message, dispatched event). */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  /** The first current message (any channel) the predicate accepts, now or later. */
  waitForMessage(predicate: (message: ApiMessage) => boolean, timeoutMs?: number): Promise<ApiMessage>;

  // ---- interactions ----
  /** A file given to a slash command's attachment option: stored, served like the CDN serves
   * such files (`/ephemeral-attachments/{app}/{id}/{name}`), and described as Discord describes it
   * (pass it through resolvedAttachments() as the command's `resolved`, its id as the value). */
  uploadAttachment(input: AttachmentInput): Json;
  slashCommand(input: SlashCommandInput): InteractionPayload;
  autocomplete(input: AutocompleteInput): InteractionPayload;
  button(input: ComponentInput): InteractionPayload;
  userContextMenu(input: UserContextMenuInput): InteractionPayload;
  messageContextMenu(input: MessageContextMenuInput): InteractionPayload;
  modalSubmit(input: ModalSubmitInput): InteractionPayload;
  dispatchInteraction(payload: InteractionPayload): InteractionHandle;
  /** Any other gateway event (op 0) on the live session, regardless of intents. */
  dispatchEvent(type: string, data: unknown): void;
  close(): Promise<void>;
}

// ---- internal state ------------------------------------------------------------------------------

export interface GatewaySession {
  id: string;
  socket: WebSocket | undefined;
  seq: number;
  /** The intents of the IDENTIFY that opened the session. */
  intents: number;
  /** Every dispatch with its sequence number, so a RESUME can replay what the client missed. */
  sent: { s: number; t: string; d: unknown }[];
  /** [shard id, shard count] from the IDENTIFY ([0, 1] without one). */
  shard: [number, number];
  /** When its socket went away (undefined: connected); past the resume window it cannot be resumed. */
  disconnectedAt?: number;
}

export interface InteractionState {
  payload: InteractionPayload;
  responses: RecordedResponse[];
  listeners: Set<() => void>;
  acknowledged: boolean;
  originalMessageId?: string;
  followUps: Set<string>;
}

export interface FailureRule {
  matcher: RestFailureMatcher;
  response: RestFailure;
  remaining: number;
}

export interface StoredAttachment {
  data: Buffer;
  contentType: string;
}

export interface ReactionState {
  emoji: { id: string | null; name: string; animated?: boolean };
  users: Set<string>;
}

/** A webhook as the fake keeps it: its token and creator, which only some routes reveal. */
export type WebhookState = ApiWebhook & { token: string; user: ApiUser | null };

/** A route's answer; undefined for a route the fake does not know (404). */
export type RouteResult = { status: number; body?: unknown } | undefined;
