// Short private notes to a sender about their own message (a message event has no ephemeral
// reply, so they come as a direct message). Problems the sender can only solve through a server
// admin (missing permissions) are said once per server and problem, not on every message.
import type { User } from 'discord.js';
import type { BotLog } from '../log.js';

const MAX_REMEMBERED = 10_000;

export interface Notices {
  tell(user: User, text: string): void;
  tellOnce(user: User, key: string, text: string): void;
  /** At most once a day per user and key (a server's rules: blacklist, block, required tag). */
  tellDaily(user: User, key: string, text: string, now?: number): void;
}

const DAY_MS = 86_400_000;

export function createNotices(log: BotLog): Notices {
  const told = new Set<string>();
  const toldAt = new Map<string, number>();
  const tell = (user: User, text: string) => {
    // Closed DMs are the user's choice; nothing else to do.
    user.send({ content: text }).catch((error: unknown) => log.info({ err: error, user: user.id }, 'could not send a private notice'));
  };
  return {
    tell,
    tellOnce(user, key, text) {
      const id = `${user.id}:${key}`;
      if (told.has(id)) return;
      if (told.size >= MAX_REMEMBERED) told.clear();
      told.add(id);
      tell(user, text);
    },
    tellDaily(user, key, text, now = Date.now()) {
      const id = `${user.id}:${key}`;
      const last = toldAt.get(id);
      if (last !== undefined && now - last < DAY_MS) return;
      if (toldAt.size >= MAX_REMEMBERED) {
        for (const [stale, at] of toldAt) if (now - at >= DAY_MS) toldAt.delete(stale);
        if (toldAt.size >= MAX_REMEMBERED) toldAt.clear();
      }
      toldAt.set(id, now);
      tell(user, text);
    },
  };
}
