// A fake Discord on loopback, good enough to drive the real, unmodified discord.js 14 and
// @discordjs/rest, plus the OAuth parts "Sign in with Discord" uses (the authorize page answers at
// once for the configured user, the token endpoint and the Bearer /users/@me).
//
// The bot side: REST under /api/v10 and a JSON gateway over `ws` at /gateway (HELLO, IDENTIFY,
// READY, GUILD_CREATE for one guild, heartbeats, RESUME). The guild is a small model (roles,
// channels with permission overwrites, threads, members) that GUILD_CREATE and later
// CHANNEL_/THREAD_/GUILD_ROLE_/GUILD_MEMBER_ events describe and that REST permission checks use,
// computed the way discord.js computes them from its cache. Tests post messages and reactions as
// users, dispatch interactions, and read back what the bot did: interaction answers, channel
// messages, webhooks and their executions, deletions. Gateway events honour the IDENTIFY intents
// (guild messages, reactions, members, webhooks, and message content). Every HTTP request is
// recorded so tests can assert what the service sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { mayUseCommand, type CommandPermission } from './command-permissions.js';
export type { CommandPermission } from './command-permissions.js';

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
  resumeCount(): number;
  waitForReady(timeoutMs?: number): Promise<void>;
  disconnectGateway(code?: number): void;
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

const DISCORD_EPOCH = 1420070400000n;
const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;
const OWNER_ID = '900000000000000009';

/** Gateway intents the fake honours. */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildWebhooks: 1 << 5,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
} as const;

/** Permission bits (the ones the fake checks, and a few neighbours). */
export const Permission = {
  CreateInstantInvite: 1n << 0n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  AddReactions: 1n << 6n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  ChangeNickname: 1n << 26n,
  ManageNicknames: 1n << 27n,
  ManageRoles: 1n << 28n,
  ManageWebhooks: 1n << 29n,
  UseApplicationCommands: 1n << 31n,
  ManageThreads: 1n << 34n,
  CreatePublicThreads: 1n << 35n,
  SendMessagesInThreads: 1n << 38n,
} as const;

/** Every permission bit (what the owner and Administrator get). */
export const ALL_PERMISSIONS = (1n << 53n) - 1n;

// @everyone's default-ish permissions in a fresh guild, and what an invited bot typically gets;
// the bot also needs webhooks and message management for proxying.
export const DEFAULT_EVERYONE_PERMISSIONS =
  Permission.CreateInstantInvite |
  Permission.AddReactions |
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.ReadMessageHistory |
  Permission.UseExternalEmojis |
  Permission.UseApplicationCommands |
  Permission.CreatePublicThreads |
  Permission.SendMessagesInThreads;
export const DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | Permission.ManageMessages | Permission.ManageWebhooks;
const EVERYONE_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS.toString();

const THREAD_TYPES = new Set([10, 11, 12]);
const MESSAGEABLE_TYPES = new Set([0, 2, 5, 10, 11, 12, 13]);
const WEBHOOK_CHANNEL_TYPES = new Set([0, 2, 5, 13, 15, 16]);
const THREAD_ONLY_TYPES = new Set([15, 16]);
/** Flags a webhook execution may set: suppress embeds, suppress notifications, components v2. */
const WEBHOOK_FLAGS = (1 << 2) | (1 << 12) | (1 << 15);
const MAX_WEBHOOKS_PER_CHANNEL = 15;

/** An API user object; `extra` overrides any field. */
export function user(id: string, username: string, extra: Partial<ApiUser> = {}): ApiUser {
  return {
    id,
    username,
    global_name: null,
    avatar: null,
    discriminator: '0',
    bot: false,
    system: false,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    ...extra,
  };
}

function toApiUser(value: FakeDiscordUser | ApiUser): ApiUser {
  return 'discriminator' in value ? value : user(value.id, value.username);
}

const JOINED_AT = new Date(Date.UTC(2024, 0, 1)).toISOString();

/** A guild member object without `user`, as in `resolved.members` (which carry permissions). */
function partialMember(permissions?: string, roles: string[] = [], nick: string | null = null, joinedAt = JOINED_AT): Json {
  return {
    roles,
    nick,
    avatar: null,
    banner: null,
    premium_since: null,
    joined_at: joinedAt,
    pending: false,
    communication_disabled_until: null,
    flags: 0,
    deaf: false,
    mute: false,
    ...(permissions === undefined ? {} : { permissions }),
  };
}

/** `data.resolved` for user options or targets: users and their guild members. */
export function resolvedUsers(users: (FakeDiscordUser | ApiUser)[], permissions = EVERYONE_PERMISSIONS): Json {
  const resolved: { users: Record<string, ApiUser>; members: Record<string, Json> } = { users: {}, members: {} };
  for (const u of users) {
    resolved.users[u.id] = toApiUser(u);
    resolved.members[u.id] = partialMember(permissions);
  }
  return resolved;
}

/** `data.resolved` for attachment options: the objects uploadAttachment() returned. */
export function resolvedAttachments(attachments: Json[]): Json {
  return { attachments: Object.fromEntries(attachments.map((attachment) => [String(attachment.id), attachment])) };
}

/** The headers and body of a Discord 429 that @discordjs/rest honours. */
export function rateLimited(retryAfterSeconds: number, times = 1): RestFailure {
  return {
    status: 429,
    times,
    headers: {
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.now() / 1000 + retryAfterSeconds),
      'x-ratelimit-reset-after': String(retryAfterSeconds),
      'x-ratelimit-bucket': 'fakebucket',
      'x-ratelimit-scope': 'user',
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: false },
  };
}

function role(id: string, name: string, position: number, permissions: string, extra: Json = {}): ApiRole {
  const colors = { primary_color: 0, secondary_color: null, tertiary_color: null };
  return { id, name, color: 0, colors, hoist: false, icon: null, unicode_emoji: null, position, permissions, managed: false, mentionable: false, flags: 0, ...extra };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.message));
  }
}

const missingPermissions = (): HttpError => new HttpError(403, { message: 'Missing Permissions', code: 50013 });
const missingAccess = (): HttpError => new HttpError(403, { message: 'Missing Access', code: 50001 });
const unknownChannel = (): HttpError => new HttpError(404, { message: 'Unknown Channel', code: 10003 });
const unknownMessage = (): HttpError => new HttpError(404, { message: 'Unknown Message', code: 10008 });
const unknownWebhook = (): HttpError => new HttpError(404, { message: 'Unknown Webhook', code: 10015 });
const invalidForm = (field: string, code: string, message: string): HttpError =>
  new HttpError(400, { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code, message }] } } });

interface GatewaySession {
  id: string;
  socket: WebSocket | undefined;
  seq: number;
  /** The intents of the IDENTIFY that opened the session. */
  intents: number;
  /** Every dispatch with its sequence number, so a RESUME can replay what the client missed. */
  sent: { s: number; t: string; d: unknown }[];
}

interface InteractionState {
  payload: InteractionPayload;
  responses: RecordedResponse[];
  listeners: Set<() => void>;
  acknowledged: boolean;
  originalMessageId?: string;
  followUps: Set<string>;
}

interface FailureRule {
  matcher: RestFailureMatcher;
  response: RestFailure;
  remaining: number;
}

interface StoredAttachment {
  data: Buffer;
  contentType: string;
}

interface ReactionState {
  emoji: { id: string | null; name: string; animated?: boolean };
  users: Set<string>;
}

