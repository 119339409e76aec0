// The fake's identity (application, bot, guild) and the records every part reads and writes:
// the guild model's maps, messages, webhooks, interactions, and the watchers waitFor() wakes.
import { randomBytes } from 'node:crypto';
import { DISCORD_EPOCH } from './constants.js';
import { user, waitWithTimeout } from './objects.js';
import type {
  ApiChannel,
  ApiMember,
  ApiMessage,
  ApiRole,
  InteractionState,
  Json,
  ReactionState,
  RecordedRequest,
  StoredAttachment,
  WebhookExecution,
  WebhookState,
} from './types.js';

export type FakeState = ReturnType<typeof createState>;

export interface FakeDiscordOptions {
  /** The fake's own guild's id (choose it to put the guild on a given shard). */
  guildId?: string;
  /** `/gateway/bot`'s recommended `shards` (default 1). */
  shards?: number;
  /** `/gateway/bot`'s `session_start_limit.max_concurrency` (default 1). */
  maxConcurrency?: number;
  /** One identify per max_concurrency bucket per this window (Discord: 5 s). */
  identifyWindowMs?: number;
  /** How long a disconnected session can be resumed (Discord does not say; a few minutes). */
  resumeWindowMs?: number;
}

export function createState(options: FakeDiscordOptions = {}) {
  const clientId = '100000000000000001';
  const applicationId = clientId;

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

  const watchers = new Set<() => void>();
  // Watchers never throw (waitFor catches its probe's errors), so a request never fails for them.
  const notify = (): void => {
    for (const watcher of [...watchers]) watcher();
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

  const guild = { id: options.guildId ?? '200000000000000002', name: 'Fake Guild' };
  /** Guilds besides the modelled one: bare (no channels), for routing across shards. */
  const otherGuilds = new Map<string, { id: string; name: string; channelIds: string[]; roleIds: string[] }>();

  return {
    clientId,
    clientSecret: randomBytes(16).toString('hex'),
    applicationId,
    botToken: `${Buffer.from(applicationId).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(20).toString('base64url')}`,
    botUser: user(applicationId, 'Switchboard', { bot: true, global_name: null }),
    guild,
    otherGuilds,
    allGuildIds: (): string[] => [guild.id, ...otherGuilds.keys()],
    recommendedShards: options.shards ?? 1,
    maxConcurrency: options.maxConcurrency ?? 1,
    identifyWindowMs: options.identifyWindowMs ?? 5000,
    resumeWindowMs: options.resumeWindowMs ?? 5 * 60_000,
    /** The default text channel, #general. */
    channelId: '300000000000000003',
    channelName: 'general',
    botRoleId: '200000000000000012',
    snowflake,
    snowflakeTime,

    requests: [] as RecordedRequest[],
    globalCommands: [] as Json[],
    guildCommands: new Map<string, Json[]>(),
    messages: new Map<string, ApiMessage>(),
    interactionsByToken: new Map<string, InteractionState>(),

    // The guild model: what GUILD_CREATE describes and REST permission checks use.
    channels: new Map<string, ApiChannel>(),
    roles: new Map<string, ApiRole>(),
    members: new Map<string, ApiMember>(),
    webhooks: new Map<string, WebhookState>(),
    executions: [] as WebhookExecution[],
    deleted: [] as ApiMessage[],
    attachmentStore: new Map<string, StoredAttachment>(),
    reactions: new Map<string, Map<string, ReactionState>>(),
    // Direct messages: one DM channel per user, and users who do not accept DMs from the bot.
    dmChannels: new Map<string, { channel: Json; userId: string }>(),
    dmByUser: new Map<string, string>(),
    closedDms: new Set<string>(),
    uploadLimit: 10 * 1024 * 1024,
    premiumTier: 0,
    /** The HTTP server's port, once it listens. */
    port: 0,

    notify,
    waitFor,
  };
}
