// The bot's tag directory resolves typed tag names the way the service compares them (usernameKey),
// names an alter's tags for its profile, and offers autocomplete choices, with a fake API and no Discord.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/bot/api-client.js';
import type { LinkedAccounts } from '../../../src/bot/links/linked-accounts.js';
import { createTagDirectory } from '../../../src/bot/lists/tag-directory.js';
import type { Tag } from '../../../src/domain/tag.js';

const tag = (tagId: number, name: string | null, displayName: string | null) => ({ tagId, name, displayName }) as Tag;

const TAGS = [tag(1, 'Sleep crew', null), tag(2, 'Straße', 'Street team'), tag(3, 'littles', 'The Littles'), tag(4, null, null)];

function directory(fail = false) {
  let calls = 0;
  const api = {
    listTags: async (_token: string, _user: string, page: { skip: number; max: number }) => {
      calls++;
      if (fail) throw new Error('service down');
      return TAGS.slice(page.skip, page.skip + page.max);
    },
  };
  const accounts = { asViewer: <T>(_user: string, _target: string, call: (token: string) => Promise<T>) => call('token') };
  return { tags: createTagDirectory(api as unknown as ApiClient, accounts as unknown as LinkedAccounts), calls: () => calls };
}

describe('tag directory', () => {
  it.each([
    ['sleep crew', 1],
    ['  SLEEP CREW ', 1],
    ['STRASSE', 2],
    ['ｓｔｒａｓｓｅ', 2],
    ['street team', 2],
    ['the littles', 3],
    ['3', 3],
  ])('resolves %j to tag %i', async (typed, tagId) => {
    expect((await directory().tags.resolve('viewer', typed))?.tagId).toBe(tagId);
  });

  it.each(['sleep', 'crew', 'Tag 4', '9'])('does not resolve %j', async (typed) => {
    expect(await directory().tags.resolve('viewer', typed)).toBeUndefined();
  });

  it('autocompletes prefix matches first, then substring matches', async () => {
    const { tags } = directory();
    expect((await tags.choices('viewer', 'l')).map((choice) => choice.value)).toEqual(['3', '1']);
    expect((await tags.choices('viewer', 'STR')).map((choice) => [choice.name, choice.value])).toEqual([['Street team (Straße)', '2']]);
    expect(await tags.choices('viewer', 'zzz')).toEqual([]);
  });

  it('names tags in the order asked, skipping those it cannot see, and caches the list', async () => {
    const { tags, calls } = directory();
    expect(await tags.names('viewer', [3, 99, 1])).toEqual(['The Littles (littles)', 'Sleep crew']);
    expect(await tags.names('viewer', [4])).toEqual(['Tag 4']);
    expect(calls()).toBe(1);
    tags.invalidate('viewer');
    await tags.names('viewer', [1]);
    expect(calls()).toBe(2);
    expect(await tags.names('viewer', [])).toEqual([]);
  });

  it('offers nothing and names nothing when the service fails, without throwing', async () => {
    const { tags } = directory(true);
    expect(await tags.choices('viewer', 's')).toEqual([]);
    expect(await tags.names('viewer', [1])).toEqual([]);
    await expect(tags.resolve('viewer', 'sleep crew')).rejects.toThrow('service down');
  });
});