function waitWithTimeout(what: string, timeoutMs: number, register: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let unregister = (): void => undefined;
    const timer = setTimeout(() => {
      unregister();
      reject(new Error(`fake Discord: timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    unregister = register(() => {
      clearTimeout(timer);
      unregister();
      resolve();
    });
  });
}

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
};

function contentTypeFor(filename: string): string {
  const extension = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/** '❓' → { id: null, name: '❓' }; 'name:id', 'a:name:id', '<:name:id>' → a custom emoji. */
function parseEmoji(value: string): ReactionState['emoji'] {
  const custom = /^<?(a)?:?([\w~-]+):(\d{15,21})>?$/.exec(value);
  if (custom?.[2] && custom[3]) return { id: custom[3], name: custom[2], ...(custom[1] ? { animated: true } : {}) };
  return { id: null, name: value };
}

const emojiKey = (emoji: ReactionState['emoji']): string => emoji.id ?? emoji.name;
const shortHash = (value: string | Buffer): string => createHash('md5').update(value).digest('hex');
const bits = (value: bigint | string | undefined): bigint => (value === undefined ? 0n : BigInt(value));

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const clientId = '100000000000000001';
  const clientSecret = randomBytes(16).toString('hex');
  const applicationId = clientId;
  const botToken = `${Buffer.from(applicationId).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(20).toString('base64url')}`;
  const botUser = user(applicationId, 'Switchboard', { bot: true, global_name: null });
  const guild = { id: '200000000000000002', name: 'Fake Guild' };
  const channelId = '300000000000000003';
  const channelName = 'general';
  const botRoleId = '200000000000000012';

  const requests: RecordedRequest[] = [];
  const codes = new Map<string, { user: FakeDiscordUser; redirectUri: string }>();
  const tokens = new Map<string, FakeDiscordUser>();
  let currentUser: FakeDiscordUser | undefined;

  let lastSnowflake = 0n;
  const snowflake = (): string => {
    const fromClock = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
    lastSnowflake = fromClock > lastSnowflake ? fromClock : lastSnowflake + 1n;
    return lastSnowflake.toString();
  };
  const snowflakeTime = (id: string): string => {
    try {
      return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH)).toISOString();
    } catch {
      return new Date().toISOString();
    }
  };

  const globalCommands: Json[] = [];
  const guildCommands = new Map<string, Json[]>();
  const messages = new Map<string, ApiMessage>();
  const interactionsByToken = new Map<string, InteractionState>();
  let failures: FailureRule[] = [];

  // The guild model: what GUILD_CREATE describes and REST permission checks use.
  const channels = new Map<string, ApiChannel>();
  const roles = new Map<string, ApiRole>();
  const members = new Map<string, ApiMember>();
  const webhooks = new Map<string, ApiWebhook & { token: string; user: ApiUser | null }>();
  const executions: WebhookExecution[] = [];
  const deleted: ApiMessage[] = [];
  const attachmentStore = new Map<string, StoredAttachment>();
  const reactions = new Map<string, Map<string, ReactionState>>();
  // Direct messages: one DM channel per user, and users who do not accept DMs from the bot.
  const dmChannels = new Map<string, { channel: Json; userId: string }>();
  const dmByUser = new Map<string, string>();
  const closedDms = new Set<string>();
  let uploadLimit = 10 * 1024 * 1024;
  let premiumTier = 0;

  const watchers = new Set<() => void>();
  // Watchers never throw (waitFor catches its probe's errors), so a request never fails for them.
  const notify = (): void => {
    for (const watcher of [...watchers]) watcher();
  };

  const sessions = new Map<string, GatewaySession>();
  const sockets = new Set<WebSocket>();
  let liveSession: GatewaySession | undefined;
  const identifies: Json[] = [];
  let resumes = 0;
  let resumesAtLastDisconnect = 0;
  const readyListeners = new Set<() => void>();
  const resumeListeners = new Set<() => void>();

  let port = 0;
  const gatewayUrl = (): string => `ws://127.0.0.1:${port}/gateway`;

  // ---- gateway dispatch ------------------------------------------------------------------------

  const send = (socket: WebSocket, payload: Json): void => {
    socket.send(JSON.stringify(payload));
  };

  const dispatchTo = (session: GatewaySession, t: string, d: unknown): void => {
    session.seq += 1;
    const event = { s: session.seq, t, d };
    session.sent.push(event);
    // With no socket the event waits in `sent` for the client's RESUME, as on Discord.
    if (session.socket) send(session.socket, { op: 0, ...event });
  };

  /** Dispatches on the live session when its intents include `intent` (0: always). The data is
   * built (or copied) now, so later changes to the fake's state do not leak into a buffered event. */
  const dispatchIf = (intent: number, t: string, d: Json | ((intents: number) => Json)): void => {
    const session = liveSession;
    if (!session || (intent !== 0 && (session.intents & intent) === 0)) return;
    dispatchTo(session, t, typeof d === 'function' ? d(session.intents) : structuredClone(d));
  };

  // ---- guild model -----------------------------------------------------------------------------

  const isThread = (channel: ApiChannel | undefined): boolean => channel !== undefined && THREAD_TYPES.has(channel.type);

  const overwriteKey = (o: ApiOverwrite): string => `${o.id}:${o.type}:${o.allow}:${o.deny}`;
  const sameOverwrites = (a: ApiOverwrite[] | undefined, b: ApiOverwrite[] | undefined): boolean => {
    const left = (a ?? []).map(overwriteKey).sort();
    const right = (b ?? []).map(overwriteKey).sort();
    return left.length === right.length && left.every((key, index) => key === right[index]);
  };

  const toOverwrite = (input: OverwriteInput): ApiOverwrite => {
    const type = input.type ? (input.type === 'role' ? 0 : 1) : roles.has(input.id) ? 0 : 1;
    return { id: input.id, type, allow: bits(input.allow).toString(), deny: bits(input.deny).toString() };
  };

  const channelJson = (input: ChannelInput, id: string, previous?: ApiChannel): ApiChannel => {
    const type = input.type ?? previous?.type ?? 0;
    if (THREAD_TYPES.has(type)) {
      const parentId = input.parentId ?? previous?.parent_id ?? undefined;
      const parent = parentId === undefined ? undefined : channels.get(parentId);
      if (!parent || isThread(parent) || parent.type === 4) throw new Error(`fake Discord: thread "${input.name}" needs a parentId naming a text or forum channel`);
      if (input.overwrites?.length) throw new Error('fake Discord: threads have no permission overwrites; set them on the parent channel');
      const created = ((previous?.thread_metadata as Json | undefined)?.create_timestamp as string | undefined) ?? snowflakeTime(id);
      return {
        id,
        type,
        guild_id: guild.id,
        name: input.name,
        parent_id: parent.id,
        owner_id: OWNER_ID,
        last_message_id: (previous?.last_message_id as string | null | undefined) ?? null,
        message_count: (previous?.message_count as number | undefined) ?? 0,
        member_count: 1,
        total_message_sent: (previous?.total_message_sent as number | undefined) ?? 0,
        rate_limit_per_user: 0,
        flags: 0,
        applied_tags: [],
        thread_metadata: {
          archived: input.archived ?? false,
          auto_archive_duration: 1440,
          archive_timestamp: created,
          locked: input.locked ?? false,
          create_timestamp: created,
          ...(type === 12 ? { invitable: true } : {}),
        },
      };
    }
    const parentId = input.parentId ?? previous?.parent_id ?? null;
    const category = parentId === null ? undefined : channels.get(parentId);
    // Discord: categories do not nest, and a channel's parent is a category (50035 otherwise).
    if (parentId !== null && type === 4) throw new Error(`fake Discord: category "${input.name}" cannot be in a category`);
    if (parentId !== null && category?.type !== 4) throw new Error(`fake Discord: channel "${input.name}" needs a parentId naming a category (type 4)`);
    const base: ApiChannel = {
      id,
      type,
      guild_id: guild.id,
      name: input.name,
      position: (previous?.position as number | undefined) ?? channels.size,
      // A channel made in a category starts synced to it: a copy of the category's overwrites.
      permission_overwrites: input.overwrites ? input.overwrites.map(toOverwrite) : structuredClone(previous?.permission_overwrites ?? (previous ? [] : (category?.permission_overwrites ?? []))),
      parent_id: parentId,
      nsfw: false,
      flags: 0,
    };
    if (type === 4) return base;
    const textLike = { topic: null, last_message_id: (previous?.last_message_id as string | null | undefined) ?? null, rate_limit_per_user: 0, default_auto_archive_duration: 1440 };
    if (THREAD_ONLY_TYPES.has(type)) {
      return {
        ...base,
        ...textLike,
        available_tags: [],
        default_reaction_emoji: null,
        default_thread_rate_limit_per_user: 0,
        default_sort_order: null,
        default_forum_layout: 0,
        template: '',
      };
    }
    return { ...base, ...textLike };
  };

  const publishChannel = (channel: ApiChannel, existed: boolean): void => {
    if (isThread(channel)) dispatchIf(Intent.Guilds, existed ? 'THREAD_UPDATE' : 'THREAD_CREATE', existed ? channel : { ...channel, newly_created: true });
    else dispatchIf(Intent.Guilds, existed ? 'CHANNEL_UPDATE' : 'CHANNEL_CREATE', channel);
  };

  const putChannel = (input: ChannelInput): ApiChannel => {
    const id = input.id ?? snowflake();
    const previous = channels.get(id);
    const channel = channelJson(input, id, previous);
    channels.set(id, channel);
    publishChannel(channel, previous !== undefined);
    notify();
    return channel;
  };

  const memberJson = (memberUser: ApiUser, memberRoles: string[], nick: string | null = null): ApiMember =>
    ({ ...partialMember(undefined, memberRoles, nick), user: memberUser }) as ApiMember;

  const memberPartial = (userId: string): Json | undefined => {
    const member = members.get(userId);
    return member && partialMember(undefined, member.roles, member.nick, member.joined_at);
  };

  const putMember = (input: MemberInput, silently = false): ApiMember => {
    const memberUser = toApiUser(input.user);
    const previous = members.get(memberUser.id);
    const member = memberJson(memberUser, input.roles ?? previous?.roles ?? [], input.nick === undefined ? (previous?.nick ?? null) : input.nick);
    members.set(memberUser.id, member);
    if (!silently) {
      const own = memberUser.id === botUser.id;
      if (previous) dispatchIf(own ? 0 : Intent.GuildMembers, 'GUILD_MEMBER_UPDATE', { ...member, guild_id: guild.id });
      else dispatchIf(Intent.GuildMembers, 'GUILD_MEMBER_ADD', { ...member, guild_id: guild.id });
      notify();
    }
    return member;
  };

  const putRole = (input: RoleInput): ApiRole => {
    const id = input.id ?? snowflake();
    const previous = roles.get(id);
    const next = previous
      ? { ...previous, name: input.name, permissions: bits(input.permissions).toString(), position: input.position ?? previous.position, mentionable: input.mentionable ?? previous.mentionable }
      : role(id, input.name, input.position ?? roles.size, bits(input.permissions).toString(), { mentionable: input.mentionable ?? false });
    roles.set(id, next);
    dispatchIf(Intent.Guilds, previous ? 'GUILD_ROLE_UPDATE' : 'GUILD_ROLE_CREATE', { guild_id: guild.id, role: next });
    notify();
    return next;
  };

  roles.set(guild.id, role(guild.id, '@everyone', 0, EVERYONE_PERMISSIONS));
  roles.set(botRoleId, role(botRoleId, botUser.username, 1, DEFAULT_BOT_PERMISSIONS.toString(), { managed: true, tags: { bot_id: botUser.id } }));
  members.set(botUser.id, memberJson(botUser, [botRoleId]));
  channels.set(channelId, channelJson({ name: channelName }, channelId));

  const basePermissions = (userId: string): bigint => {
    if (userId === OWNER_ID) return ALL_PERMISSIONS;
    let permissions = bits(roles.get(guild.id)?.permissions);
    for (const roleId of members.get(userId)?.roles ?? []) permissions |= bits(roles.get(roleId)?.permissions);
    return (permissions & Permission.Administrator) !== 0n ? ALL_PERMISSIONS : permissions;
  };

  /** As discord.js's GuildChannel#permissionsFor: @everyone's overwrite, then the member's roles'
   * overwrites together, then the member's own; threads use their parent's. */
  const permissionsIn = (target: string, userId = botUser.id): bigint => {
    const base = basePermissions(userId);
    if (target === 'guild' || base === ALL_PERMISSIONS) return base;
    let channel = channels.get(target);
    if (channel && isThread(channel)) channel = channel.parent_id ? channels.get(channel.parent_id) : undefined;
    if (!channel) return base;
    const memberRoles = new Set(members.get(userId)?.roles ?? []);
    let everyone: ApiOverwrite | undefined;
    let own: ApiOverwrite | undefined;
    let roleAllow = 0n;
    let roleDeny = 0n;
    for (const overwrite of channel.permission_overwrites ?? []) {
      if (overwrite.id === guild.id) everyone = overwrite;
      else if (memberRoles.has(overwrite.id)) {
        roleAllow |= bits(overwrite.allow);
        roleDeny |= bits(overwrite.deny);
      } else if (overwrite.id === userId) own = overwrite;
    }
    let permissions = (base & ~bits(everyone?.deny)) | bits(everyone?.allow);
    permissions = (permissions & ~roleDeny) | roleAllow;
    return (permissions & ~bits(own?.deny)) | bits(own?.allow);
  };

  const requirePermission = (target: string, permission: bigint): void => {
    if ((permissionsIn(target) & permission) !== permission) throw missingPermissions();
  };

  /** A channel the bot may see, or the error Discord gives. */
  const visibleChannel = (id: string): ApiChannel => {
    const channel = channels.get(id);
    if (!channel) throw unknownChannel();
    if ((permissionsIn(id) & Permission.ViewChannel) === 0n) throw missingAccess();
    return channel;
  };

  // ---- messages --------------------------------------------------------------------------------

  const isEphemeral = (message: ApiMessage): boolean => (message.flags & EPHEMERAL) !== 0;

  const newMessage = (fields: Partial<ApiMessage>): ApiMessage => {
    const id = fields.id ?? snowflake();
    const message: ApiMessage = {
      id,
      type: 0,
      channel_id: channelId,
      guild_id: guild.id,
      author: botUser,
      content: '',
      timestamp: snowflakeTime(id),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: 0,
      components: [],
      ...fields,
    };
    messages.set(message.id, message);
    const channel = channels.get(message.channel_id);
    if (channel && !isEphemeral(message)) {
      channel.last_message_id = message.id;
      if (isThread(channel)) {
        channel.message_count = Number(channel.message_count ?? 0) + 1;
        channel.total_message_sent = Number(channel.total_message_sent ?? 0) + 1;
      }
    }
    return message;
  };

  /** A message as MESSAGE_CREATE/UPDATE carries it: guild_id, the author's member, members on
   * mentions, and no user-typed content unless the session has the MessageContent intent (or the
   * bot wrote or is mentioned in the message), as on Discord. */
  const gatewayMessage = (message: ApiMessage, intents: number): Json => {
    const d = structuredClone(message) as Json;
    const dm = dmChannels.has(message.channel_id);
    if (dm) delete d.guild_id;
    else d.guild_id = guild.id;
    if (!dm && (message.webhook_id === undefined || message.webhook_id === null)) {
      const member = memberPartial(message.author.id);
      if (member) d.member = member;
    }
    d.mentions = message.mentions.map((mentioned) => {
      const member = memberPartial(mentioned.id);
      return member ? { ...mentioned, member } : mentioned;
    });
    const privileged = dm || message.author.id === botUser.id || message.mentions.some((m) => m.id === botUser.id);
    if ((intents & Intent.MessageContent) === 0 && !privileged) {
      d.content = '';
      d.embeds = [];
      d.attachments = [];
      d.components = [];
      delete d.poll;
    }
    return d;
  };

  const dispatchMessage = (t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: ApiMessage): void => {
    if (isEphemeral(message)) return;
    dispatchIf(dmChannels.has(message.channel_id) ? Intent.DirectMessages : Intent.GuildMessages, t, (intents) => gatewayMessage(message, intents));
  };

  const removeMessage = (message: ApiMessage): void => {
    messages.delete(message.id);
    reactions.delete(message.id);
    deleted.push(structuredClone(message));
    if (isEphemeral(message)) return;
    if (dmChannels.has(message.channel_id)) dispatchIf(Intent.DirectMessages, 'MESSAGE_DELETE', { id: message.id, channel_id: message.channel_id });
    else dispatchIf(Intent.GuildMessages, 'MESSAGE_DELETE', { id: message.id, channel_id: message.channel_id, guild_id: guild.id });
    reportDeletion(message);
  };

  const storeAttachment = (inChannel: string, file: AttachmentInput, folder = 'attachments'): Json => {
    const id = snowflake();
    const contentType = file.contentType || contentTypeFor(file.filename);
    attachmentStore.set(id, { data: file.data, contentType });
    const now = Math.floor(Date.now() / 1000);
    // Signed like Discord's CDN links, so code that parses the URL meets a query string.
    const url = `http://127.0.0.1:${port}/${folder}/${inChannel}/${id}/${encodeURIComponent(file.filename)}?ex=${(now + 86_400).toString(16)}&is=${now.toString(16)}&hm=${shortHash(id)}&`;
    return {
      id,
      filename: file.filename,
      size: file.data.length,
      url,
      proxy_url: url,
      content_type: contentType,
      ...(file.description === undefined ? {} : { description: file.description }),
    };
  };

  /** Attachments after a create/edit: those the body keeps, plus the uploaded files (`files[n]`,
   * described by the body's `attachments` entry with id n). */
  const attachmentsFor = (files: RecordedFile[], body: Json, inChannel: string, previous: Json[] = []): Json[] => {
    const described = Array.isArray(body.attachments) ? (body.attachments as Json[]) : [];
    const kept = Array.isArray(body.attachments) ? previous.filter((a) => described.some((b) => String(b.id) === String(a.id))) : previous;
    const added = files.map((file, index) => {
      const n = /^files\[(\d+)\]$/.exec(file.field)?.[1] ?? String(index);
      const meta = described.find((b) => String(b.id) === n);
      return storeAttachment(inChannel, {
        filename: typeof meta?.filename === 'string' ? meta.filename : file.filename,
        contentType: file.contentType,
        data: file.data,
        ...(typeof meta?.description === 'string' ? { description: meta.description } : {}),
      });
    });
    return [...kept, ...added];
  };

  /** The fields of a create/edit body that end up on the message. */
  const messageFields = (body: Json, files: RecordedFile[], inChannel: string, previous?: ApiMessage): Partial<ApiMessage> => {
    const fields: Partial<ApiMessage> = {};
    if (typeof body.content === 'string') fields.content = body.content;
    if (Array.isArray(body.embeds)) fields.embeds = body.embeds as Json[];
    if (Array.isArray(body.components)) fields.components = body.components as Json[];
    if (body.poll !== undefined) fields.poll = body.poll;
    if (files.length > 0 || Array.isArray(body.attachments)) fields.attachments = attachmentsFor(files, body, inChannel, previous?.attachments);
    const oldFlags = previous?.flags ?? 0;
    const requested = typeof body.flags === 'number' ? body.flags : undefined;
    // Ephemerality is fixed when the message is created; edits only change the other flags.
    fields.flags = previous
      ? (oldFlags & EPHEMERAL) | ((requested ?? oldFlags) & ~(EPHEMERAL | LOADING))
      : (requested ?? 0);
    return fields;
  };

  const editMessage = (message: ApiMessage, body: Json, files: RecordedFile[]): ApiMessage => {
    Object.assign(message, messageFields(body, files, message.channel_id, message), { edited_timestamp: new Date().toISOString() });
    return message;
  };

  const knownUser = (id: string): ApiUser | undefined => members.get(id)?.user ?? (id === botUser.id ? botUser : undefined);

  const dmChannelFor = (recipient: ApiUser): Json => {
    const existing = dmByUser.get(recipient.id);
    const known = existing === undefined ? undefined : dmChannels.get(existing);
    if (known) return known.channel;
    const channel: Json = { id: snowflake(), type: 1, last_message_id: null, flags: 0, recipients: [recipient] };
    dmChannels.set(channel.id as string, { channel, userId: recipient.id });
    dmByUser.set(recipient.id, channel.id as string);
    return channel;
  };

  /** Mentions Discord derives from content, filtered by `allowed_mentions` (absent: all). */
  const mentionsFor = (content: string, allowed: unknown, repliedTo?: ApiUser): Pick<ApiMessage, 'mentions' | 'mention_roles'> & { mention_everyone: boolean } => {
    const rules = allowed && typeof allowed === 'object' ? (allowed as Json) : undefined;
    const parse = Array.isArray(rules?.parse) ? (rules.parse as string[]) : [];
    const listed = (key: string, id: string): boolean => Array.isArray(rules?.[key]) && (rules[key] as string[]).includes(id);
    const userIds = new Set([...content.matchAll(/<@!?(\d{15,21})>/g)].map((m) => m[1] ?? ''));
    const roleIds = new Set([...content.matchAll(/<@&(\d{15,21})>/g)].map((m) => m[1] ?? ''));
    const mentions: ApiUser[] = [];
    for (const id of userIds) {
      const known = knownUser(id);
      if (known && (!rules || parse.includes('users') || listed('users', id))) mentions.push(known);
    }
    if (repliedTo && (!rules || rules.replied_user === true) && !mentions.some((m) => m.id === repliedTo.id)) mentions.push(repliedTo);
    return {
      mentions,
      mention_roles: [...roleIds].filter((id) => roles.has(id) && (!rules || parse.includes('roles') || listed('roles', id))),
      mention_everyone: /@(everyone|here)\b/.test(content) && (!rules || parse.includes('everyone')),
    };
  };

  const validateMessage = (body: Json, files: RecordedFile[], creating: boolean): void => {
    // Discord counts message length in code points (discord-api-docs #1315), not UTF-16 units.
    if (typeof body.content === 'string' && [...body.content].length > 2000) throw invalidForm('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
    if (Array.isArray(body.embeds) && body.embeds.length > 10) throw invalidForm('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
    if (files.reduce((total, file) => total + file.data.length, 0) > uploadLimit) throw new HttpError(413, { message: 'Request entity too large', code: 40005 });
    if (!creating) return;
    const hasContent = typeof body.content === 'string' && body.content.trim() !== '';
    const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;
    if (!hasContent && !nonEmpty(body.embeds) && files.length === 0 && !nonEmpty(body.components) && !body.poll && !nonEmpty(body.sticker_ids)) {
      throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    }
  };

  const validateWebhookName = (field: string, value: unknown): void => {
    if (typeof value !== 'string' || value.trim() === '' || value.length > 80) throw invalidForm(field, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 80 in length.');
    const forbidden = /clyde|discord/i.exec(value)?.[0];
    if (forbidden) throw invalidForm(field, 'USERNAME_INVALID_CONTAINS', `Username cannot contain "${forbidden.toLowerCase()}"`);
  };

  const renderReactions = (message: ApiMessage): void => {
    const list = [...(reactions.get(message.id)?.values() ?? [])]
      .filter((r) => r.users.size > 0)
      .map((r) => ({ emoji: r.emoji, count: r.users.size, count_details: { burst: 0, normal: r.users.size }, burst_colors: [], me: r.users.has(botUser.id), me_burst: false }));
    if (list.length > 0) message.reactions = list;
    else delete message.reactions;
  };

  const reactionAdd = (message: ApiMessage, userId: string, emoji: ReactionState['emoji']): void => {
    let perMessage = reactions.get(message.id);
    if (!perMessage) reactions.set(message.id, (perMessage = new Map()));
    let state = perMessage.get(emojiKey(emoji));
    if (!state) perMessage.set(emojiKey(emoji), (state = { emoji, users: new Set() }));
    if (state.users.has(userId)) return;
    state.users.add(userId);
    renderReactions(message);
    const member = members.get(userId);
    dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_ADD', {
      user_id: userId,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      ...(member ? { member } : {}),
      emoji: state.emoji,
      message_author_id: message.author.id,
      burst: false,
      burst_colors: [],
      type: 0,
    });
  };

  const reactionRemove = (message: ApiMessage, userId: string, emoji: ReactionState['emoji']): void => {
    const state = reactions.get(message.id)?.get(emojiKey(emoji));
    if (!state?.users.delete(userId)) return;
    renderReactions(message);
    dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE', {
      user_id: userId,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      emoji: state.emoji,
      burst: false,
      type: 0,
    });
  };

  // ---- webhooks --------------------------------------------------------------------------------

  type WebhookState = ApiWebhook & { token: string; user: ApiUser | null };

  const webhookJson = (webhook: WebhookState, withToken: boolean, withUser = true): ApiWebhook => {
    const { token, user: creator, ...rest } = webhook;
    return { ...structuredClone(rest), ...(withUser && creator ? { user: creator } : {}), ...(withToken ? { token } : {}) };
  };

  const ownWebhook = (webhook: WebhookState): boolean => webhook.application_id === applicationId;

  const putWebhook = (inChannel: string, name: string, avatar: string | null, owner: string | null, creator: ApiUser | null, id = snowflake()): WebhookState => {
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

  const textChannel = (id: string, name: string): Json => ({
    id,
    type: 0,
    guild_id: guild.id,
    name,
    position: 0,
    permission_overwrites: [],
    parent_id: null,
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  });

  // ---- gateway ---------------------------------------------------------------------------------

  const guildObject = (): Json => ({
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: OWNER_ID,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: premiumTier,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    features: [],
    application_id: null,
    system_channel_id: channelId,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    max_members: 500000,
    max_video_channel_users: 25,
    roles: [...roles.values()],
    emojis: [],
    stickers: [],
  });

  const guildCreate = (intents: number): Json => ({
    ...guildObject(),
    joined_at: JOINED_AT,
    large: false,
    unavailable: false,
    lazy: true,
    member_count: members.size,
    // Discord always includes the bot's own member, which guild.members.me relies on; other
    // members only come with the GuildMembers intent in this fake.
    members: [...members.values()].filter((m) => m.user.id === botUser.id || (intents & Intent.GuildMembers) !== 0),
    channels: [...channels.values()].filter((c) => !isThread(c)),
    threads: [...channels.values()].filter((c) => isThread(c)),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    embedded_activities: [],
  });

  const onIdentify = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    identifies.push(d);
    if (d.token !== botToken) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    if (identified.session) {
      socket.close(4005, 'Already authenticated.');
      return;
    }
    const intents = Number(d.intents ?? 0);
    const session: GatewaySession = { id: randomBytes(16).toString('hex'), socket, seq: 0, intents: Number.isFinite(intents) ? intents : 0, sent: [] };
    sessions.set(session.id, session);
    identified.session = session;
    liveSession = session;
    dispatchTo(session, 'READY', {
      v: 10,
      user: { ...botUser, verified: true, mfa_enabled: false, email: null },
      guilds: [{ id: guild.id, unavailable: true }],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: gatewayUrl(),
      ...(Array.isArray(d.shard) ? { shard: d.shard } : {}),
      application: { id: applicationId, flags: 0 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
      auth_session_id_hash: randomBytes(16).toString('base64'),
      _trace: ['["fake-discord",{}]'],
    });
    dispatchTo(session, 'GUILD_CREATE', structuredClone(guildCreate(session.intents)));
    for (const listener of [...readyListeners]) listener();
  };

  const onResume = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
    if (d.token !== botToken || !session) {
      send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    session.socket = socket;
    identified.session = session;
    liveSession = session;
    const seenSeq = typeof d.seq === 'number' ? d.seq : 0;
    for (const event of session.sent) if (event.s > seenSeq) send(socket, { op: 0, ...event });
    dispatchTo(session, 'RESUMED', null);
    resumes += 1;
    for (const listener of [...resumeListeners]) listener();
  };

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (socket: WebSocket) => {
    sockets.add(socket);
    const identified: { session?: GatewaySession } = {};
    socket.on('error', () => undefined);
    socket.on('message', (raw) => {
      let payload: Json;
      try {
        payload = JSON.parse(raw.toString()) as Json;
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const d = (payload.d ?? {}) as Json;
      switch (payload.op) {
        case 1:
          send(socket, { op: 11, d: null, s: null, t: null });
          break;
        case 2:
          onIdentify(socket, d, identified);
          break;
        case 6:
          onResume(socket, d, identified);
          break;
        default:
          // Presence updates, member requests and voice state: nothing the tests need answered.
          break;
      }
      notify();
    });
    socket.on('close', (code) => {
      sockets.delete(socket);
      const session = identified.session;
      if (!session || session.socket !== socket) return;
      session.socket = undefined;
      // A normal close ends the session on Discord; other codes leave it resumable.
      if (code === 1000 || code === 1001) {
        sessions.delete(session.id);
        if (liveSession === session) liveSession = undefined;
      }
    });
    send(socket, { op: 10, d: { heartbeat_interval: 41250, _trace: ['["fake-discord",{}]'] }, s: null, t: null });
  });

  // ---- interactions ----------------------------------------------------------------------------

  const stateFor = (token: string): InteractionState => {
    const state = interactionsByToken.get(token);
    if (!state) throw unknownWebhook();
    return state;
  };

  const record = (state: InteractionState, response: RecordedResponse): void => {
    state.responses.push(response);
    for (const listener of [...state.listeners]) listener();
  };

  const interactionMetadata = (state: InteractionState): Json => {
    const p = state.payload;
    const member = p.member as Json | undefined;
    return {
      id: p.id,
      type: p.type,
      user: member?.user ?? p.user,
      authorizing_integration_owners: p.authorizing_integration_owners,
      ...(typeof p.data?.name === 'string' ? { name: p.data.name } : {}),
    };
  };

  const messageTypeFor = (state: InteractionState): number => {
    if (state.payload.type !== 2) return 0;
    return state.payload.data?.type === 1 ? 20 : 23;
  };

  const onCallback = (id: string, token: string, body: Json, files: RecordedFile[], withResponse: boolean, receivedAt: bigint): { status: number; body?: Json } => {
    const state = interactionsByToken.get(token);
    if (!state || state.payload.id !== id) throw new HttpError(404, { message: 'Unknown interaction', code: 10062 });
    if (state.acknowledged) throw new HttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
    const type = Number(body.type);
    const data = (body.data ?? {}) as Json;
    const inChannel = state.payload.channel_id as string;
    let message: ApiMessage | undefined;
    const component = state.payload.message ? messages.get(state.payload.message.id) : undefined;
    switch (type) {
      case 4:
      case 5: {
        const fields = messageFields(data, files, inChannel);
        if (type === 5) fields.flags = ((fields.flags ?? 0) & EPHEMERAL) | LOADING;
        message = newMessage({
          ...fields,
          type: messageTypeFor(state),
          channel_id: inChannel,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.originalMessageId = message.id;
        dispatchMessage('MESSAGE_CREATE', message);
        break;
      }
      case 6:
      case 7:
        if (!component) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
        if (type === 7) {
          editMessage(component, data, files);
          dispatchMessage('MESSAGE_UPDATE', component);
        }
        message = component;
        state.originalMessageId = component.id;
        break;
      case 8:
      case 9:
        break;
      default:
        throw new HttpError(400, {
          message: 'Invalid Form Body',
          code: 50035,
          errors: { type: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.' }] } },
        });
    }
    state.acknowledged = true;
    record(state, { kind: 'callback', callbackType: type, messageId: message?.id, body: data, files, receivedAt });
    if (!withResponse) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: state.payload.id,
          type: state.payload.type,
          activity_instance_id: null,
          response_message_id: message?.id ?? null,
          response_message_loading: type === 5,
          response_message_ephemeral: message ? (message.flags & EPHEMERAL) !== 0 : false,
        },
        resource: { type, ...(message ? { message } : {}) },
      },
    };
  };

  const resolveMessageId = (state: InteractionState, messageId: string): ApiMessage => {
    const id = messageId === '@original' ? state.originalMessageId : messageId;
    const message = id === undefined ? undefined : messages.get(id);
    if (!message || (messageId !== '@original' && !state.followUps.has(message.id))) throw unknownMessage();
    return message;
  };

  // ---- HTTP ------------------------------------------------------------------------------------

  const readForm = async (raw: Buffer, contentType: string): Promise<{ json: Json; files: RecordedFile[] }> => {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    let json: Json = {};
    const files: RecordedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') json = JSON.parse(value) as Json;
      } else {
        files.push({ field, filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    return { json, files };
  };

  const readBody = async (req: IncomingMessage, raw: Buffer): Promise<{ json: Json; files: RecordedFile[] }> => {
    const contentType = req.headers['content-type'] ?? '';
    if (contentType.startsWith('multipart/form-data')) return readForm(raw, contentType);
    if (contentType.startsWith('application/json') && raw.length > 0) {
      try {
        return { json: JSON.parse(raw.toString('utf8')) as Json, files: [] };
      } catch {
        throw new HttpError(400, { message: 'The request body contains invalid JSON.', code: 50109 });
      }
    }
    return { json: {}, files: [] };
  };

  const requireBot = (req: IncomingMessage): void => {
    if (req.headers.authorization !== `Bot ${botToken}`) throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
  };

  const storeCommands = (existing: Json[], incoming: Json[], scopeGuildId?: string): Json[] => {
    const stored = incoming.map((command) => {
      const type = command.type ?? 1;
      const previous = existing.find((c) => c.name === command.name && c.type === type);
      return {
        id: previous?.id ?? snowflake(),
        application_id: applicationId,
        version: snowflake(),
        default_member_permissions: null,
        type,
        description: '',
        dm_permission: true,
        nsfw: false,
        integration_types: [0],
        contexts: null,
        ...(scopeGuildId ? { guild_id: scopeGuildId } : {}),
        ...command,
      };
    });
    existing.splice(0, existing.length, ...stored);
    return stored;
  };

  const commandListFor = (guildId: string | undefined): Json[] => {
    if (!guildId) return globalCommands;
    if (guildId !== guild.id) throw new HttpError(403, { message: 'Missing Access', code: 50001 });
    let list = guildCommands.get(guildId);
    if (!list) guildCommands.set(guildId, (list = []));
    return list;
  };

  const applicationObject = (): Json => ({
    id: applicationId,
    name: botUser.username,
    icon: null,
    description: '',
    summary: '',
    type: null,
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: randomBytes(32).toString('hex'),
    flags: 0,
    hook: true,
    is_monetized: false,
    team: null,
    owner: user(OWNER_ID, 'owner'),
    bot: botUser,
    approximate_guild_count: 1,
    approximate_user_install_count: 0,
    interactions_endpoint_url: null,
    role_connections_verification_url: null,
    redirect_uris: [],
    tags: [],
    integration_types_config: { '0': {} },
  });

  type RouteResult = { status: number; body?: unknown } | undefined;

  /** Message and reaction routes under /channels/{c}, as the bot calls them. */
  const channelRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer): Promise<RouteResult> => {
    requireBot(req);
    const method = req.method ?? 'GET';
    const [, id, third, messageId, fifth, emojiSegment, userSegment] = segments;
    if (id === undefined) return undefined;
    const dm = dmChannels.get(id);
    if (dm) return dmRoute(req, id, dm, segments.slice(2), raw);
    const channel = visibleChannel(id);
    const thread = isThread(channel);

    if (third === undefined) {
      if (method === 'GET') return { status: 200, body: channel };
      return undefined;
    }

    if (third === 'typing' && messageId === undefined && method === 'POST') return { status: 204 };

    if (third === 'webhooks' && messageId === undefined) {
      if (thread || !WEBHOOK_CHANNEL_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
      requirePermission(id, Permission.ManageWebhooks);
      if (method === 'GET') {
        return { status: 200, body: [...webhooks.values()].filter((w) => w.channel_id === id).map((w) => webhookJson(w, ownWebhook(w))) };
      }
      if (method === 'POST') {
        const { json } = await readBody(req, raw);
        validateWebhookName('name', json.name);
        if ([...webhooks.values()].filter((w) => w.channel_id === id).length >= MAX_WEBHOOKS_PER_CHANNEL) {
          throw new HttpError(400, { message: `Maximum number of webhooks reached (${MAX_WEBHOOKS_PER_CHANNEL})`, code: 30007 });
        }
        const avatar = typeof json.avatar === 'string' && json.avatar !== '' ? shortHash(json.avatar) : null;
        return { status: 200, body: webhookJson(putWebhook(id, json.name as string, avatar, applicationId, botUser), true) };
      }
      return undefined;
    }

    if (third !== 'messages') return undefined;
    const history = (permissionsIn(id) & Permission.ReadMessageHistory) !== 0n;

    if (messageId === undefined) {
      if (method === 'GET') {
        if (!history) return { status: 200, body: [] };
        const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 50) || 50, 1), 100);
        const before = url.searchParams.get('before');
        const after = url.searchParams.get('after');
        let list = [...messages.values()].filter((m) => m.channel_id === id && !isEphemeral(m)).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1));
        if (before) list = list.filter((m) => BigInt(m.id) < BigInt(before));
        if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after)).reverse().slice(0, limit).reverse();
        return { status: 200, body: list.slice(0, limit) };
      }
      if (method === 'POST') {
        if (!MESSAGEABLE_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot send messages in a non-text channel', code: 50008 });
        requirePermission(id, thread ? Permission.SendMessagesInThreads : Permission.SendMessages);
        const { json, files } = await readBody(req, raw);
        if (files.length > 0) requirePermission(id, Permission.AttachFiles);
        validateMessage(json, files, true);
        const reference = json.message_reference as Json | undefined;
        let referenced: ApiMessage | undefined;
        if (reference && typeof reference.message_id === 'string' && reference.type !== 1) {
          referenced = messages.get(reference.message_id);
          if ((!referenced || referenced.channel_id !== id) && reference.fail_if_not_exists !== false) {
            throw invalidForm('message_reference', 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
          }
          if (referenced?.channel_id !== id) referenced = undefined;
        }
        const message = newMessage({
          ...messageFields(json, files, id),
          channel_id: id,
          author: botUser,
          tts: json.tts === true,
          ...(typeof json.nonce === 'string' || typeof json.nonce === 'number' ? { nonce: json.nonce } : {}),
          ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions, referenced?.author),
          ...(referenced
            ? { type: 19, message_reference: { type: 0, message_id: referenced.id, channel_id: id, guild_id: guild.id }, referenced_message: structuredClone(referenced) }
            : {}),
        });
        dispatchMessage('MESSAGE_CREATE', message);
        return { status: 200, body: message };
      }
      return undefined;
    }

    // A filter bot that wins the race deletes the original just before the bot's own DELETE lands.
    if (method === 'DELETE' && fifth === undefined) {
      const target = messages.get(messageId);
      if (target) applyFilters(target, 'before-bot-deletes');
    }
    const message = messages.get(messageId);
    if (!message || message.channel_id !== id || isEphemeral(message)) throw unknownMessage();
    const own = message.author.id === botUser.id;

    if (fifth === undefined) {
      if (method === 'GET') {
        if (!history) throw missingAccess();
        return { status: 200, body: message };
      }
      if (method === 'PATCH') {
        const { json, files } = await readBody(req, raw);
        const onlyFlags = Object.keys(json).every((key) => key === 'flags');
        if (!own && !(onlyFlags && (permissionsIn(id) & Permission.ManageMessages) !== 0n)) {
          throw new HttpError(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
        }
        validateMessage(json, files, false);
        editMessage(message, json, files);
        if (typeof json.content === 'string') Object.assign(message, mentionsFor(json.content, json.allowed_mentions));
        dispatchMessage('MESSAGE_UPDATE', message);
        return { status: 200, body: message };
      }
      if (method === 'DELETE') {
        if (!own) requirePermission(id, Permission.ManageMessages);
        removeMessage(message);
        return { status: 204 };
      }
      return undefined;
    }

    if (fifth !== 'reactions') return undefined;
    const store = reactions.get(message.id);
    if (emojiSegment === undefined) {
      if (method !== 'DELETE') return undefined;
      requirePermission(id, Permission.ManageMessages);
      reactions.delete(message.id);
      renderReactions(message);
      dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE_ALL', { channel_id: id, message_id: message.id, guild_id: guild.id });
      return { status: 204 };
    }
    const emoji = parseEmoji(emojiSegment);
    const key = emojiKey(emoji);
    if (userSegment === undefined) {
      if (method === 'GET') {
        const users = [...(store?.get(key)?.users ?? [])].map((userId) => members.get(userId)?.user ?? user(userId, 'unknown'));
        return { status: 200, body: users };
      }
      if (method === 'DELETE') {
        requirePermission(id, Permission.ManageMessages);
        const state = store?.get(key);
        if (state) {
          store?.delete(key);
          renderReactions(message);
          dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE_EMOJI', { channel_id: id, message_id: message.id, guild_id: guild.id, emoji: state.emoji });
        }
        return { status: 204 };
      }
      return undefined;
    }
    if (method === 'PUT' && userSegment === '@me') {
      if (!history) throw missingAccess();
      if (!store?.get(key)?.users.size) requirePermission(id, Permission.AddReactions);
      reactionAdd(message, botUser.id, emoji);
      return { status: 204 };
    }
    if (method === 'DELETE') {
      const userId = userSegment === '@me' ? botUser.id : userSegment;
      if (userId !== botUser.id) requirePermission(id, Permission.ManageMessages);
      reactionRemove(message, userId, emoji);
      return { status: 204 };
    }
    return undefined;
  };

  /** The bot's DM channel with a user: post, read, edit and delete its own messages. */
  const dmRoute = async (req: IncomingMessage, id: string, dm: { channel: Json; userId: string }, rest: string[], raw: Buffer): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [third, messageId, fifth] = rest;
    if (third === undefined) return method === 'GET' ? { status: 200, body: dm.channel } : undefined;
    if (third === 'typing' && method === 'POST') return { status: 204 };
    if (third !== 'messages' || fifth !== undefined) return undefined;
    if (messageId === undefined) {
      if (method === 'GET') return { status: 200, body: [...messages.values()].filter((m) => m.channel_id === id).reverse() };
      if (method !== 'POST') return undefined;
      if (closedDms.has(dm.userId)) throw new HttpError(403, { message: 'Cannot send messages to this user', code: 50007 });
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, true);
      const message = newMessage({ ...messageFields(json, files, id), channel_id: id, author: botUser, ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions) });
      delete message.guild_id;
      dm.channel.last_message_id = message.id;
      dispatchMessage('MESSAGE_CREATE', message);
      return { status: 200, body: message };
    }
    const message = messages.get(messageId);
    if (!message || message.channel_id !== id) throw unknownMessage();
    if (method === 'GET') return { status: 200, body: message };
    if (message.author.id !== botUser.id) throw new HttpError(403, { message: 'Cannot execute action on a DM channel', code: 50003 });
    if (method === 'PATCH') {
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, false);
      editMessage(message, json, files);
      dispatchMessage('MESSAGE_UPDATE', message);
      return { status: 200, body: message };
    }
    if (method === 'DELETE') {
      removeMessage(message);
      return { status: 204 };
    }
    return undefined;
  };

  const recordExecution = (execution: WebhookExecution): void => {
    executions.push(execution);
  };

  /** Channel webhooks: by id with the bot's token, or by id and token (no auth). */
  const webhookRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [, id, token, fourth, messageId] = segments;
    if (id === undefined) return undefined;

    if (token === undefined) {
      requireBot(req);
      const webhook = webhookFor(id);
      requirePermission(webhook.channel_id, Permission.ManageWebhooks);
      if (method === 'GET') return { status: 200, body: webhookJson(webhook, ownWebhook(webhook)) };
      if (method === 'DELETE') {
        dropWebhook(webhook);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        const { json } = await readBody(req, raw);
        if (json.name !== undefined) validateWebhookName('name', json.name);
        if (typeof json.channel_id === 'string' && json.channel_id !== webhook.channel_id) {
          const target = visibleChannel(json.channel_id);
          if (isThread(target) || !WEBHOOK_CHANNEL_TYPES.has(target.type)) throw new HttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
          requirePermission(target.id, Permission.ManageWebhooks);
          webhook.channel_id = target.id;
        }
        renameWebhook(webhook, json);
        return { status: 200, body: webhookJson(webhook, ownWebhook(webhook)) };
      }
      return undefined;
    }

    const webhook = webhookFor(id, token);
    const threadId = url.searchParams.get('thread_id') ?? undefined;

    if (fourth === undefined) {
      if (method === 'GET') return { status: 200, body: webhookJson(webhook, true, false) };
      if (method === 'DELETE') {
        dropWebhook(webhook);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        const { json } = await readBody(req, raw);
        if (json.name !== undefined) validateWebhookName('name', json.name);
        renameWebhook(webhook, json);
        return { status: 200, body: webhookJson(webhook, true, false) };
      }
      if (method === 'POST') {
        const { json, files } = await readBody(req, raw);
        if (json.username !== undefined) validateWebhookName('username', json.username);
        validateMessage(json, files, true);
        const newId = snowflake();
        const { channel: target, created } = webhookTarget(webhook, threadId, json, newId);
        // The fake's rule: a bot's webhook posts into a thread only where the bot could.
        if (threadId !== undefined && ownWebhook(webhook)) requirePermission(target.id, Permission.SendMessagesInThreads);
        if (created) {
          channels.set(created.id, created);
          publishChannel(created, false);
        }
        const fields = messageFields(json, files, target.id);
        const message = newMessage({
          ...fields,
          id: newId,
          flags: (fields.flags ?? 0) & WEBHOOK_FLAGS,
          channel_id: target.id,
          author: webhookAuthor(webhook, json.username, json.avatar_url),
          webhook_id: webhook.id,
          ...(webhook.application_id ? { application_id: webhook.application_id } : {}),
          tts: json.tts === true,
          ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions),
        });
        const wait = url.searchParams.get('wait') === 'true';
        recordExecution({ kind: 'execute', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: target.id, messageId: message.id, wait, body: json, files, receivedAt });
        dispatchMessage('MESSAGE_CREATE', message);
        return wait ? { status: 200, body: message } : { status: 204 };
      }
      return undefined;
    }

    if (fourth !== 'messages' || messageId === undefined || segments.length !== 5) return undefined;
    const message = webhookMessage(webhook, messageId, threadId);
    if (method === 'GET') return { status: 200, body: message };
    if (method === 'PATCH') {
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, false);
      editMessage(message, { ...json, ...(typeof json.flags === 'number' ? { flags: json.flags & WEBHOOK_FLAGS } : {}) }, files);
      if (typeof json.content === 'string') Object.assign(message, mentionsFor(json.content, json.allowed_mentions));
      recordExecution({ kind: 'edit', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: message.channel_id, messageId: message.id, wait: false, body: json, files, receivedAt });
      dispatchMessage('MESSAGE_UPDATE', message);
      return { status: 200, body: message };
    }
    if (method === 'DELETE') {
      removeMessage(message);
      recordExecution({ kind: 'delete', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: message.channel_id, messageId: message.id, wait: false, body: {}, files: [], receivedAt });
      return { status: 204 };
    }
    return undefined;
  };

  const highestRole = (userId: string): number => Math.max(0, ...(members.get(userId)?.roles ?? []).map((id) => roles.get(id)?.position ?? 0));

  /** What Discord checks before the bot changes another member: the owner never, and only members
   * whose highest role is below the bot's highest role. */
  const requireOutranks = (userId: string): void => {
    if (userId === OWNER_ID || highestRole(botUser.id) <= highestRole(userId)) throw missingPermissions();
  };

  const guildRoute = async (req: IncomingMessage, segments: string[], raw: Buffer): Promise<RouteResult> => {
    requireBot(req);
    const method = req.method ?? 'GET';
    const [, id, third, fourth] = segments;
    if (id !== guild.id) throw new HttpError(404, { message: 'Unknown Guild', code: 10004 });
    if (method === 'PATCH' && third === 'members' && fourth !== undefined && segments.length === 4) {
      const self = fourth === '@me' || fourth === botUser.id;
      const target = members.get(self ? botUser.id : fourth);
      if (!target) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      const { json } = await readBody(req, raw);
      const granted = permissionsIn('guild');
      if (json.nick !== undefined) {
        if (self ? (granted & (Permission.ChangeNickname | Permission.ManageNicknames)) === 0n : (granted & Permission.ManageNicknames) === 0n) throw missingPermissions();
        if (!self) requireOutranks(target.user.id);
        if (typeof json.nick === 'string' && json.nick.length > 32) throw invalidForm('nick', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 32 in length.');
      }
      if (Array.isArray(json.roles)) {
        requirePermission('guild', Permission.ManageRoles);
        if (!self) requireOutranks(target.user.id);
        if ((json.roles as string[]).some((roleId) => (roles.get(roleId)?.position ?? Number.POSITIVE_INFINITY) >= highestRole(botUser.id))) throw missingPermissions();
      }
      const nick = json.nick === undefined ? target.nick : typeof json.nick === 'string' && json.nick !== '' ? json.nick : null;
      const updated = putMember({ user: target.user, nick, ...(Array.isArray(json.roles) ? { roles: json.roles as string[] } : {}) });
      return { status: 200, body: updated };
    }
    if (method !== 'GET') return undefined;
    if (third === undefined) return { status: 200, body: guildObject() };
    if (third === 'channels' && fourth === undefined) return { status: 200, body: [...channels.values()].filter((c) => !isThread(c)) };
    if (third === 'roles' && fourth === undefined) return { status: 200, body: [...roles.values()] };
    if (third === 'threads' && fourth === 'active') return { status: 200, body: { threads: [...channels.values()].filter((c) => isThread(c)), members: [] } };
    if (third === 'members' && fourth !== undefined) {
      const member = members.get(fourth === '@me' ? botUser.id : fourth);
      if (!member) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      return { status: 200, body: member };
    }
    if (third === 'webhooks' && fourth === undefined) {
      requirePermission('guild', Permission.ManageWebhooks);
      return { status: 200, body: [...webhooks.values()].map((w) => webhookJson(w, ownWebhook(w))) };
    }
    return undefined;
  };

  /** The bot's REST API under /api/v{n}; returns undefined for routes it does not know. */
  const botRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const route = segments.join('/');
    const auth = req.headers.authorization ?? '';
    // A wrong bot token is the only casual 401 the fake gives: @discordjs/rest drops its token on 401.
    if (auth.startsWith('Bot ')) requireBot(req);

    if (method === 'GET' && route === 'gateway') return { status: 200, body: { url: gatewayUrl() } };
    if (method === 'GET' && route === 'gateway/bot') {
      requireBot(req);
      return { status: 200, body: { url: gatewayUrl(), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } } };
    }
    if (method === 'GET' && route === 'applications/@me') {
      requireBot(req);
      return { status: 200, body: applicationObject() };
    }
    if (method === 'GET' && route === 'users/@me' && auth.startsWith('Bot ')) return { status: 200, body: botUser };

    const [first, second, third, fourth, fifth, sixth, seventh] = segments;
    if (first === 'applications' && second === applicationId && third === 'guilds' && fifth === 'commands' && (sixth === 'permissions' || seventh === 'permissions')) {
      return commandPermissionsRoute(req, fourth, sixth === 'permissions' ? undefined : sixth);
    }
    if (first === 'applications' && second === applicationId && (third === 'commands' || (third === 'guilds' && fifth === 'commands'))) {
      requireBot(req);
      const guildId = third === 'guilds' ? fourth : undefined;
      const commandId = third === 'guilds' ? sixth : fourth;
      const list = commandListFor(guildId);
      const { json } = await readBody(req, raw);
      if (commandId === undefined) {
        if (method === 'GET') return { status: 200, body: list };
        if (method === 'PUT') {
          if (!Array.isArray(json)) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
          return { status: 200, body: storeCommands(list, json as Json[], guildId) };
        }
        if (method === 'POST') {
          // Discord upserts by name and type, keeping the id of a command that already exists.
          const existing = list.find((c) => c.name === json.name && c.type === (json.type ?? 1));
          const [created] = storeCommands(existing ? [existing] : [], [json], guildId);
          if (!created) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
          list.splice(0, list.length, ...list.filter((c) => c !== existing), created);
          return { status: existing ? 200 : 201, body: created };
        }
      } else {
        const index = list.findIndex((c) => c.id === commandId);
        if (index < 0) throw new HttpError(404, { message: 'Unknown application command', code: 10063 });
        if (method === 'GET') return { status: 200, body: list[index] };
        if (method === 'DELETE') {
          list.splice(index, 1);
          return { status: 204 };
        }
        if (method === 'PATCH') {
          Object.assign(list[index] ?? {}, json, { version: snowflake() });
          return { status: 200, body: list[index] };
        }
      }
      return undefined;
    }

    if (first === 'channels') return channelRoute(req, url, segments, raw);
    if (first === 'guilds') return guildRoute(req, segments, raw);
    if (method === 'POST' && route === 'users/@me/channels') {
      requireBot(req);
      const { json } = await readBody(req, raw);
      const recipient = typeof json.recipient_id === 'string' ? knownUser(json.recipient_id) : undefined;
      if (!recipient || recipient.bot) throw new HttpError(400, { message: 'Invalid Recipient(s)', code: 50033 });
      return { status: 200, body: dmChannelFor(recipient) };
    }
    if (first === 'users' && second !== undefined && third === undefined && method === 'GET') {
      requireBot(req);
      const found = second === botUser.id ? botUser : members.get(second)?.user;
      if (!found) throw new HttpError(404, { message: 'Unknown User', code: 10013 });
      return { status: 200, body: found };
    }

    if (first === 'interactions' && second && third && fourth === 'callback' && method === 'POST' && segments.length === 4) {
      const { json, files } = await readBody(req, raw);
      return onCallback(second, third, json, files, url.searchParams.get('with_response') === 'true', receivedAt);
    }

    if (first === 'webhooks' && second === applicationId && third) {
      const state = stateFor(third);
      if (fourth === undefined && method === 'POST') {
        if (!state.acknowledged) throw unknownWebhook();
        const { json, files } = await readBody(req, raw);
        const inChannel = state.payload.channel_id as string;
        const message = newMessage({
          ...messageFields(json, files, inChannel),
          channel_id: inChannel,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.followUps.add(message.id);
        record(state, { kind: 'followup', messageId: message.id, body: json, files, receivedAt });
        dispatchMessage('MESSAGE_CREATE', message);
        return url.searchParams.get('wait') === 'true' ? { status: 200, body: message } : { status: 204 };
      }
      if (fourth === 'messages' && fifth && sixth === undefined) {
        const message = resolveMessageId(state, fifth);
        if (method === 'GET') return { status: 200, body: message };
        if (method === 'PATCH') {
          const { json, files } = await readBody(req, raw);
          editMessage(message, json, files);
          record(state, { kind: 'edit', messageId: message.id, body: json, files, receivedAt });
          dispatchMessage('MESSAGE_UPDATE', message);
          return { status: 200, body: message };
        }
        if (method === 'DELETE') {
          removeMessage(message);
          state.followUps.delete(message.id);
          if (state.originalMessageId === message.id) state.originalMessageId = undefined;
          record(state, { kind: 'delete', messageId: message.id, body: {}, files: [], receivedAt });
          return { status: 204 };
        }
      }
      return undefined;
    }
    if (first === 'webhooks') return webhookRoute(req, url, segments, raw, receivedAt);
    return undefined;
  };

  const matchFailure = (method: string, path: string): FailureRule | undefined =>
    failures.find((rule) => rule.remaining > 0 && (!rule.matcher.method || rule.matcher.method.toUpperCase() === method) && rule.matcher.path.test(path));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString('utf8');
    const receivedAt = process.hrtime.bigint();
    const rawSegments = url.pathname.split('/');
    const path = rawSegments.map((s) => { try { return decodeURIComponent(s); } catch { return s; } }).join('/');
    const method = req.method ?? 'GET';
    requests.push({ method, path, query: url.searchParams, headers: req.headers, body });
    const json = (status: number, value?: unknown): void => {
      if (status === 204 || value === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };

    const failure = matchFailure(method, path);
    if (failure) {
      failure.remaining -= 1;
      const { status, body: failBody, headers = {} } = failure.response;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(failBody ?? { message: `${status}: fake failure`, code: 0 }));
      return;
    }

    const attachment = /^\/(?:ephemeral-)?attachments\/\d+\/(\d+)\/[^/]+$/.exec(path);
    if (attachment && (method === 'GET' || method === 'HEAD')) {
      const stored = attachmentStore.get(attachment[1] ?? '');
      if (!stored) return json(404, { message: '404: Not Found', code: 0 });
      res.writeHead(200, { 'content-type': stored.contentType, 'content-length': String(stored.data.length) }).end(method === 'HEAD' ? undefined : stored.data);
      return;
    }

    if (method === 'GET' && path === '/api/oauth2/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('scope') !== 'identify') return json(400, { error: 'invalid_request' });
      if (!currentUser) {
        redirect.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { user: currentUser, redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        redirect.search = new URLSearchParams({ code, state }).toString();
      }
      res.writeHead(302, { location: redirect.toString() }).end();
      return;
    }

    if (method === 'POST' && path === '/api/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || !grant || grant.redirectUri !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.user);
      return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 604800, scope: 'identify' });
    }

    // Bearer /users/@me is the signed-in user (OAuth); the bot's form is handled below.
    if (method === 'GET' && /^\/api(\/v\d+)?\/users\/@me$/.test(path) && !(req.headers.authorization ?? '').startsWith('Bot ')) {
      const signedIn = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!signedIn) return json(401, { message: '401: Unauthorized', code: 0 });
      return json(200, { id: signedIn.id, username: signedIn.username, global_name: null, avatar: null, discriminator: '0' });
    }

    const versioned = /^\/api\/v\d+\/(.*)$/.exec(path);
    if (versioned?.[1] !== undefined) {
      try {
        const result = await botRoute(req, url, versioned[1].split('/'), raw, receivedAt);
        if (result) return json(result.status, result.body);
      } catch (error) {
        if (error instanceof HttpError) return json(error.status, error.body);
        throw error;
      }
    }

    json(404, { message: '404: Not Found', code: 0 });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res)
      .catch((error: unknown) => {
        console.error('fake Discord: request failed', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: '500: Internal Server Error', code: 0 }));
      })
      .finally(notify);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: '' });
    if (url.pathname !== '/gateway') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  // ---- interaction payload builders ------------------------------------------------------------

  const commandIdFor = (name: string, type: number): string => {
    const registered = [...globalCommands, ...(guildCommands.get(guild.id) ?? [])].find((c) => c.name === name && (c.type ?? 1) === type);
    return typeof registered?.id === 'string' ? registered.id : snowflake();
  };

  const basePayload = (type: number, input: InteractionBase, data: Json): InteractionPayload => {
    const invoker = toApiUser(input.user);
    const permissions = input.permissions ?? EVERYONE_PERMISSIONS;
    const inChannel = input.channelId ?? channelId;
    if (type === 2 || type === 4) {
      const allowed = commandAllowed(String(data.name), Number(data.type ?? 1), invoker.id, inChannel, input.permissions === undefined ? undefined : BigInt(input.permissions));
      if (allowed === false) throw new Error(`fake Discord: Discord would not deliver "${String(data.name)}" to ${invoker.username} here (default_member_permissions or the server's command permissions)`);
    }
    const known = channels.get(inChannel);
    const member = members.get(invoker.id);
    return {
      id: snowflake(),
      application_id: applicationId,
      type,
      data,
      guild_id: guild.id,
      guild: { id: guild.id, locale: 'en-US', features: [] },
      channel_id: inChannel,
      channel: known ? structuredClone(known) : textChannel(inChannel, 'channel'),
      member: { ...partialMember(permissions, member?.roles ?? [], member?.nick ?? null), user: invoker },
      token: randomBytes(48).toString('base64url'),
      version: 1,
      locale: input.locale ?? 'en-US',
      guild_locale: 'en-US',
      app_permissions: (known ? permissionsIn(inChannel) : DEFAULT_BOT_PERMISSIONS).toString(),
      entitlements: [],
      entitlement_sku_ids: [],
      authorizing_integration_owners: { '0': guild.id },
      context: 0,
      attachment_size_limit: uploadLimit,
    };
  };

  const commandOptions = (input: SlashCommandInput): Json[] | undefined => {
    let options = input.options;
    if (input.subcommand) options = [{ type: 1, name: input.subcommand, options: options ?? [] }];
    if (input.subcommandGroup) options = [{ type: 2, name: input.subcommandGroup, options: options ?? [] }];
    return options;
  };

  const commandData = (input: SlashCommandInput): Json => ({
    id: input.commandId ?? commandIdFor(input.name, 1),
    name: input.name,
    type: 1,
    ...(commandOptions(input) ? { options: commandOptions(input) } : {}),
    ...(input.resolved ? { resolved: input.resolved } : {}),
  });

  // A snapshot: the payload may wait in a session buffer while the stored message changes.
  const componentMessage = (message: ApiMessage): ApiMessage => structuredClone(messages.get(message.id) ?? newMessage(message));

  const storedMessage = (id: string): ApiMessage => {
    const message = messages.get(id);
    if (!message) throw new Error(`fake Discord: no message ${id}`);
    return message;
  };

  const reactionTarget = (input: ReactionInput): ApiMessage => {
    const message = storedMessage(input.messageId);
    if (input.channelId !== undefined && input.channelId !== message.channel_id) throw new Error(`fake Discord: message ${message.id} is not in channel ${input.channelId}`);
    if (!members.has(input.userId)) throw new Error(`fake Discord: ${input.userId} is not a member; addMember() (or sendUserMessage()) first`);
    return message;
  };

  const waitFor = <T>(probe: () => T | undefined | null | false, timeoutMs = 5000, what = 'a condition'): Promise<T> => {
    let found: T | undefined;
    let failure: { error: unknown } | undefined;
    const satisfied = (): boolean => {
      try {
        const value = probe();
        if (value) found = value;
        return Boolean(value);
      } catch (error) {
        failure = { error };
        return true;
      }
    };
    const settle = (): T => {
      if (failure) throw failure.error;
      return found as T;
    };
    if (satisfied()) return Promise.resolve().then(settle);
    return waitWithTimeout(what, timeoutMs, (done) => {
      const check = (): void => {
        if (satisfied()) done();
      };
      watchers.add(check);
      return () => watchers.delete(check);
    }).then(settle);
  };

  // ---- other bots (filters, loggers) and command permissions -----------------------------------

  /** Overrides by command id (the application id: the whole app), as an admin set them. */
  const commandPermissions = new Map<string, CommandPermission[]>();
  interface Filter {
    botId: string;
    matches: (message: ApiMessage) => boolean;
    when: 'on-create' | 'before-bot-deletes';
  }
  const filters = new Set<Filter>();
  const loggers = new Set<{ botId: string; logChannelId: string }>();

  const otherBot = (botId: string): ApiMember => {
    const member = members.get(botId);
    if (!member?.user.bot || botId === botUser.id) throw new Error(`fake Discord: ${botId} is not another bot of the guild; addOtherBot() first`);
    return member;
  };

  const deleteAsOtherBot = (botId: string, messageId: string): void => {
    otherBot(botId);
    const message = messages.get(messageId);
    if (!message || isEphemeral(message) || dmChannels.has(message.channel_id)) throw unknownMessage();
    const granted = permissionsIn(message.channel_id, botId);
    if ((granted & Permission.ViewChannel) === 0n) throw missingAccess();
    if (message.author.id !== botId && (granted & Permission.ManageMessages) === 0n) throw missingPermissions();
    removeMessage(message);
    notify();
  };

  /** A member's message, not a bot's or a webhook's: what filters act on and loggers report. */
  const fromMember = (message: ApiMessage): boolean => !message.author.bot && message.webhook_id === undefined && !dmChannels.has(message.channel_id);

  const applyFilters = (message: ApiMessage, when: Filter['when']): void => {
    for (const filter of filters) {
      if (filter.when !== when || !fromMember(message) || !messages.has(message.id) || !filter.matches(structuredClone(message))) continue;
      try {
        deleteAsOtherBot(filter.botId, message.id);
      } catch {
        // Discord refused the filter (no Manage Messages there): the message stays, as it would.
      }
    }
  };

  const postAsOtherBot = (botId: string, inChannel: string, fields: { content?: string; embeds?: Json[] }): ApiMessage => {
    const member = otherBot(botId);
    const channel = channels.get(inChannel);
    if (!channel) throw unknownChannel();
    if (!MESSAGEABLE_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot send messages in a non-text channel', code: 50008 });
    const granted = permissionsIn(inChannel, botId);
    if ((granted & Permission.ViewChannel) === 0n) throw missingAccess();
    const send = isThread(channel) ? Permission.SendMessagesInThreads : Permission.SendMessages;
    if ((granted & send) === 0n || ((fields.embeds?.length ?? 0) > 0 && (granted & Permission.EmbedLinks) === 0n)) throw missingPermissions();
    if ((fields.content ?? '') === '' && (fields.embeds?.length ?? 0) === 0) throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    const message = newMessage({ channel_id: inChannel, author: member.user, content: fields.content ?? '', embeds: fields.embeds ?? [], ...mentionsFor(fields.content ?? '', undefined) });
    dispatchMessage('MESSAGE_CREATE', message);
    notify();
    return message;
  };

  /** What a logging bot posts for a deleted member message (the shape common loggers use: the
   * author and channel in the text, the ids in the footer). */
  const logEntryFor = (message: ApiMessage): Json => ({
    author: { name: message.author.username },
    description: `**Message sent by <@${message.author.id}> deleted in <#${message.channel_id}>**\n${message.content.slice(0, 3800)}`,
    footer: { text: `Author: ${message.author.id} | Message ID: ${message.id}` },
    timestamp: new Date().toISOString(),
  });

  const reportDeletion = (message: ApiMessage): void => {
    for (const logger of loggers) {
      if (!fromMember(message) || message.channel_id === logger.logChannelId) continue;
      // A logger is another process reacting to the gateway: its entry comes a moment later.
      setImmediate(() => {
        if (!loggers.has(logger)) return;
        try {
          postAsOtherBot(logger.botId, logger.logChannelId, { embeds: [logEntryFor(message)] });
        } catch {
          // A logger that may not post in its channel posts nothing, as on Discord.
        }
      });
    }
  };

  const registeredCommand = (name: string, type: number): Json | undefined =>
    [...(guildCommands.get(guild.id) ?? []), ...globalCommands].find((c) => c.name === name && (c.type ?? 1) === type);

  /** Whether Discord delivers the command to this member here; undefined for a command never registered. */
  const commandAllowed = (name: string, type: number, userId: string, inChannel: string, permissions?: bigint): boolean | undefined => {
    const command = registeredCommand(name, type);
    if (!command) return undefined;
    const channel = channels.get(inChannel);
    return mayUseCommand({
      guildId: guild.id,
      ownerId: OWNER_ID,
      userId,
      roleIds: members.get(userId)?.roles ?? [],
      permissions: permissions ?? permissionsIn('guild', userId),
      channelId: inChannel,
      parentId: channel && isThread(channel) ? channel.parent_id : null,
      defaultMemberPermissions: (command.default_member_permissions as string | null | undefined) ?? null,
      commandOverrides: commandPermissions.get(command.id as string) ?? [],
      appOverrides: commandPermissions.get(applicationId) ?? [],
    });
  };

  const commandPermissionsJson = (id: string): Json => ({ id, application_id: applicationId, guild_id: guild.id, permissions: commandPermissions.get(id) ?? [] });

  /** Command permissions under /applications/{app}/guilds/{guild}/commands[/{id}]/permissions. */
  const commandPermissionsRoute = (req: IncomingMessage, guildId: string | undefined, commandId: string | undefined): RouteResult => {
    const method = req.method ?? 'GET';
    if (method === 'PUT') {
      // Only a person's Bearer token with applications.commands.permissions.update may set them.
      if ((req.headers.authorization ?? '').startsWith('Bot ')) throw new HttpError(403, { message: 'Bots cannot use this endpoint', code: 20001 });
      throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
    }
    requireBot(req);
    if (guildId !== guild.id) throw new HttpError(403, { message: 'Missing Access', code: 50001 });
    if (method !== 'GET') return undefined;
    if (commandId === undefined) return { status: 200, body: [...commandPermissions.keys()].map(commandPermissionsJson) };
    if (!commandPermissions.has(commandId)) throw new HttpError(404, { message: 'Unknown application command permissions', code: 10066 });
    return { status: 200, body: commandPermissionsJson(commandId) };
  };

  // ---- the fake --------------------------------------------------------------------------------

  return {
    apiBase: `http://127.0.0.1:${port}/api`,
    clientId,
    clientSecret,
    requests,
    setUser(next) {
      currentUser = next;
    },

    botToken,
    applicationId,
    botUser,
    guild,
    channelId,
    botRoleId,
    ownerId: OWNER_ID,
    commands(guildId) {
      return guildId ? (guildCommands.get(guildId) ?? []) : globalCommands;
    },
    identifies,
    resumeCount: () => resumes,

    waitForReady(timeoutMs = 10_000) {
      if (liveSession?.socket) return Promise.resolve();
      return waitWithTimeout('a gateway session to become ready', timeoutMs, (done) => {
        readyListeners.add(done);
        return () => readyListeners.delete(done);
      });
    },

    disconnectGateway(code = 4000) {
      const socket = liveSession?.socket;
      if (!liveSession || !socket) throw new Error('fake Discord: no live gateway session to disconnect');
      liveSession.socket = undefined;
      resumesAtLastDisconnect = resumes;
      socket.close(code, 'fake Discord: disconnected by the test');
    },

    waitForResume(timeoutMs = 10_000) {
      if (resumes > resumesAtLastDisconnect) return Promise.resolve();
      return waitWithTimeout('a RESUME', timeoutMs, (done) => {
        const check = (): void => {
          if (resumes > resumesAtLastDisconnect) done();
        };
        resumeListeners.add(check);
        return () => resumeListeners.delete(check);
      });
    },

    setRestFailure(matcher, response) {
      const sameMatcher = (rule: FailureRule): boolean =>
        rule.matcher.path.source === matcher.path.source && rule.matcher.path.flags === matcher.path.flags && (rule.matcher.method ?? '').toUpperCase() === (matcher.method ?? '').toUpperCase();
      failures = failures.filter((rule) => !sameMatcher(rule));
      if (response) failures.push({ matcher, response, remaining: response.times ?? Number.POSITIVE_INFINITY });
    },

    setUploadLimit(bytes) {
      uploadLimit = bytes;
    },

    setPremiumTier(tier) {
      premiumTier = tier;
      uploadLimit = [10, 10, 50, 100][tier] ?? 10;
      uploadLimit *= 1024 * 1024;
      dispatchIf(Intent.Guilds, 'GUILD_UPDATE', guildObject());
      notify();
    },

    addChannel(input) {
      return structuredClone(putChannel(input));
    },

    setChannelOverwrites(id, overwrites) {
      const channel = channels.get(id);
      if (!channel) throw new Error(`fake Discord: no channel ${id}`);
      // Channels synced to a category (the same overwrites) follow its changes, as on Discord.
      const synced = channel.type === 4 ? [...channels.values()].filter((child) => child.parent_id === id && !isThread(child) && sameOverwrites(child.permission_overwrites, channel.permission_overwrites)) : [];
      const updated = putChannel({ id, name: channel.name, type: channel.type, overwrites });
      for (const child of synced) putChannel({ id: child.id, name: child.name, type: child.type, overwrites });
      return structuredClone(updated);
    },

    syncWithCategory(id) {
      const channel = channels.get(id);
      const category = channel?.parent_id ? channels.get(channel.parent_id) : undefined;
      if (!channel || isThread(channel) || category?.type !== 4) throw new Error(`fake Discord: ${id} is not a channel of a category`);
      const overwrites = (category.permission_overwrites ?? []).map((o): OverwriteInput => ({ id: o.id, type: o.type === 0 ? 'role' : 'member', allow: BigInt(o.allow), deny: BigInt(o.deny) }));
      return structuredClone(putChannel({ id, name: channel.name, type: channel.type, overwrites }));
    },

    addRole(input) {
      return structuredClone(putRole(input));
    },

    addMember(input) {
      return structuredClone(putMember(input));
    },

    setBotPermissions(target, permissions) {
      if (target === 'guild') {
        putRole({ id: botRoleId, name: botUser.username, permissions: permissions ?? DEFAULT_BOT_PERMISSIONS });
        return;
      }
      const channel = channels.get(target);
      if (!channel) throw new Error(`fake Discord: no channel ${target}`);
      if (isThread(channel)) throw new Error('fake Discord: threads take their permissions from the parent channel; set them there');
      const others = (channel.permission_overwrites ?? []).filter((o) => o.id !== botUser.id);
      const overwrites: OverwriteInput[] = others.map((o) => ({ id: o.id, type: o.type === 0 ? 'role' : 'member', allow: BigInt(o.allow), deny: BigInt(o.deny) }));
      if (permissions !== null) overwrites.push({ id: botUser.id, type: 'member', allow: permissions, deny: ALL_PERMISSIONS & ~permissions });
      putChannel({ id: target, name: channel.name, type: channel.type, overwrites });
    },

    permissionsIn(target, userId) {
      return permissionsIn(target, userId);
    },

    setCommandPermissions(commandId, permissions) {
      const known = commandId === applicationId || [...(guildCommands.get(guild.id) ?? []), ...globalCommands].some((c) => c.id === commandId);
      if (!known) throw new Error(`fake Discord: no command ${commandId} (nor the application id) to set permissions on`);
      if (permissions.length > 100) throw new Error('fake Discord: at most 100 permission overrides per command');
      commandPermissions.set(commandId, structuredClone(permissions));
      dispatchIf(0, 'APPLICATION_COMMAND_PERMISSIONS_UPDATE', commandPermissionsJson(commandId));
      notify();
    },

    mayUseCommand(name, userId, inChannel = channelId, type = 1) {
      return commandAllowed(name, type, userId, inChannel) ?? false;
    },

    addOtherBot(input) {
      const botMember: ApiUser = { ...toApiUser(input.user), bot: true };
      if (botMember.id === botUser.id) throw new Error('fake Discord: that is this bot');
      const botRole = putRole({ name: botMember.username, permissions: input.permissions, ...(input.position === undefined ? {} : { position: input.position }) });
      return structuredClone(putMember({ user: botMember, roles: [botRole.id] }));
    },

    deleteAsOtherBot(botId, messageId) {
      deleteAsOtherBot(botId, messageId);
    },

    addFilterBot(input) {
      otherBot(input.botId);
      const filter: Filter = { ...input };
      filters.add(filter);
      return () => void filters.delete(filter);
    },

    postAsOtherBot(botId, inChannel, fields) {
      return structuredClone(postAsOtherBot(botId, inChannel, fields));
    },

    addLoggingBot(input) {
      otherBot(input.botId);
      const logger = { ...input };
      loggers.add(logger);
      return () => void loggers.delete(logger);
    },

    channel(id) {
      const channel = channels.get(id);
      return channel && structuredClone(channel);
    },

    member(userId) {
      const member = members.get(userId);
      return member && structuredClone(member);
    },

    sendUserMessage(input) {
      const inChannel = input.channelId ?? channelId;
      const channel = channels.get(inChannel);
      if (!channel) throw new Error(`fake Discord: no channel ${inChannel}; addChannel() first`);
      if (!MESSAGEABLE_TYPES.has(channel.type)) throw new Error(`fake Discord: channel ${inChannel} (type ${channel.type}) takes no messages; post in one of its threads`);
      const given = toApiUser(input.author);
      let author: ApiUser = input.bot ? { ...given, bot: true } : given;
      if (input.webhookId !== undefined) {
        author = user(input.webhookId, given.username, { bot: true, discriminator: '0000', avatar: given.avatar });
      } else if (input.member || !members.has(author.id)) {
        putMember({ user: author, ...(input.member?.roles ? { roles: input.member.roles } : {}), ...(input.member?.nick !== undefined ? { nick: input.member.nick } : {}) }, true);
      }
      let referenced: ApiMessage | undefined;
      if (input.messageReference) {
        referenced = storedMessage(input.messageReference.messageId);
      }
      const content = input.content ?? '';
      const parsed = mentionsFor(content, undefined, referenced?.author);
      const message = newMessage({
        channel_id: inChannel,
        ...(input.id === undefined ? {} : { id: input.id }),
        author,
        content,
        embeds: input.embeds ?? [],
        attachments: (input.attachments ?? []).map((file) => storeAttachment(inChannel, file)),
        flags: input.flags ?? 0,
        type: input.type ?? (referenced ? 19 : 0),
        mentions: input.mentions ? input.mentions.map(toApiUser) : parsed.mentions,
        mention_roles: input.mentionRoles ?? parsed.mention_roles,
        mention_everyone: input.mentionEveryone ?? parsed.mention_everyone,
        ...(input.webhookId !== undefined ? { webhook_id: input.webhookId } : {}),
        ...(referenced
          ? {
              message_reference: { type: 0, message_id: referenced.id, channel_id: input.messageReference?.channelId ?? referenced.channel_id, guild_id: guild.id },
              referenced_message: structuredClone(referenced),
            }
          : {}),
      });
      dispatchMessage('MESSAGE_CREATE', message);
      notify();
      const posted = structuredClone(message);
      applyFilters(message, 'on-create');
      return posted;
    },

    editUserMessage(id, fields) {
      const message = storedMessage(id);
      if (fields.content !== undefined) Object.assign(message, { content: fields.content }, mentionsFor(fields.content, undefined));
      if (fields.embeds !== undefined) message.embeds = fields.embeds;
      message.edited_timestamp = new Date().toISOString();
      dispatchMessage('MESSAGE_UPDATE', message);
      notify();
      return structuredClone(message);
    },

    deleteUserMessage(id) {
      removeMessage(storedMessage(id));
      notify();
    },

    addReaction(input) {
      reactionAdd(reactionTarget(input), input.userId, parseEmoji(input.emoji));
      notify();
    },

    removeReaction(input) {
      reactionRemove(reactionTarget(input), input.userId, parseEmoji(input.emoji));
      notify();
    },

    messages(id) {
      return [...messages.values()]
        .filter((m) => m.channel_id === id && !isEphemeral(m))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .map((m) => structuredClone(m));
    },

    deletedMessages(id) {
      return deleted.filter((m) => id === undefined || m.channel_id === id).map((m) => structuredClone(m));
    },

    directMessages(userId) {
      const id = dmByUser.get(userId);
      return id === undefined ? [] : [...messages.values()].filter((m) => m.channel_id === id).map((m) => structuredClone(m));
    },

    setDirectMessagesOpen(userId, open) {
      if (open) closedDms.delete(userId);
      else closedDms.add(userId);
    },

    createMessage(fields) {
      const message = structuredClone(newMessage(fields));
      notify();
      return message;
    },

    getMessage(id) {
      const message = messages.get(id);
      return message && structuredClone(message);
    },

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

    waitFor,

    waitForMessage(predicate, timeoutMs = 5000) {
      return waitFor(() => [...messages.values()].find((m) => !isEphemeral(m) && predicate(m)), timeoutMs, 'a matching message').then((m) => structuredClone(m));
    },

    uploadAttachment(input) {
      return storeAttachment(applicationId, input, 'ephemeral-attachments');
    },

    slashCommand(input) {
      return basePayload(2, input, commandData(input));
    },

    autocomplete(input) {
      return basePayload(4, input, commandData(input));
    },

    button(input) {
      const message = componentMessage(input.message);
      const data: Json = { custom_id: input.customId, component_type: input.componentType ?? 2 };
      if (input.values) data.values = input.values;
      if (input.resolved) data.resolved = input.resolved;
      return { ...basePayload(3, input, data), message };
    },

    userContextMenu(input) {
      const target = toApiUser(input.targetUser);
      return basePayload(2, input, {
        id: input.commandId ?? commandIdFor(input.name, 2),
        name: input.name,
        type: 2,
        target_id: target.id,
        resolved: resolvedUsers([target]),
      });
    },

    messageContextMenu(input) {
      const given = input.targetMessage;
      const target = typeof given === 'string' ? storedMessage(given) : (messages.get(given.id) ?? given);
      // Discord resolves the whole message, content included whatever the intents.
      const resolved = structuredClone(target);
      delete resolved.member;
      return basePayload(2, { ...input, channelId: input.channelId ?? target.channel_id }, {
        id: input.commandId ?? commandIdFor(input.name, 3),
        name: input.name,
        type: 3,
        target_id: target.id,
        resolved: { messages: { [target.id]: resolved } },
      });
    },

    modalSubmit(input) {
      const payload = basePayload(5, input, { custom_id: input.customId, components: input.components });
      return input.message ? { ...payload, message: componentMessage(input.message) } : payload;
    },

    dispatchInteraction(payload) {
      if (!liveSession) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
      const state: InteractionState = { payload, responses: [], listeners: new Set(), acknowledged: false, followUps: new Set() };
      interactionsByToken.set(payload.token, state);
      const sentAt = process.hrtime.bigint();
      dispatchTo(liveSession, 'INTERACTION_CREATE', payload);
      return {
        id: payload.id,
        token: payload.token,
        payload,
        sentAt,
        responses: state.responses,
        waitForResponse(predicate = () => true, timeoutMs = 5000) {
          const found = (): RecordedResponse | undefined => state.responses.find(predicate);
          const already = found();
          if (already) return Promise.resolve(already);
          return waitWithTimeout(`a response to interaction ${payload.id}`, timeoutMs, (done) => {
            const check = (): void => {
              if (found()) done();
            };
            state.listeners.add(check);
            return () => state.listeners.delete(check);
          }).then(
            () => found() as RecordedResponse,
            (error: Error) => {
              throw new Error(`${error.message}; recorded so far: ${JSON.stringify(state.responses.map((r) => ({ kind: r.kind, callbackType: r.callbackType, body: r.body })))}`);
            },
          );
        },
        latestMessage() {
          const message = state.originalMessageId === undefined ? undefined : messages.get(state.originalMessageId);
          return message && structuredClone(message);
        },
      };
    },

    dispatchEvent(type, data) {
      if (!liveSession) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
      dispatchTo(liveSession, type, data);
    },

    async close() {
      // 4004 is a close code discord.js does not recover from, so a client left running stays down.
      await Promise.all(
        [...sockets].map(
          (socket) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => socket.terminate(), 1000);
              socket.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              socket.close(4004, 'fake Discord closing');
            }),
        ),
      );
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
