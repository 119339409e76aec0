// /front set when: (a late switch, in the owner's time zone), /front stats (a ranked list with
// bars, tag autocomplete), and fixing switches from /front history: the Fix buttons, the edit form,
// a delete with its confirmation that only the owner may press, and the later twin it removes.
// Real discord.js against the fake Discord; the service checked through its API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontHistory } from '../../src/domain/front.js';
import { signIn, type ApiUser } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000071', 'alice');
const BOB = user('400000000000000072', 'bob');
type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const H = 3_600_000;

describe('switches in the bot: late switches, statistics, fixing the history', () => {
  let h: BotHarness;
  let alice: ApiUser;
  let ash: number;
  let birch: number;

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(ALICE.id);
    await h.link(BOB.id);
    alice = await signIn(h.server, ALICE.id);
    ash = (await alice.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'ash', displayName: 'Ash' })).body.alterId;
    birch = (await alice.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'birch', displayName: 'Birch' })).body.alterId;
  }, 60_000);
  afterAll(async () => h?.stop());

  const slash = (subcommand: string, options: Json[] = [], who = ALICE) => h.run(h.fake.slashCommand({ name: 'front', user: who, subcommand, options }), isAnswer);
  const history = async () => (await alice.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history?max=100')).body.data.switches;

  it('records a late switch with when:, read in the owner’s time zone (UTC unless the system sets one)', async () => {
    const { response } = await slash('set', [
      { type: 3, name: 'alter', value: 'ash' },
      { type: 3, name: 'when', value: '2h ago' },
    ]);
    expect(String(response.body.content)).toMatch(/^Recorded: \*\*Ash \(@ash\)\*\* fronting since <t:\d+:f> \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/);
    const [late] = await history();
    expect(late?.alterIds).toEqual([ash]);
    expect(Math.abs(Date.parse(late?.switchedAt ?? '') - (Date.now() - 2 * H))).toBeLessThan(5 * 60_000);
    const now = await slash('set', [{ type: 3, name: 'alter', value: 'birch' }]);
    expect(now.response.body.content).toBe('**Birch (@birch)** is now fronting.');
  });

  it('explains a time it cannot use, and records nothing', async () => {
    const before = await history();
    for (const [value, words] of [
      ['in 5 minutes', /could not read/],
      ['2099-01-01 10:00', /in the future/],
    ] as const) {
      const { response } = await slash('set', [
        { type: 3, name: 'alter', value: 'ash' },
        { type: 3, name: 'when', value },
      ]);
      expect(String(response.body.content)).toMatch(words);
    }
    expect(await history()).toEqual(before);
  });

  it('shows /front stats as a ranked list with bars, and autocompletes tags', async () => {
    const { response } = await slash('stats', [{ type: 3, name: 'period', value: '24h' }]);
    const embed = embedsOf(response)[0];
    expect(embed?.title).toBe('Your front: the last 24 hours');
    const lines = String(embed?.description).split('\n');
    expect(lines[0]).toBe('1. **Ash (@ash)**');
    expect(lines[1]).toMatch(/^`█{11,12}░{0,1}` (9\d|100)% · 2h( \d+m)? · 1× in · last <t:\d+:R>$/);
    expect(lines[2]).toBe('2. **Birch (@birch)**');
    expect(lines.at(-1)).toMatch(/^\*\*Nobody\*\* `░{12}` 0% · 0s$/);

    const tag = (await alice.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Crew' })).body.tagId;
    await alice.call('POST', `/v1/users/@me/tags/${tag}/alters`, { add: [birch] });
    const suggested = await h.run(h.fake.autocomplete({ name: 'front', subcommand: 'stats', user: ALICE, options: [{ type: 3, name: 'tag', value: 'cr', focused: true }] }), (r) => r.callbackType === 8);
    expect(suggested.response.body.choices).toEqual([{ name: 'Crew', value: String(tag) }]);
    const tagged = await slash('stats', [{ type: 3, name: 'tag', value: String(tag) }]);
    const taggedLines = String(embedsOf(tagged.response)[0]?.description).split('\n');
    expect(taggedLines[0]).toBe('1. **Birch (@birch)**');
    expect(taggedLines.some((line) => line.includes('Ash'))).toBe(false);
    expect(taggedLines.at(-1)).toMatch(/^\*\*Nobody\*\* `█+░*` (9\d|100)% · 2h/);
  });

  it('edits a switch from /front history: Fix, Edit, the form; a repeat is explained and changes nothing', async () => {
    const { handle, response } = await slash('history');
    const lines = String(embedsOf(response)[0]?.description).split('\n');
    expect(lines).toEqual([expect.stringMatching(/^\*\*1\.\*\* .* · Birch \(@birch\)$/), expect.stringMatching(/^\*\*2\.\*\* .* · Ash \(@ash\)$/)]);
    const fix = componentsOf(response).filter((c) => String(c.label).startsWith('Fix'));
    expect(fix.map((c) => c.label)).toEqual(['Fix 1', 'Fix 2']);
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');

    const byBob = await h.run(h.fake.button({ customId: String(fix[1]?.custom_id), user: BOB, message }), isAnswer);
    expect(String(byBob.response.body.content)).toContain('Only the system’s owner');

    const picked = await h.run(h.fake.button({ customId: String(fix[1]?.custom_id), user: ALICE, message }), isAnswer);
    const [editButton] = componentsOf(picked.response);
    expect(editButton?.label).toBe('Edit alters or time');
    const pickedMessage = picked.handle.latestMessage() ?? message;
    const opened = await h.run(h.fake.button({ customId: String(editButton?.custom_id), user: ALICE, message: pickedMessage }), (r) => r.kind === 'callback');
    expect(opened.response.callbackType).toBe(9);
    const formId = String(opened.response.body.custom_id);
    const submit = (alters: string, when: string) =>
      h.run(
        h.fake.modalSubmit({
          user: ALICE,
          customId: formId,
          components: [
            { type: 1, components: [{ type: 4, custom_id: 'alters', value: alters }] },
            { type: 1, components: [{ type: 4, custom_id: 'when', value: when }] },
          ],
        }),
        isAnswer,
      );
    const before = await history();
    const repeat = await submit('birch', '');
    expect(String(repeat.response.body.content)).toMatch(/repeat/i);
    expect(await history()).toEqual(before);

    const edited = await submit('birch, ash', '3h ago');
    expect(String(edited.response.body.content)).toMatch(/now says \*\*Birch \(@birch\)\*\*, \*\*Ash \(@ash\)\*\* from <t:\d+:f> \(.* UTC\)\.$/);
    const after = await history();
    expect(after.map((entry) => entry.alterIds)).toEqual([[birch], [birch, ash]]);
    expect(Math.abs(Date.parse(after[1]?.switchedAt ?? '') - (Date.now() - 3 * H))).toBeLessThan(5 * 60_000);
  });

  it('deletes a switch after a confirmation only the owner can press, and says when the later twin went too', async () => {
    await slash('set', [{ type: 3, name: 'alter', value: 'birch' }, { type: 3, name: 'alter-2', value: 'ash' }]);
    // Birch+Ash (3h ago), Birch, Birch+Ash (now): deleting the middle one leaves twins.
    const before = await history();
    expect(before.map((entry) => entry.alterIds)).toEqual([[birch, ash], [birch], [birch, ash]]);
    const { handle, response } = await slash('history');
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const fix2 = componentsOf(response).find((c) => c.label === 'Fix 2');
    const picked = await h.run(h.fake.button({ customId: String(fix2?.custom_id), user: ALICE, message }), isAnswer);
    const deleteButton = componentsOf(picked.response).find((c) => c.label === 'Delete');
    const asked = await h.run(
      h.fake.button({ customId: String(deleteButton?.custom_id), user: ALICE, message: picked.handle.latestMessage() ?? message }),
      isAnswer,
    );
    expect(String(asked.response.body.content)).toMatch(/^Delete switch \d+\? This cannot be undone\.$/);
    const confirm = componentsOf(asked.response)[0];
    const confirmMessage = asked.handle.latestMessage() ?? message;
    const byBob = await h.run(h.fake.button({ customId: String(confirm?.custom_id), user: BOB, message: confirmMessage }), isAnswer);
    expect(String(byBob.response.body.content)).toContain('Only the system’s owner');
    expect(await history()).toEqual(before);

    const done = await h.run(h.fake.button({ customId: String(confirm?.custom_id), user: ALICE, message: confirmMessage }), isAnswer);
    expect(String(done.response.body.content)).toBe(
      `Deleted switch ${before[1]?.switchId}. Switch ${before[0]?.switchId} went too: without it, it repeated the switch before it (two switches in a row are never the same).`,
    );
    expect((await history()).map((entry) => entry.switchId)).toEqual([before[2]?.switchId]);
  });
});
