// What the bot keeps in memory of Discord, and for how long. discord.js caches most of what the
// gateway sends, and on many busy servers the messages (200 per channel by default) are most of a
// bot's memory. This bot reads a message again only to quote it in a proxied reply or to act on a
// reaction, nearly always a recent one, and fetches one it no longer holds (`fetchReference`,
// partial reactions). Guilds, channels, roles and members stay cached: permissions are computed
// from them.
import { Options, type CacheFactory, type SweeperOptions } from 'discord.js';

/** Messages held per channel (discord.js holds 200). */
export const MESSAGES_PER_CHANNEL = 50;
/** A held message older than this is let go, checked every MESSAGE_SWEEP_INTERVAL_S. */
export const MESSAGE_LIFETIME_S = 30 * 60;
const MESSAGE_SWEEP_INTERVAL_S = 5 * 60;

export function discordCaches(): { makeCache: CacheFactory; sweepers: SweeperOptions } {
  return {
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: MESSAGES_PER_CHANNEL,
      // Sent with every server at start-up and never read by the bot.
      GuildEmojiManager: 0,
      GuildStickerManager: 0,
      VoiceStateManager: 0,
      StageInstanceManager: 0,
      GuildScheduledEventManager: 0,
      PresenceManager: 0,
      GuildInviteManager: 0,
      GuildBanManager: 0,
      AutoModerationRuleManager: 0,
    }),
    sweepers: { ...Options.DefaultSweeperSettings, messages: { interval: MESSAGE_SWEEP_INTERVAL_S, lifetime: MESSAGE_LIFETIME_S } },
  };
}
