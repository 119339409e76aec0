// /system delete end to end: the real service, the real bot (discord.js) and the fake Discord. The
// owner gets their export file first, then a question whose buttons only they can press; Cancel
// keeps everything, Delete removes the system at the service and the bot's link with it.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotLinkedError } from '../../src/bot/links/linked-accounts.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000271', 'alice');
const BOB = user('400000000000000272', 'bob');

type Json = Record<string, unknown>;
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';

describe('/system delete through the bot', () => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(ALICE.id);
    await h.link(BOB.id);
  }, 60_000);
  afterAll(async () => h?.stop());

  const text = (name: string, value: string) => ({ type: 3, name, value });
  const systemRow = () => h.server.database.db.selectFrom('systems').select(['id', 'name']).where('user_id', '=', ALICE.id).executeTakeFirst();

  /** Runs /system delete: the export answer, then the question (a follow-up) with its buttons. */
  async function ask() {
    const { handle, response } = await h.run(h.fake.slashCommand({ name: 'system', subcommand: 'delete', user: ALICE }), (r) => r.files.length > 0, 20_000);
    expect(handle.responses[0]?.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.files[0]?.filename).toMatch(/^switchboard-system-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(response.files[0]?.data.toString('utf8') ?? '') as { members: Array<{ name: string }> };
    expect(exported.members.map((member) => member.name)).toEqual(['ash']);
    const question = await handle.waitForResponse((r) => r.kind === 'followup', 5000);
    expect(question.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(question.body.content)).toMatch(/Delete your whole system for good\?/);
    const [confirm, cancel] = componentsOf(question);
    expect([confirm?.label, cancel?.label]).toEqual(['Delete everything', 'Cancel']);
    const message = h.fake.getMessage(question.messageId ?? '');
    if (!message) throw new Error('no question message');
    const press = (button: Json | undefined, who = ALICE) => h.run(h.fake.button({ customId: String(button?.custom_id), user: who, message }), (r) => r.kind === 'callback');
    return { confirm, cancel, press };
  }

  it('sends the export first and keeps everything on Cancel', async () => {
    await h.run(h.fake.slashCommand({ name: 'alter', subcommand: 'create', user: ALICE, options: [text('username', 'ash'), text('display-name', 'Ash')] }), isAnswer);
    const before = await systemRow();
    const { cancel, press } = await ask();
    const { response } = await press(cancel);
    expect(response.callbackType).toBe(7);
    expect(response.body).toMatchObject({ content: 'Kept your system. Nothing was deleted.', components: [] });
    expect(await systemRow()).toEqual(before);
  });

  it('lets only the owner confirm; Delete removes the system and the link, and a second press harms nothing', async () => {
    const before = await systemRow();
    if (!before) throw new Error('Alice has no system');
    const { confirm, press } = await ask();
    const stranger = await press(confirm, BOB);
    expect(stranger.response.callbackType).toBe(4);
    expect(stranger.response.body).toMatchObject({ flags: MessageFlags.Ephemeral, content: expect.stringMatching(/Only the person who ran \/system delete/) });
    expect(await systemRow()).toEqual(before);

    const done = await press(confirm);
    expect(done.response.callbackType).toBe(6);
    const edited = await done.handle.waitForResponse((r) => r.kind === 'edit', 10_000);
    expect(edited.body).toMatchObject({ content: expect.stringMatching(/^Deleted your system and everything in it, and unlinked your account\./), components: [] });
    // The service deleted it (the owner is free for a new system); the bot forgot the link.
    expect(await systemRow()).toBeUndefined();
    expect(await h.server.database.db.selectFrom('alters').select('id').where('system_id', '=', before.id).execute()).toEqual([]);
    await expect(h.bot.context.accounts.withToken(ALICE.id, async () => 'token')).rejects.toBeInstanceOf(NotLinkedError);

    const twice = await press(confirm);
    const again = await twice.handle.waitForResponse((r) => r.kind === 'edit', 10_000);
    expect(again.body).toMatchObject({ content: 'Your system was already deleted.' });
    // Bob's link and system are untouched.
    expect((await h.bot.context.accounts.withToken(BOB.id, (token) => h.bot.context.api.getSystem(token, '@me'))).associatedUserId).toBe(BOB.id);
  });

  it('registers the subcommand', () => {
    const commands = h.fake.commands(h.fake.guild.id) as Array<{ name: string; options?: Array<{ name: string }> }>;
    expect(commands.find((c) => c.name === 'system')?.options?.map((o) => o.name)).toContain('delete');
  });
});
