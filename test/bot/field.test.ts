// The bot's /field commands end to end: the real service, the real bot (discord.js) and a fake
// Discord. Fields are made, autocompleted, filled in for alters, shown on alter cards in the
// system's order (to others only as each field's privacy allows), reordered and deleted; a card
// with more fields than Discord's 25 keeps its owner's settings and says how many it left out.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { resolvedUsers, user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000021', 'alice');
const BOB = user('400000000000000022', 'bob');

type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const fieldsOf = (embed: Json | undefined) => (embed?.fields ?? []) as Array<{ name: string; value: string }>;
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';

describe('the bot’s profile fields', () => {
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
  const cardFields = async (alter: string, who = ALICE, resolved?: Json, extra: Json[] = []) => {
    const { response } = await slash('alter', 'show', [text('alter', alter), ...extra], who, resolved);
    return fieldsOf(embedsOf(response)[0]);
  };

  it('registers /field with every subcommand, field and alter options autocompleting', () => {
    const commands = h.fake.commands(h.fake.guild.id) as Array<{
      name: string;
      options?: Array<{ name: string; options?: Array<{ name: string; autocomplete?: boolean }> }>;
    }>;
    const field = commands.find((c) => c.name === 'field');
    expect(field?.options?.map((o) => o.name)).toEqual(['create', 'edit', 'delete', 'list', 'order', 'set']);
    const set = field?.options?.find((o) => o.name === 'set')?.options ?? [];
    expect(set.map((o) => [o.name, o.autocomplete ?? false])).toEqual([['alter', true], ['field', true], ['value', false]]);
  });

  it('creates fields privately, refuses a taken name, and lists them in order', async () => {
    await slash('alter', 'create', [text('username', 'ash'), text('display-name', 'Ash')]);
    const created = await slash('field', 'create', [text('name', 'Likes'), text('kind', 'markdown'), text('privacy', 'everyone')]);
    expect(created.response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(created.response.body.content).toContain('Created the field **Likes**');
    await slash('field', 'create', [text('name', 'Met'), text('kind', 'date')]);
    await slash('field', 'create', [text('name', 'Colour'), text('kind', 'colour'), text('privacy', 'everyone')]);
    const taken = await slash('field', 'create', [text('name', 'LIKES')]);
    expect(String(taken.response.body.content)).toMatch(/name/);
    const listed = await slash('field', 'list');
    expect(String(embedsOf(listed.response)[0]?.description).split('\n')).toEqual([
      '1. **Likes** · Markdown text · everyone who sees the alter',
      '2. **Met** · date (2024-07-21) · only me',
      '3. **Colour** · colour (#a1b2c3) · everyone who sees the alter',
    ]);
  });

  it('autocompletes field names and sets values by typed names, naming the option of a bad value', async () => {
    const choices = await h.run(
      h.fake.autocomplete({ name: 'field', subcommand: 'set', user: ALICE, options: [{ ...text('field', 'me'), focused: true }, text('alter', ''), text('value', '')] }),
      (r) => r.callbackType === 8,
    );
    expect((choices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['Met (date)']);

    const set = await slash('field', 'set', [text('field', 'met'), text('alter', 'ash'), text('value', '2019-03-04')]);
    expect(set.response.body.content).toBe('**Met** of **Ash (@ash)**: March 4, 2019');
    await slash('field', 'set', [text('field', 'Likes'), text('alter', 'ash'), text('value', '**tea**')]);
    await slash('field', 'set', [text('field', 'Colour'), text('alter', 'ash'), text('value', '#336699')]);
    const bad = await slash('field', 'set', [text('field', 'Met'), text('alter', 'ash'), text('value', 'yesterday')]);
    expect(String(bad.response.body.content)).toMatch(/value/);
    expect(String(bad.response.body.content)).toMatch(/date like 1996-07-21/);
    const unknown = await slash('field', 'set', [text('field', 'nope'), text('alter', 'ash'), text('value', 'x')]);
    expect(String(unknown.response.body.content)).toMatch(/No profile field called/);
  });

  it('shows the values on the alter card in the system’s order, and follows /field order', async () => {
    const names = (await cardFields('ash')).map((f) => f.name);
    expect(names.filter((name) => ['Likes', 'Met', 'Colour'].includes(name))).toEqual(['Likes', 'Met', 'Colour']);
    expect((await cardFields('ash')).find((f) => f.name === 'Colour')?.value).toBe('`#336699`');
    const moved = await slash('field', 'order', [text('field', 'Colour'), { type: 4, name: 'position', value: 1 }]);
    expect(moved.response.body.content).toContain('Moved **Colour**');
    const after = (await cardFields('ash')).map((f) => f.name).filter((name) => ['Likes', 'Met', 'Colour'].includes(name));
    expect(after).toEqual(['Colour', 'Likes', 'Met']);
  });

  it('shows another user only the values each field’s privacy allows', async () => {
    await own(ALICE.id, (token) => h.bot.context.api.editSystem(token, { public: 64 }));
    const [ash] = (await own(ALICE.id, (token) => h.bot.context.api.listAlters(token, '@me', { skip: 0, max: 10 }))) as Alter[];
    await own(ALICE.id, (token) => h.bot.context.api.editAlter(token, ash?.alterId ?? 0, { public: 1 | 2 | 512 }));
    h.bot.context.alters.invalidate(ALICE.id);
    const seen = await cardFields('ash', BOB, resolvedUsers([ALICE]), [{ type: 6, name: 'user', value: ALICE.id }]);
    const names = seen.map((f) => f.name);
    expect(names).toContain('Likes');
    expect(names).toContain('Colour');
    expect(names).not.toContain('Met');
  });

  it('deletes a field and its values', async () => {
    const deleted = await slash('field', 'delete', [text('field', 'Likes')]);
    expect(deleted.response.body.content).toContain('Deleted the field **Likes**');
    expect((await cardFields('ash')).map((f) => f.name)).not.toContain('Likes');
  });

  it('keeps a card with more fields than Discord allows within 25, the owner’s settings kept, the rest counted', async () => {
    const [ash] = (await own(ALICE.id, (token) => h.bot.context.api.listAlters(token, '@me', { skip: 0, max: 10 }))) as Alter[];
    const values: Record<string, string> = {};
    for (let i = 0; i < 30; i++) {
      const field = await own(ALICE.id, (token) => h.bot.context.api.createProfileField(token, { name: `extra ${i}` }));
      values[field.fieldId] = `value ${i} ${'x'.repeat(150)}`;
    }
    await own(ALICE.id, (token) => h.bot.context.api.editAlter(token, ash?.alterId ?? 0, { profileFields: values }));
    h.bot.context.fields.invalidate(ALICE.id);
    const { response } = await slash('alter', 'show', [text('alter', 'ash')]);
    const card = fieldsOf(embedsOf(response)[0]);
    expect(card.length).toBeLessThanOrEqual(25);
    expect(card.map((f) => f.name)).toContain('Privacy');
    expect(card.find((f) => f.name === 'More fields')?.value).toMatch(/^\d+ more/);
    expect(JSON.stringify(embedsOf(response)).length).toBeLessThan(8000);
  });
});
