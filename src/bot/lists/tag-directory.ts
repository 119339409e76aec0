// A user's tags for `tag` options (lists/directory.ts), and names for the tag ids an alter shows.
import type { Tag } from '../../domain/tag.js';
import type { ApiClient } from '../api-client.js';
import { tagName } from '../embeds.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { createDirectory } from './directory.js';

export function createTagDirectory(api: ApiClient, accounts: LinkedAccounts) {
  const directory = createDirectory<Tag>(accounts, {
    page: (token, target, page) => api.listTags(token, target, page),
    id: (tag) => tag.tagId,
    name: (tag) => tag.name,
    displayName: (tag) => tag.displayName,
    label: tagName,
  });
  return {
    ...directory,

    /** Names of the given tags in their order, as far as this viewer can see them (never throws). */
    async names(viewerId: string, tagIds: number[], target = '@me'): Promise<string[]> {
      if (tagIds.length === 0) return [];
      try {
        const byId = new Map((await directory.all(viewerId, target)).map((tag) => [tag.tagId, tag]));
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
