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
//
// This module is the harness's public face; the parts live in ./fake-discord/ (see start.ts).
export type { CommandPermission } from './command-permissions.js';
export type {
  ApiChannel,
  ApiMember,
  ApiMessage,
  ApiOverwrite,
  ApiRole,
  ApiUser,
  ApiWebhook,
  AttachmentInput,
  AutocompleteInput,
  ChannelInput,
  ComponentInput,
  FakeDiscord,
  FakeDiscordUser,
  InteractionBase,
  InteractionHandle,
  InteractionPayload,
  Json,
  MemberInput,
  MessageContextMenuInput,
  ModalSubmitInput,
  OverwriteInput,
  ReactionInput,
  RecordedFile,
  RecordedRequest,
  RecordedResponse,
  RestFailure,
  RestFailureMatcher,
  RoleInput,
  SlashCommandInput,
  UserContextMenuInput,
  UserMessageInput,
  WebhookExecution,
  WebhookInput,
} from './fake-discord/types.js';
export { ALL_PERMISSIONS, DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Intent, Permission } from './fake-discord/constants.js';
export { rateLimited, resolvedAttachments, resolvedUsers, user } from './fake-discord/objects.js';
export { startFakeDiscord, type FakeDiscordOptions } from './fake-discord/start.js';
