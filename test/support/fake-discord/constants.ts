// Discord's numbers the fake uses: flags, intents, permission bits, channel types.
import type { ApiChannel } from './types.js';

export const DISCORD_EPOCH = 1420070400000n;
export const EPHEMERAL = 1 << 6;
export const LOADING = 1 << 7;
export const OWNER_ID = '900000000000000009';

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
export const EVERYONE_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS.toString();

export const THREAD_TYPES = new Set([10, 11, 12]);
export const MESSAGEABLE_TYPES = new Set([0, 2, 5, 10, 11, 12, 13]);
export const WEBHOOK_CHANNEL_TYPES = new Set([0, 2, 5, 13, 15, 16]);
export const THREAD_ONLY_TYPES = new Set([15, 16]);
/** Flags a webhook execution may set: suppress embeds, suppress notifications, components v2. */
export const WEBHOOK_FLAGS = (1 << 2) | (1 << 12) | (1 << 15);
export const MAX_WEBHOOKS_PER_CHANNEL = 15;

export const isThread = (channel: ApiChannel | undefined): boolean => channel !== undefined && THREAD_TYPES.has(channel.type);
