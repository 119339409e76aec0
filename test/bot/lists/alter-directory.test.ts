// The bot's alter directory resolves what a user typed the way the service compares usernames
// (usernameKey: case, width and compatibility forms ignored), with a fake API and no Discord.
import { describe, expect, it } from 'vitest';
import { createAlterDirectory } from '../../../src/bot/lists/alter-directory.js';
import type { ApiClient } from '../../../src/bot/api-client.js';
import type { LinkedAccounts } from '../../../src/bot/links/linked-accounts.js';
import type { Alter } from '../../../src/domain/alter.js';

const alter = (alterId: number, username: string, displayName: string) => ({ alterId, username, displayName }) as Alter;

const ALTERS = [
  alter(1, 'stra\u00dfe', 'Street'),
  alter(2, '\u00e9lan', '\u00c9lan Vital'),
  alter(3, '\u03c3\u03bf\u03c6\u03b9\u03b1', 'Sophia'),
  alter(4, 'kestrel', '\uff2b\uff45\uff53\uff54\uff52\uff45\uff4c Bird'),
  alter(5, 'I', 'Capital I'),
];

function directory() {
  const api = { listAlters: async (_token: string, _user: string, page: { skip: number; max: number }) => ALTERS.slice(page.skip, page.skip + page.max) };
  const accounts = { asViewer: <T>(_user: string, _target: string, call: (token: string) => Promise<T>) => call('token') };
  return createAlterDirectory(api as unknown as ApiClient, accounts as unknown as LinkedAccounts);
}

describe('alter directory name matching', () => {
  it.each([
    ['STRASSE', 1],
    ['Stra\u1e9ee', 1],
    ['@strasse', 1],
    ['\uff20STRASSE', 1], // a fullwidth @ before the name
    ['e\u0301lan', 2], // decomposed é
    ['\u00c9LAN', 2],
    ['\u03a3\u039f\u03a6\u0399\u0391', 3],
    ['\u03c2\u03bf\u03c6\u03b9\u03b1', 3],
    ['\uff4b\uff45\uff53\uff54\uff52\uff45\uff4c', 4], // fullwidth ｋｅｓｔｒｅｌ
    ['  KESTREL ', 4],
    ['kestrel bird', 4], // the display name, its fullwidth letters matched by their plain ones
    ['\u00e9lan vital', 2],
    ['i', 5],
    ['kes\u200btrel', 4], // a pasted zero-width space is ignored, as in the key
  ])('resolves %j to alter %i', async (typed, alterId) => {
    expect((await directory().resolve('viewer', typed))?.alterId).toBe(alterId);
  });

  it.each(['\u0130', '\u0131', 'elan', 'stras', 'kestrel?'])('does not resolve %j', async (typed) => {
    expect(await directory().resolve('viewer', typed)).toBeUndefined();
  });

  it('still resolves an alter id from autocomplete', async () => {
    expect((await directory().resolve('viewer', '3'))?.alterId).toBe(3);
  });

  it('autocompletes with the same normalisation', async () => {
    const choices = await directory().choices('viewer', 'STRA\u1e9e');
    expect(choices.map((choice) => choice.value)).toEqual(['1']);
    expect((await directory().choices('viewer', '\uff2b\uff25\uff33')).map((choice) => choice.value)).toEqual(['4']);
    expect((await directory().choices('viewer', '\u00c9L')).map((choice) => choice.value)).toEqual(['2']);
  });
});
