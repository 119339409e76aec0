// Log cleanup, configurable per server: logging bots the admins name (`/server log-cleanup add`)
// post a "message deleted" entry when the bot deletes an original it proxied. An entry from one of
// those bots, posted within a short window of such a deletion and naming the original's id
// anywhere in its text or embeds (title, description, fields, footer, author), is removed. Other
// entries, and entries of bots not named, are left alone.
import type { Message } from 'discord.js';
import type { GuildSettingsCache } from './settings-cache.js';
import type { BotLog } from '../log.js';

/** How long after deleting an original the bot looks for logging bots' entries about it. */
export const CLEANUP_WINDOW_MS = 30_000;
const MAX_TRACKED = 10_000;

export interface LogCleanup {
  /** The bot is deleting this original for proxying: entries about it may follow. */
  deleting(guildId: string, originalId: string, now?: number): void;
  /** A message from a bot: removed when it is a named logging bot's entry about such an original. */
  onBotMessage(message: Message<true>, now?: number): Promise<boolean>;
}

/** Every piece of text a logging bot's entry may name the id in. */
function textOf(message: Message): string {
  const parts = [message.content];
  for (const embed of message.embeds) {
    parts.push(embed.title ?? '', embed.description ?? '', embed.footer?.text ?? '', embed.author?.name ?? '', embed.url ?? '');
    for (const field of embed.fields) parts.push(field.name, field.value);
  }
  return parts.join('\n');
}

export function createLogCleanup(servers: GuildSettingsCache, log: BotLog): LogCleanup {
  /** Originals deleted lately, per server, with when. */
  const recent = new Map<string, Map<string, number>>();
  let tracked = 0;

  function prune(now: number): void {
    for (const [guildId, originals] of recent) {
      for (const [id, at] of originals) {
        if (now - at <= CLEANUP_WINDOW_MS) continue;
        originals.delete(id);
        tracked -= 1;
      }
      if (originals.size === 0) recent.delete(guildId);
    }
  }

  return {
    deleting(guildId, originalId, now = Date.now()) {
      // Only servers that named a logging bot need the bookkeeping.
      if ((servers.held(guildId)?.settings.logCleanupBots.length ?? 0) === 0) return;
      if (tracked >= MAX_TRACKED) prune(now);
      let originals = recent.get(guildId);
      if (!originals) recent.set(guildId, (originals = new Map()));
      if (!originals.has(originalId)) tracked += 1;
      originals.set(originalId, now);
    },

    async onBotMessage(message, now = Date.now()) {
      const originals = recent.get(message.guildId);
      if (!originals || originals.size === 0) return false;
      const bots = servers.held(message.guildId)?.settings.logCleanupBots;
      if (!bots?.some((entry) => entry.id === message.author.id)) return false;
      const text = textOf(message);
      const named = [...originals].some(([id, at]) => now - at <= CLEANUP_WINDOW_MS && text.includes(id));
      if (!named) return false;
      try {
        await message.delete();
        return true;
      } catch (error) {
        log.info({ err: error, message: message.id }, 'could not remove a logging bot’s entry');
        return false;
      }
    },
  };
}
