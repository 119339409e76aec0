// A user's alters as the bot needs them for `alter` options: autocomplete choices and resolving
// what was typed (an id from autocomplete, or a username or display name typed by hand). Lists
// are cached briefly per (viewer, system) and dropped after the bot's own writes.
import type { Alter } from '../domain/alter.js';
import { usernameKey } from '../domain/username-key.js';
import type { ApiClient } from './api-client.js';
import { alterName } from './embeds.js';
import type { LinkedAccounts } from './linked-accounts.js';

const CACHE_MS = 30_000;
const PAGE = 250;
const MAX_CHOICES = 25;

export function createAlterDirectory(api: ApiClient, accounts: LinkedAccounts) {
  const cache = new Map<string, { at: number; alters: Promise<Alter[]> }>();

  function all(viewerId: string, target = '@me'): Promise<Alter[]> {
    const key = `${viewerId}:${target}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.alters;
    // Another user's alters need no link (public ones, through the bot's client).
    const alters = accounts.asViewer(viewerId, target, async (token) => {
      const found: Alter[] = [];
      for (let skip = 0; ; skip += PAGE) {
        const page = await api.listAlters(token, target, { skip, max: PAGE });
        found.push(...page);
        if (page.length < PAGE) return found;
      }
    });
    cache.set(key, { at: Date.now(), alters });
    alters.catch(() => cache.delete(key));
    return alters;
  }

  return {
    all,

    invalidate(viewerId: string): void {
      for (const key of cache.keys()) if (key.startsWith(`${viewerId}:`)) cache.delete(key);
    },

    /** Up to 25 choices whose name or username contains what was typed, best matches first. */
    async choices(viewerId: string, typed: string, target = '@me'): Promise<Array<{ name: string; value: string }>> {
      let alters: Alter[];
      try {
        alters = await all(viewerId, target);
      } catch {
        return []; // not linked, private list, service down: autocomplete just offers nothing
      }
      // Names compare as the service compares usernames (usernameKey: case, width and
      // compatibility forms ignored), so `ａｓｈ` or `ASH` find `ash`.
      const needle = usernameKey(typed.trim());
      const score = (alter: Alter) => {
        const names = [alter.username, alter.displayName].filter((n): n is string => Boolean(n)).map(usernameKey);
        if (needle === '') return 1;
        if (names.some((n) => n.startsWith(needle))) return 2;
        return names.some((n) => n.includes(needle)) ? 1 : 0;
      };
      return alters
        .map((alter) => ({ alter, score: score(alter) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || a.alter.alterId - b.alter.alterId)
        .slice(0, MAX_CHOICES)
        .map(({ alter }) => ({ name: alterName(alter).slice(0, 100), value: String(alter.alterId) }));
    },

    /** The alter meant by an option value: an id (from autocomplete), a username or a display name. */
    async resolve(viewerId: string, typed: string, target = '@me'): Promise<Alter | undefined> {
      const value = typed.trim();
      const alters = await all(viewerId, target);
      if (/^\d+$/.test(value)) {
        const byId = alters.find((alter) => String(alter.alterId) === value);
        if (byId) return byId;
      }
      // A typed username is the one the service would consider the same (usernameKey), so at
      // most one alter matches; display names are matched the same way, first by id order.
      const displayName = usernameKey(value);
      const username = displayName.replace(/^@/, ''); // also a typed fullwidth ＠
      return (
        alters.find((alter) => alter.username !== null && usernameKey(alter.username) === username) ??
        alters.find((alter) => alter.displayName !== null && usernameKey(alter.displayName) === displayName)
      );
    },
  };
}

export type AlterDirectory = ReturnType<typeof createAlterDirectory>;
