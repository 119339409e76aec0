// A user's alters or tags as the bot needs them for command options: autocomplete choices and
// resolving what was typed (an id from autocomplete, or a name typed by hand). Lists are cached
// briefly per (viewer, system) and dropped after the bot's own writes. Names compare as the
// service compares usernames and tag names (usernameKey: case, width and compatibility forms
// ignored), so `ａｓｈ` or `ASH` find `ash`.
import { shortenGraphemes } from '../../domain/proxy/text.js';
import { usernameKey } from '../../domain/username-key.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';

const CACHE_MS = 30_000;
const PAGE = 250;
const MAX_CHOICES = 25;
/** Discord's limit for a choice's name. */
const MAX_CHOICE_NAME = 100;

export interface DirectoryOptions<T> {
  /** One page of the list, as `token` (the viewer's, or the bot's client's for a public list) sees `target`. */
  page(token: string, target: string, page: { skip: number; max: number }): Promise<T[]>;
  id(entry: T): number;
  /** The unique name (at most one entry has it, by usernameKey), and the display name. */
  name(entry: T): string | null;
  displayName(entry: T): string | null;
  /** How a typed unique name reads once its key is taken (an alter's username may be typed with `@`). */
  typedName?(key: string): string;
  /** What a choice shows. */
  label(entry: T): string;
}

export function createDirectory<T>(accounts: LinkedAccounts, options: DirectoryOptions<T>) {
  const { page, id, name, displayName, typedName = (key: string) => key, label } = options;
  const cache = new Map<string, { at: number; entries: Promise<T[]> }>();

  function all(viewerId: string, target = '@me'): Promise<T[]> {
    const key = `${viewerId}:${target}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.entries;
    // Another user's public entries need no link (through the bot's client).
    const entries = accounts.asViewer(viewerId, target, async (token) => {
      const found: T[] = [];
      for (let skip = 0; ; skip += PAGE) {
        const next = await page(token, target, { skip, max: PAGE });
        found.push(...next);
        if (next.length < PAGE) return found;
      }
    });
    cache.set(key, { at: Date.now(), entries });
    entries.catch(() => cache.delete(key));
    return entries;
  }

  const keysOf = (entry: T) => [name(entry), displayName(entry)].filter((n): n is string => Boolean(n)).map(usernameKey);

  return {
    all,

    invalidate(viewerId: string): void {
      for (const key of cache.keys()) if (key.startsWith(`${viewerId}:`)) cache.delete(key);
    },

    /** Up to 25 choices whose name or display name contains what was typed, best matches first. */
    async choices(viewerId: string, typed: string, target = '@me'): Promise<Array<{ name: string; value: string }>> {
      let entries: T[];
      try {
        entries = await all(viewerId, target);
      } catch {
        return []; // not linked, private list, service down: autocomplete just offers nothing
      }
      const needle = usernameKey(typed.trim());
      const score = (entry: T) => {
        const keys = keysOf(entry);
        if (needle === '') return 1;
        if (keys.some((key) => key.startsWith(needle))) return 2;
        return keys.some((key) => key.includes(needle)) ? 1 : 0;
      };
      return entries
        .map((entry) => ({ entry, score: score(entry) }))
        .filter((scored) => scored.score > 0)
        .sort((a, b) => b.score - a.score || id(a.entry) - id(b.entry))
        .slice(0, MAX_CHOICES)
        .map(({ entry }) => ({ name: shortenGraphemes(label(entry), MAX_CHOICE_NAME), value: String(id(entry)) }));
    },

    /** The entry meant by an option value: an id (from autocomplete), a name or a display name. */
    async resolve(viewerId: string, typed: string, target = '@me'): Promise<T | undefined> {
      const value = typed.trim();
      const entries = await all(viewerId, target);
      if (/^\d+$/.test(value)) {
        const byId = entries.find((entry) => String(id(entry)) === value);
        if (byId) return byId;
      }
      // At most one entry has a typed unique name; display names next, first by list order.
      const key = usernameKey(value);
      const unique = typedName(key);
      const is = (text: string | null, wanted: string) => text !== null && usernameKey(text) === wanted;
      return entries.find((entry) => is(name(entry), unique)) ?? entries.find((entry) => is(displayName(entry), key));
    },
  };
}

export type Directory<T> = ReturnType<typeof createDirectory<T>>;
