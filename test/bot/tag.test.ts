// The bot's /tag commands and /alter delete end to end: the real service, the real bot (discord.js)
// and a fake Discord. Tags are made, filled, shown to their owner and to others, and deleted; an
// alter is deleted only through its confirmation button, by the person who asked.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import type { Tag } from '../../src/domain/tag.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { resolvedUsers, user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000011', 'alice');
const BOB = user('400000000000000012', 'bob');

type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const fieldsOf = (embed: Json | undefined) => (embed?.fields ?? []) as Array<{ name: string; value: string }>;
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';

describe('the bot’s tags and alter deletion', () => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(ALICE.id);
    await h.link(BOB.id);
  }, 60_000);
  afterAll(async () => h?.stop());

  const slash = (name: string, subcommand: string, options: Json[] = [], who = ALICE, resolved?: Json) =>
    h.run(h.fake.slashCommand({ name, user: who, subcommand, options, ...(resolved ? { resolved } : {}) }), isAnswer);
  const text = (name: string, value: string) => ({ type: 3, name, value });
  const own = <T>(who: string, call: (token: string) => Promise<T>) => h.bot.context.accounts.withToken(who, call);
  const aliceAlters = () => own(ALICE.id, (token) => h.bot.context.api.listAlters(token, '@me', { skip: 0, max: 250 }));
  const aliceTags = () => own(ALICE.id, (token) => h.bot.context.api.listTags(token, '@me', { skip: 0, max: 250 }));

  it('registers /tag with every subcommand, tag and alter options autocompleting', () => {
    const commands = h.fake.commands(h.fake.guild.id) as Array<{
      name: string;
      options?: Array<{ name: string; options?: Array<{ name: string; autocomplete?: boolean }> }>;
    }>;
    const tag = commands.find((c) => c.name === 'tag');
    expect(tag?.options?.map((o) => o.name)).toEqual(['create', 'edit', 'show', 'list', 'add', 'remove', 'delete']);
    const add = tag?.options?.find((o) => o.name === 'add')?.options ?? [];
    expect(add.map((o) => [o.name, o.autocomplete])).toEqual([['tag', true], ['alter', true]]);
  });

  it('creates a tag privately, and reports a taken name naming the field', async () => {
    for (const [username, displayName] of [['ash', 'Ash'], ['birch', 'Birch']]) {
      await slash('alter', 'create', [text('username', username ?? ''), text('display-name', displayName ?? '')]);
    }
    const { response } = await slash('tag', 'create', [text('name', 'Sleep crew'), text('color', '#336699'), text('description', 'Night shift')]);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.body.content).toContain('Created **Sleep crew**');
    expect(embedsOf(response)[0]).toMatchObject({ title: 'Sleep crew', color: 0x336699, description: 'Night shift' });
    const taken = await slash('tag', 'create', [text('name', 'SLEEP CREW')]);
    expect(taken.response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(taken.response.body.content)).toMatch(/name/);
    expect((await aliceTags()).map((tag) => tag.name)).toEqual(['Sleep crew']);
  });

  it('autocompletes tags and alters, adds and removes members by typed names, and shows them', async () => {
    const tagChoices = await h.run(h.fake.autocomplete({ name: 'tag', subcommand: 'add', user: ALICE, options: [{ ...text('tag', 'sle'), focused: true }, text('alter', '')] }), (r) => r.callbackType === 8);
    expect((tagChoices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['Sleep crew']);
    const alterChoices = await h.run(h.fake.autocomplete({ name: 'tag', subcommand: 'add', user: ALICE, options: [text('tag', 'Sleep crew'), { ...text('alter', 'bi'), focused: true }] }), (r) => r.callbackType === 8);
    expect((alterChoices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['Birch (@birch)']);

    for (const alter of ['ash', 'Birch']) {
      const { response } = await slash('tag', 'add', [text('tag', 'sleep crew'), text('alter', alter)]);
      expect(response.body.content).toMatch(/is now in \*\*Sleep crew\*\*/);
    }
    const again = await slash('tag', 'add', [text('tag', 'Sleep crew'), text('alter', 'ash')]);
    expect(again.response.body.content).toMatch(/already in/);
    const shown = await slash('tag', 'show', [text('tag', 'Sleep crew')]);
    expect(shown.response.body.flags ?? 0).toBe(0);
    expect(fieldsOf(embedsOf(shown.response)[0]).find((f) => f.name.startsWith('Members'))).toMatchObject({ name: 'Members (2)', value: 'Ash (@ash), Birch (@birch)' });

    // The alter's profile names its tags.
    const ash = await slash('alter', 'show', [text('alter', 'ash')]);
    expect(fieldsOf(embedsOf(ash.response)[0]).find((f) => f.name === 'Tags')?.value).toBe('Sleep crew');

    const removed = await slash('tag', 'remove', [text('tag', 'Sleep crew'), text('alter', 'birch')]);
    expect(removed.response.body.content).toMatch(/no longer in/);
    const [tag] = await aliceTags();
    const alters = await aliceAlters();
    expect(tag?.alterIds).toEqual(alters.filter((alter) => alter.username === 'ash').map((alter) => alter.alterId));

    const unknown = await slash('tag', 'add', [text('tag', 'nonexistent'), text('alter', 'ash')]);
    expect(String(unknown.response.body.content)).toMatch(/No tag called/);
  });

  it('edits a tag and shows others only what its privacy allows', async () => {
    const privateView = await slash('tag', 'list', [{ type: 6, name: 'user', value: ALICE.id }], BOB, resolvedUsers([ALICE]));
    expect(String(privateView.response.body.content)).toMatch(/does not show its tags/);

    await own(ALICE.id, (token) => h.bot.context.api.editSystem(token, { public: 64 | 128 }));
    for (const alter of await aliceAlters()) await own(ALICE.id, (token) => h.bot.context.api.editAlter(token, alter.alterId, { public: 1 | 2 | 512 | 128 }));
    h.bot.context.alters.invalidate(ALICE.id);
    const edited = await slash('tag', 'edit', [text('tag', 'Sleep crew'), text('display-name', 'Sleepers'), text('description', '-'), { type: 3, name: 'privacy', value: 'public' }]);
    expect(edited.response.body.content).toContain('Updated **Sleepers (Sleep crew)**');
    expect(embedsOf(edited.response)[0]?.description).toBeUndefined();
    await slash('tag', 'create', [text('name', 'secret')]);

    const list = await slash('tag', 'list', [{ type: 6, name: 'user', value: ALICE.id }], BOB, resolvedUsers([ALICE]));
    const lines = String(embedsOf(list.response)[0]?.description).split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Sleepers (Sleep crew) · 1 member');
    const show = await slash('tag', 'show', [text('tag', 'sleepers'), { type: 6, name: 'user', value: ALICE.id }], BOB, resolvedUsers([ALICE]));
    expect(embedsOf(show.response)[0]?.title).toBe('Sleepers (Sleep crew)');
    expect(fieldsOf(embedsOf(show.response)[0]).find((f) => f.name.startsWith('Members'))?.value).toBe('Ash (@ash)');
    const hidden = await slash('tag', 'show', [text('tag', 'secret'), { type: 6, name: 'user', value: ALICE.id }], BOB, resolvedUsers([ALICE]));
    expect(String(hidden.response.body.content)).toMatch(/No tag called/);
  });

  it('pages /tag list with buttons', async () => {
    for (let i = 0; i < 20; i++) await own(ALICE.id, (token) => h.bot.context.api.createTag(token, { name: `page ${i}` }));
    const { handle, response } = await slash('tag', 'list');
    expect(String(embedsOf(response)[0]?.description).split('\n')).toHaveLength(20);
    const [previous, next] = componentsOf(response);
    expect([previous?.disabled, next?.disabled]).toEqual([true, false]);
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const page2 = await h.run(h.fake.button({ customId: String(next?.custom_id), user: ALICE, message }), (r) => r.callbackType === 7);
    expect(String(embedsOf(page2.response)[0]?.description).split('\n')).toHaveLength(2); // 22 tags: Sleep crew, secret, page 0..19
    expect(embedsOf(page2.response)[0]?.footer).toMatchObject({ text: 'Tags 21–22' });
    expect(componentsOf(page2.response)[1]?.disabled).toBe(true);
    for (const tag of await aliceTags()) if (tag.name?.startsWith('page ')) await own(ALICE.id, (token) => h.bot.context.api.deleteTag(token, tag.tagId));
    h.bot.context.tags.invalidate(ALICE.id);
  });

  it('deletes a tag; its alters stay', async () => {
    const { response } = await slash('tag', 'delete', [text('tag', 'Sleep crew')]);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.body.content).toBe('Deleted the tag **Sleepers (Sleep crew)** (its 1 alter stays).');
    expect((await aliceTags()).map((tag: Tag) => tag.name)).toEqual(['secret']);
    const ash = (await aliceAlters()).find((alter: Alter) => alter.username === 'ash');
    expect(ash?.tagIds).toEqual([]);
  });

  describe('/alter delete', () => {
    const ask = async (name: string) => {
      const { handle, response } = await slash('alter', 'delete', [text('alter', name)]);
      expect(response.body.flags).toBe(MessageFlags.Ephemeral);
      expect(String(response.body.content)).toMatch(/for good\?/);
      const [confirm, cancel] = componentsOf(response);
      expect([confirm?.label, cancel?.label]).toEqual(['Delete', 'Cancel']);
      const message = handle.latestMessage();
      if (!message) throw new Error('no message');
      const press = (button: Json | undefined, who = ALICE) => h.run(h.fake.button({ customId: String(button?.custom_id), user: who, message }), (r) => r.kind === 'callback');
      return { confirm, cancel, press };
    };

    it('keeps the alter on Cancel', async () => {
      const { cancel, press } = await ask('birch');
      const { response } = await press(cancel);
      expect(response.callbackType).toBe(7);
      expect(response.body).toMatchObject({ content: 'Kept **Birch (@birch)**.', components: [] });
      expect((await aliceAlters()).map((alter) => alter.username)).toContain('birch');
    });

    it('lets only the person who asked confirm, deletes on Delete, and a second press does nothing harmful', async () => {
      const { confirm, press } = await ask('birch');
      const stranger = await press(confirm, BOB);
      expect(stranger.response.callbackType).toBe(4);
      expect(stranger.response.body).toMatchObject({ flags: MessageFlags.Ephemeral, content: expect.stringMatching(/Only the person who ran/) });
      expect((await aliceAlters()).map((alter) => alter.username)).toContain('birch');

      const done = await press(confirm);
      expect(done.response.callbackType).toBe(7);
      expect(done.response.body).toMatchObject({ content: 'Deleted **Birch (@birch)**.', components: [] });
      expect((await aliceAlters()).map((alter) => alter.username)).not.toContain('birch');
      // The bot's own caches were dropped: autocomplete no longer offers it.
      const choices = await h.run(h.fake.autocomplete({ name: 'alter', subcommand: 'show', user: ALICE, options: [{ ...text('alter', 'bi'), focused: true }] }), (r) => r.callbackType === 8);
      expect(choices.response.body.choices).toEqual([]);

      const twice = await press(confirm);
      expect(twice.response.callbackType).toBe(7);
      expect(twice.response.body).toMatchObject({ content: 'That alter was already deleted.', components: [] });
      expect((await aliceAlters()).map((alter) => alter.username)).toEqual(['ash']);
    });
  });
});
