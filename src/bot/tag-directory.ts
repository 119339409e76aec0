// A user's tags as the bot needs them for `tag` options: autocomplete choices, resolving what was
// typed (an id from autocomplete, or a name), and names for the tag ids an alter shows. Lists are
// cached briefly per (viewer, system) and dropped after the bot's own writes, as alters are.
import type { Tag } from '../domain/tag.js';
import { usernameKey } from '../domain/username-key.js';
import type { ApiClient } from './api-client.js';
import { tagName } from './embeds.js';
import type { LinkedAccounts } from './linked-accounts.js';

const CACHE_MS = 30_000;
const PAGE = 250;
const MAX_CHOICES = 25;

export function createTagDirectory(api: ApiClient, accounts: LinkedAccounts) {
  const cache = new Map<string, { at: number; tags: Promise<Tag[]> }>();

  function all(viewerId: string, target = '@me'): Promise<Tag[]> {
    const key = `${viewerId}:${target}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.tags;
    const tags = accounts.asViewer(viewerId, target, async (token) => {
      const found: Tag[] = [];
      for (let skip = 0; ; skip += PAGE) {
        const page = await api.listTags(token, target, { skip, max: PAGE });
        found.push(...page);
        if (page.length < PAGE) return found;
      }
    });
    cache.set(key, { at: Date.now(), tags });
    tags.catch(() => cache.delete(key));
    return tags;
  }

  /** The names a tag answers to, compared as the service compares tag names. */
  const keysOf = (tag: Tag) => [tag.name, tag.displayName].filter((n): n is string => Boolean(n)).map(usernameKey);

  return {
    all,

    invalidate(viewerId: string): void {
      for (const key of cache.keys()) if (key.startsWith(`${viewerId}:`)) cache.delete(key);
    },

    /** Up to 25 choices whose name or display name contains what was typed, best matches first. */
    async choices(viewerId: string, typed: string, target = '@me'): Promise<Array<{ name: string; value: string }>> {
      let tags: Tag[];
      try {
        tags = await all(viewerId, target);
      } catch {
        return []; // not linked, private list, service down: autocomplete just offers nothing
      }
      const needle = usernameKey(typed.trim());
      const score = (tag: Tag) => {
        const keys = keysOf(tag);
        if (needle === '') return 1;
        if (keys.some((key) => key.startsWith(needle))) return 2;
        return keys.some((key) => key.includes(needle)) ? 1 : 0;
      };
      return tags
        .map((tag) => ({ tag, score: score(tag) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || a.tag.tagId - b.tag.tagId)
        .slice(0, MAX_CHOICES)
        .map(({ tag }) => ({ name: tagName(tag).slice(0, 100), value: String(tag.tagId) }));
    },

    /** The tag meant by an option value: an id (from autocomplete), a name or a display name. */
    async resolve(viewerId: string, typed: string, target = '@me'): Promise<Tag | undefined> {
      const value = typed.trim();
      const tags = await all(viewerId, target);
      if (/^\d+$/.test(value)) {
        const byId = tags.find((tag) => String(tag.tagId) === value);
        if (byId) return byId;
      }
      // Names are unique by usernameKey, so at most one tag has a typed name; display names next.
      const key = usernameKey(value);
      return tags.find((tag) => tag.name !== null && usernameKey(tag.name) === key) ?? tags.find((tag) => tag.displayName !== null && usernameKey(tag.displayName) === key);
    },

    /** Names of the given tags in their order, as far as this viewer can see them (never throws). */
    async names(viewerId: string, tagIds: number[], target = '@me'): Promise<string[]> {
      if (tagIds.length === 0) return [];
      try {
        const byId = new Map((await all(viewerId, target)).map((tag) => [tag.tagId, tag]));
        return tagIds.flatMap((id) => {
          const tag = byId.get(id);
          return tag ? [tagName(tag)] : [];
        });
      } catch {
        return [];
      }
    },
  };
}

export type TagDirectory = ReturnType<typeof createTagDirectory>;
