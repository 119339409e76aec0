// The bot end to end: the real service, the real bot (discord.js) and a fake Discord. Commands go
// through the gateway, the bot calls the service over HTTP, answers land at Discord's REST API.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_BUTTON_ID } from '../../src/bot/links/link-flow.js';
import { approveWithLoginLink, startBotHarness, type BotHarness } from '../support/bot.js';
import { resolvedUsers, user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000001', 'alice');
const BOB = user('400000000000000002', 'bob');
const CAROL = user('400000000000000003', 'carol');

type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';

describe('the Discord bot', () => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(ALICE.id);
    await h.link(BOB.id);
  });
  afterAll(async () => h?.stop());

  const slash = (name: string, subcommand: string | undefined, options: Json[] = [], who = ALICE, resolved?: Json) =>
    h.run(h.fake.slashCommand({ name, user: who, ...(subcommand ? { subcommand } : {}), options, ...(resolved ? { resolved } : {}) }), isAnswer);

  it('registers every command in the configured guild', () => {
    const commands = h.fake.commands(h.fake.guild.id) as Array<{
      name: string;
      type?: number;
      options?: Array<{ name: string; options?: Array<{ name: string; autocomplete?: boolean }> }>;
    }>;
    expect(commands.map((c) => c.name).sort()).toEqual(['Delete proxied message', 'Edit proxied message', 'Message info', 'Reproxy message', 'View system', 'alter', 'autoproxy', 'export', 'field', 'front', 'help', 'import', 'link', 'proxy', 'reproxy', 'server', 'system', 'tag', 'unlink']);
    const alter = commands.find((c) => c.name === 'alter');
    expect(alter?.options?.map((o) => o.name)).toEqual(['create', 'edit', 'server', 'show', 'list', 'random', 'privacy', 'delete']);
    const alterOption = alter?.options?.find((o) => o.name === 'edit')?.options?.find((o) => o.name === 'alter');
    expect(alterOption?.autocomplete).toBe(true);
    const front = commands.find((c) => c.name === 'front');
    expect(front?.options?.map((o) => o.name)).toEqual(['set', 'out', 'show', 'history', 'stats']);
    const fronters = front?.options?.find((o) => o.name === 'set')?.options ?? [];
    expect(fronters.map((o) => [o.name, o.autocomplete])).toEqual([...['alter', 'alter-2', 'alter-3', 'alter-4', 'alter-5'].map((name) => [name, true]), ['when', undefined]]);
    expect(commands.find((c) => c.name === 'View system')?.type).toBe(2);
    expect(commands.find((c) => c.name === 'Message info')?.type).toBe(3);
  });

  it('prompts an unlinked user to link, privately, instead of failing', async () => {
    const { response } = await slash('system', 'show', [], CAROL);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(response.body.content)).toMatch(/link/i);
    expect(componentsOf(response).map((c) => c.custom_id)).toContain(LINK_BUTTON_ID);
  });

  it('links an account with /link: button → approve in the browser → the reply says who is linked', async () => {
    const { handle, response } = await slash('link', undefined, [], CAROL);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    const button = componentsOf(response).find((c) => c.style === 5);
    expect(button?.url).toMatch(new RegExp(`^${h.server.url}/auth/login-links/`));
    await approveWithLoginLink(String(button?.url));
    const linked = await handle.waitForResponse((r) => r.kind === 'edit' && String(r.body.content).startsWith('Linked!'), 20_000);
    expect(linked.body.content).toContain('My system');
    expect(await h.bot.context.accounts.isLinked(CAROL.id)).toBe(true);
    const { response: shown } = await slash('system', 'show', [], CAROL);
    expect(embedsOf(shown)[0]?.title).toBe('My system');
  }, 30_000);

  it('creates an alter and shows its profile embed', async () => {
    const { response } = await slash('alter', 'create', [
      { type: 3, name: 'username', value: 'ash' },
      { type: 3, name: 'display-name', value: 'Ash' },
      { type: 3, name: 'pronouns', value: 'they/them' },
      { type: 3, name: 'color', value: '#ff8800' },
      { type: 3, name: 'avatar', value: 'https://cdn.example/ash.png' },
    ]);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    const embed = embedsOf(response)[0];
    expect(embed).toMatchObject({ title: 'Ash (@ash)', color: 0xff8800, thumbnail: { url: 'https://cdn.example/ash.png' } });
    expect(embed?.fields).toEqual(expect.arrayContaining([{ name: 'Pronouns', value: 'they/them', inline: true }]));
  });

  it('reports API validation errors privately, naming the field', async () => {
    const duplicate = await slash('alter', 'create', [
      { type: 3, name: 'username', value: 'ASH' },
      { type: 3, name: 'display-name', value: 'Other' },
    ]);
    expect(duplicate.response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(duplicate.response.body.content)).toMatch(/username/);
    const badColor = await slash('alter', 'create', [
      { type: 3, name: 'username', value: 'tint' },
      { type: 3, name: 'display-name', value: 'Tint' },
      { type: 3, name: 'color', value: 'orange' },
    ]);
    expect(String(badColor.response.body.content)).toMatch(/color/);
  });

  it('autocompletes alters by name and accepts a typed username', async () => {
    await slash('alter', 'create', [
      { type: 3, name: 'username', value: 'birch' },
      { type: 3, name: 'display-name', value: 'Birch' },
    ]);
    const payload = h.fake.autocomplete({ name: 'front', subcommand: 'set', user: ALICE, options: [{ type: 3, name: 'alter', value: 'ash' }, { type: 3, name: 'alter-2', value: 'bi', focused: true }] });
    const { response } = await h.run(payload, (r) => r.callbackType === 8);
    const choices = response.body.choices as Array<{ name: string; value: string }>;
    expect(choices.map((c) => c.name)).toEqual(['Birch (@birch)']);

    const edited = await slash('alter', 'edit', [
      { type: 3, name: 'alter', value: 'birch' },
      { type: 3, name: 'description', value: 'Tall and calm.' },
    ]);
    expect(embedsOf(edited.response)[0]).toMatchObject({ title: 'Birch (@birch)', description: 'Tall and calm.' });
    const unknown = await slash('alter', 'edit', [{ type: 3, name: 'alter', value: 'nobody' }, { type: 3, name: 'pronouns', value: 'x' }]);
    expect(String(unknown.response.body.content)).toMatch(/No alter called/);
  });

  it('switches the front with /front set and shows who is fronting in /system show', async () => {
    const { response } = await slash('front', 'set', [{ type: 3, name: 'alter', value: 'ash' }]);
    expect(response.body.flags ?? 0).toBe(0);
    expect(response.body.content).toBe('**Ash (@ash)** is now fronting.');
    expect(embedsOf(response)[0]?.title).toBe('Ash (@ash)');
    const { response: system } = await slash('system', 'show');
    const fields = embedsOf(system)[0]?.fields as Array<{ name: string; value: string }>;
    expect(fields.find((f) => f.name === 'Fronting')?.value).toMatch(/^Ash \(@ash\) · since <t:\d+:R>$/);
  });

  it('switches to co-fronters in order, refuses the same switch again, and shows the front with /front show', async () => {
    const { response } = await slash('front', 'set', [{ type: 3, name: 'alter', value: 'birch' }, { type: 3, name: 'alter-3', value: 'Ash' }]);
    expect(response.body.content).toBe('**Birch (@birch)** is now fronting, with **Ash (@ash)**.');
    expect(embedsOf(response)[0]?.title).toBe('Birch (@birch)');

    const again = await slash('front', 'set', [{ type: 3, name: 'alter', value: 'birch' }, { type: 3, name: 'alter-2', value: 'ash' }]);
    expect(again.response.body.content).toBe('**Birch (@birch)** is already fronting, with **Ash (@ash)**.');
    const twice = await slash('front', 'set', [{ type: 3, name: 'alter', value: 'birch' }, { type: 3, name: 'alter-2', value: 'Birch' }]);
    expect(twice.response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(twice.response.body.content)).toMatch(/named Birch \(@birch\) twice/);

    const { response: shown } = await slash('front', 'show');
    const embed = embedsOf(shown)[0];
    expect(embed?.title).toBe('Fronting now');
    expect(String(embed?.description)).toMatch(/^\*\*Birch \(@birch\)\*\* \(primary\)\nAsh \(@ash\)\n\nSince <t:\d+:R>$/);
    expect(embed?.footer).toMatchObject({ text: expect.stringMatching(/^Switched through /) });
    const { response: system } = await slash('system', 'show');
    const fields = embedsOf(system)[0]?.fields as Array<{ name: string; value: string }>;
    expect(fields.find((f) => f.name === 'Fronting')?.value).toMatch(/^Birch \(@birch\), Ash \(@ash\) · since <t:\d+:R>$/);
  });

  it('switches out with /front out, once', async () => {
    const { response } = await slash('front', 'out');
    expect(response.body.content).toBe('Switched out: nobody is fronting now.');
    const again = await slash('front', 'out');
    expect(again.response.body.content).toBe('Nobody is fronting already.');
    const { response: shown } = await slash('front', 'show');
    expect(String(embedsOf(shown)[0]?.description)).toMatch(/^Nobody is fronting\./);
  });

  it('pages /front history with buttons, newest first', async () => {
    for (let i = 0; i < 9; i += 1) await slash('front', 'set', [{ type: 3, name: 'alter', value: i % 2 ? 'ash' : 'birch' }]);
    // 12 switches: ash; birch+ash; out; then birch, ash, … (nine).
    const { handle, response } = await slash('front', 'history');
    const lines = String(embedsOf(response)[0]?.description).split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^\*\*1\.\*\* <t:\d+:R> · Birch \(@birch\)$/);
    const [previous, next] = componentsOf(response);
    expect(previous?.disabled).toBe(true);
    expect(next?.disabled).toBe(false);
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const page2 = await h.run(h.fake.button({ customId: String(next?.custom_id), user: ALICE, message }), (r) => r.callbackType === 7);
    expect(embedsOf(page2.response)[0]?.title).toBe('Your switches');
    expect(String(embedsOf(page2.response)[0]?.description).split('\n')).toEqual([
      expect.stringMatching(/ · Birch \(@birch\), Ash \(@ash\)$/),
      expect.stringMatching(/ · Ash \(@ash\)$/),
    ]);
    expect(componentsOf(page2.response)[1]?.disabled).toBe(true);
  });

  it('edits the system', async () => {
    const { response } = await slash('system', 'edit', [
      { type: 3, name: 'name', value: 'Alice’s crew' },
      { type: 3, name: 'pronouns', value: 'we/us' },
    ]);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(embedsOf(response)[0]?.title).toBe('Alice’s crew');
  });

  it('pages /alter list with buttons', async () => {
    for (let i = 0; i < 11; i++) {
      await slash('alter', 'create', [
        { type: 3, name: 'username', value: `member${i}` },
        { type: 3, name: 'display-name', value: `Member ${i}` },
      ]);
    }
    const { handle, response } = await slash('alter', 'list');
    expect(String(embedsOf(response)[0]?.description).split('\n')).toHaveLength(10);
    const [previous, next] = componentsOf(response);
    expect(previous?.disabled).toBe(true);
    expect(next?.disabled).toBe(false);
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const page2 = await h.run(h.fake.button({ customId: String(next?.custom_id), user: ALICE, message }), (r) => r.callbackType === 7);
    const lines = String(embedsOf(page2.response)[0]?.description).split('\n');
    expect(lines).toHaveLength(3); // 13 alters: ash, birch and member0..10
    expect(componentsOf(page2.response)[1]?.disabled).toBe(true);
  });

  it('shows another user’s system with their privacy applied, in /system show and the moderator view', async () => {
    // Bob keeps everything private.
    await slash('alter', 'create', [{ type: 3, name: 'username', value: 'hidden' }, { type: 3, name: 'display-name', value: 'Hidden' }], BOB);
    const privateView = await h.run(h.fake.userContextMenu({ name: 'View system', targetUser: BOB, user: ALICE }), isAnswer);
    expect(privateView.response.body.flags).toBe(MessageFlags.Ephemeral);
    const embeds = embedsOf(privateView.response);
    expect(embeds).toHaveLength(1);
    expect(embeds[0]?.title).toBe('A private system');
    expect(JSON.stringify(embeds)).not.toContain('Hidden');

    // Bob shows his name and alters; the alter shows itself and its name.
    await slash('system', 'edit', [{ type: 3, name: 'name', value: 'Bob’s system' }], BOB);
    const bob = h.bot.context;
    await bob.accounts.withToken(BOB.id, async (token) => {
      await bob.api.editSystem(token, { public: 1 | 64 });
      const [hidden] = await bob.api.listAlters(token, '@me', { skip: 0, max: 1 });
      await bob.api.editAlter(token, hidden?.alterId ?? 0, { public: 1 | 2 | 512 });
    });
    const publicView = await h.run(h.fake.userContextMenu({ name: 'View system', targetUser: BOB, user: ALICE }), isAnswer);
    const shown = embedsOf(publicView.response);
    expect(shown[0]?.title).toBe('Bob’s system');
    expect(shown[1]?.description).toContain('Hidden (@hidden)');

    const viaSlash = await slash('system', 'show', [{ type: 6, name: 'user', value: BOB.id }], ALICE, resolvedUsers([BOB]));
    expect(embedsOf(viaSlash.response)[0]?.title).toBe('Bob’s system');

    // Alice's autocomplete offers Bob's visible alter when she names Bob, and /alter show shows it.
    const choices = await h.run(
      h.fake.autocomplete({ name: 'alter', subcommand: 'show', user: ALICE, options: [{ type: 3, name: 'alter', value: 'hid', focused: true }, { type: 6, name: 'user', value: BOB.id }] }),
      (r) => r.callbackType === 8,
    );
    expect((choices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['Hidden (@hidden)']);
    const alterShow = await slash('alter', 'show', [{ type: 3, name: 'alter', value: 'hidden' }, { type: 6, name: 'user', value: BOB.id }], ALICE, resolvedUsers([BOB]));
    expect(alterShow.response.body.flags ?? 0).toBe(0);
    const embed = embedsOf(alterShow.response)[0];
    expect(embed?.title).toBe('Hidden (@hidden)');
    // Bob hides message counts (bit 256 unset), so the embed has no Messages field.
    expect((embed?.fields as Array<{ name: string }>).map((f) => f.name)).not.toContain('Messages');
  });

  it('shows one’s own alter with /alter show, message count included', async () => {
    const { response } = await slash('alter', 'show', [{ type: 3, name: 'alter', value: 'Ash' }]);
    const embed = embedsOf(response)[0];
    expect(embed?.title).toBe('Ash (@ash)');
    expect(embed?.fields).toEqual(expect.arrayContaining([{ name: 'Messages', value: '0', inline: true }]));
  });

  it('refreshes an expired access token, once, even for parallel commands', async () => {
    const { accounts } = h.bot.context;
    const before = await readLink(h, ALICE.id);
    await accounts.save(ALICE.id, { ...before, expiresAt: Date.now() - 1000 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => slash('system', 'show')));
    for (const { response } of answers) expect(embedsOf(response)[0]?.title).toBe('Alice’s crew');
    const after = await readLink(h, ALICE.id);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
    // The rotated refresh token still works: parallel refreshes did not revoke the family.
    await accounts.save(ALICE.id, { ...after, expiresAt: Date.now() - 1000 });
    expect(embedsOf((await slash('system', 'show')).response)[0]?.title).toBe('Alice’s crew');
  });

  it('refreshes after a 401 from the service', async () => {
    const link = await readLink(h, ALICE.id);
    // An access token the service does not accept, though the bot believes it is fresh.
    await h.bot.context.accounts.save(ALICE.id, { ...link, accessToken: 'x'.repeat(43), expiresAt: Date.now() + 3_600_000 });
    const { response } = await slash('system', 'show');
    expect(embedsOf(response)[0]?.title).toBe('Alice’s crew');
    expect((await readLink(h, ALICE.id)).accessToken).not.toBe(link.accessToken);
  });

  it('removes a revoked link and asks to link again', async () => {
    const link = await readLink(h, BOB.id);
    await h.bot.context.api.revoke(link.refreshToken ?? '', 'refresh_token');
    const { response } = await slash('system', 'show', [], BOB);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(response.body.content)).toMatch(/expired or was revoked/);
    expect(componentsOf(response).map((c) => c.custom_id)).toContain(LINK_BUTTON_ID);
    expect(await h.bot.context.accounts.isLinked(BOB.id)).toBe(false);
  });

  it('unlinks with /unlink, revoking the tokens at the service', async () => {
    const link = await readLink(h, CAROL.id);
    const { response } = await slash('unlink', undefined, [], CAROL);
    expect(String(response.body.content)).toMatch(/Unlinked/);
    expect(await h.bot.context.accounts.isLinked(CAROL.id)).toBe(false);
    const introspection = await fetch(`${h.server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${link.accessToken}` } });
    expect(introspection.status).toBe(401);
  });

  it('answers /help', async () => {
    const { response } = await slash('help', undefined, [], CAROL);
    expect(embedsOf(response)[0]?.title).toBe('switchboard');
  });
});

/** The stored link, read the way the bot reads it. */
async function readLink(h: BotHarness, userId: string) {
  const link = await h.bot.store.get(userId);
  if (!link) throw new Error(`no link for ${userId}`);
  return link;
}
