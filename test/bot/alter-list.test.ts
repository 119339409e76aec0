// /alter list sorted, of one tag and searched, and /alter random, end to end: the real service, the
// real bot (discord.js) and the fake Discord. The page buttons keep the list's query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeListState, encodeListState } from '../../src/bot/lists/alter-list.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000281', 'alice');

type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
/** The names on a list page, in order (lines are "`id` Name (@username)…"). */
const listed = (response: RecordedResponse) =>
  String(embedsOf(response)[0]?.description)
    .split('\n')
    .map((line) => /@([a-z0-9]+)\)/.exec(line)?.[1]);

describe('/alter list and /alter random through the bot', () => {
  let h: BotHarness;
  let crewId = 0;
  let emptyId = 0;
  /** Created in this order; the names sort the other way round. */
  const usernames = Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(ALICE.id);
    const { api, accounts } = h.bot.context;
    await accounts.withToken(ALICE.id, async (token) => {
      const ids: number[] = [];
      for (const [index, username] of usernames.entries()) {
        const alter = await api.createAlter(token, { username, displayName: `Name ${String.fromCharCode(122 - index)}`, description: index % 3 === 0 ? 'an Owl at night' : null });
        ids.push(alter.alterId);
      }
      const crew = await api.createTag(token, { name: 'crew' });
      crewId = crew.tagId;
      await api.changeTagMembers(token, crew.tagId, { add: ids.slice(0, 11) });
      emptyId = (await api.createTag(token, { name: 'empty' })).tagId;
    });
  }, 60_000);
  afterAll(async () => h?.stop());

  const text = (name: string, value: string) => ({ type: 3, name, value });
  const slash = (subcommand: string, options: Json[] = []) => h.run(h.fake.slashCommand({ name: 'alter', subcommand, user: ALICE, options }), isAnswer);

  it('registers the options within Discord’s limits', () => {
    const alter = (h.fake.commands(h.fake.guild.id) as Array<{ name: string; options?: Array<{ name: string; options?: Array<{ name: string; choices?: unknown[]; autocomplete?: boolean }> }> }>).find((c) => c.name === 'alter');
    const list = alter?.options?.find((o) => o.name === 'list')?.options ?? [];
    expect(list.map((o) => o.name)).toEqual(['user', 'sort', 'tag', 'search']);
    expect(list.find((o) => o.name === 'sort')?.choices).toHaveLength(5);
    expect(list.find((o) => o.name === 'tag')?.autocomplete).toBe(true);
    expect(alter?.options?.map((o) => o.name)).toContain('random');
  });

  it('sorts by name, filters by tag, and the Next button keeps both', async () => {
    const { handle, response } = await slash('list', [text('sort', 'name'), text('tag', 'crew')]);
    expect(embedsOf(response)[0]?.title).toBe('Your alters · by name · in crew');
    // Name z … a for m00 … m11: by name, the last created come first; m11 is not in the tag.
    expect(listed(response)).toEqual(['m10', 'm09', 'm08', 'm07', 'm06', 'm05', 'm04', 'm03', 'm02', 'm01']);
    const next = componentsOf(response)[1];
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const page2 = await h.run(h.fake.button({ customId: String(next?.custom_id), user: ALICE, message }), (r) => r.callbackType === 7);
    expect(listed(page2.response)).toEqual(['m00']);
    expect(embedsOf(page2.response)[0]?.title).toBe('Your alters · by name · in crew');
  });

  it('searches names and descriptions', async () => {
    const { response } = await slash('list', [text('search', 'owl')]);
    expect(listed(response)).toEqual(['m00', 'm03', 'm06', 'm09']);
    expect(embedsOf(response)[0]?.title).toBe('Your alters · matching “owl”');
    const byName = await slash('list', [text('search', 'NAME Z')]);
    expect(listed(byName.response)).toEqual(['m00']);
  });

  it('autocompletes the tag option', async () => {
    const choices = await h.run(
      h.fake.autocomplete({ name: 'alter', subcommand: 'list', user: ALICE, options: [{ ...text('tag', 'cr'), focused: true }] }),
      (r) => r.callbackType === 8,
    );
    expect((choices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['crew']);
  });

  it('picks a random alter, of a tag when one is named', async () => {
    for (let i = 0; i < 5; i++) {
      const { response } = await slash('random', [text('tag', 'crew')]);
      const footer = (embedsOf(response)[0]?.footer as { text: string } | undefined)?.text ?? '';
      const alterId = Number(/Alter (\d+)/.exec(footer)?.[1]);
      const crew = await h.bot.context.accounts.withToken(ALICE.id, (token) => h.bot.context.api.getTag(token, '@me', crewId));
      expect(crew.data.alterIds).toContain(alterId);
    }
    const none = await slash('random', [text('tag', 'empty')]);
    expect(none.response.body.content).toBe('**empty** has no alters.');
    expect(emptyId).toBeGreaterThan(0);
  });

  it('keeps the list’s query in a custom id within Discord’s 100 characters', () => {
    const long = { sort: 'messageCount' as const, tagId: 9_007_199_254_740_991, search: '🦉'.repeat(40) };
    const id = `alters:${'9'.repeat(20)}:${'9'.repeat(7)}:${encodeListState(long)}`;
    expect(id.length).toBeLessThanOrEqual(100);
    const back = decodeListState(encodeListState(long));
    expect(back.sort).toBe('messageCount');
    expect(back.tagId).toBe(long.tagId);
    expect(long.search.startsWith(back.search ?? '')).toBe(true);
    expect(decodeListState(encodeListState({ sort: 'id' }))).toEqual({ sort: 'id' });
  });
});
