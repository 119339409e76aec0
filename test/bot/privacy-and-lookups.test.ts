// Privacy and lookups as chat users and moderators meet them, end to end (the real service, the
// real bot, the fake Discord): a new system and alter say they are private and how to change it;
// a moderator who never linked looks members up through the bot's own client and sees only what
// they made public; the owner makes the profile public in one step; the service's errors come back
// in the command's own words; cards show proxy tags, messages and the front.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_CLIENT_ID } from '../../src/auth/clients.js';
import { ApiError, CLIENT_MISCONFIGURED_MESSAGE, createApiClient } from '../../src/bot/api-client.js';
import { LINK_BUTTON_ID } from '../../src/bot/links/link-flow.js';
import { loadBotClientSecret } from '../../src/config/secrets.js';
import { approveWithLoginLink, startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient } from '../support/oauth.js';
import { resolvedUsers, user, type ApiUser, type RecordedResponse } from '../support/fake-discord.js';
import { TOKEN_PATH, startTokenProxy } from './token-proxy.js';

const OWNER = user('430000000000000001', 'owner');
/** Never links. */
const MODERATOR = user('430000000000000002', 'moderator');
/** Linked, but not the owner. */
const FRIEND = user('430000000000000003', 'friend');
/** Never signed in to switchboard: no system. */
const STRANGER = user('430000000000000004', 'stranger');

type Json = Record<string, unknown>;
type Field = { name: string; value: string; inline?: boolean };
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Json[];
const fieldsOf = (embed: Json | undefined) => (embed?.fields ?? []) as Field[];
const field = (embed: Json | undefined, name: string) => fieldsOf(embed).find((f) => f.name === name)?.value;
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const str = (name: string, value: string) => ({ type: 3, name, value });
const userOption = (who: ApiUser) => ({ type: 6, name: 'user', value: who.id });

describe.each(DIALECTS)('privacy and lookups through the bot (%s)', (dialect) => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness({ dialect, env: { RATE_LIMIT_ENABLED: 'false' } });
    await h.link(FRIEND.id);
  });
  afterAll(async () => h?.stop());

  const slash = (name: string, subcommand: string | undefined, options: Json[], who: ApiUser, resolved?: Json) =>
    h
      .run(h.fake.slashCommand({ name, user: who, ...(subcommand ? { subcommand } : {}), options, ...(resolved ? { resolved } : {}) }), isAnswer)
      .then((r) => r.response);
  const viewSystem = (target: ApiUser, who: ApiUser) => h.run(h.fake.userContextMenu({ name: 'View system', targetUser: target, user: who }), isAnswer).then((r) => r.response);
  const lookUp = (subcommand: 'show' | 'list', options: Json[], who = MODERATOR) => slash(subcommand === 'show' ? 'system' : 'alter', subcommand === 'show' ? 'show' : 'list', [...options, userOption(OWNER)], who, resolvedUsers([OWNER]));
  const showAlter = (alter: string, who = MODERATOR) => slash('alter', 'show', [str('alter', alter), userOption(OWNER)], who, resolvedUsers([OWNER]));

  it('tells the owner of a new system, when linking, that it is private and how to change that', async () => {
    const { handle, response } = await h.run(h.fake.slashCommand({ name: 'link', user: OWNER, options: [] }), isAnswer);
    const button = componentsOf(response).find((c) => c.style === 5);
    // Not linked yet: one's own system needs the link, and the prompt says lookups do not.
    const prompt = await slash('system', 'show', [], OWNER);
    expect(prompt.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(prompt.body.content)).toMatch(/^Link your Discord account .*Looking up someone else’s system needs no link/);
    expect(componentsOf(prompt).map((c) => c.custom_id)).toContain(LINK_BUTTON_ID);

    await approveWithLoginLink(String(button?.url));
    const linked = await handle.waitForResponse((r) => r.kind === 'edit' && String(r.body.content).startsWith('Linked!'), 20_000);
    expect(linked.body.content).toBe(
      'Linked! Your Discord account now uses the system **My system**. Everything in it is private for now: others see only “A private system”. `/system privacy all:public` shows it to everyone, or choose field by field.',
    );
    const own = await slash('system', 'show', [], OWNER);
    expect(embedsOf(own)[0]?.title).toBe('My system');
    expect(field(embedsOf(own)[0], 'Privacy')).toMatch(/^Everything is private: others see only “A private system”\. Show it with `\/system privacy all:public`/);
  }, 30_000);

  it('tells the owner a new alter is private, with the one step that shows it', async () => {
    await slash('system', 'edit', [str('name', 'Secret crew'), str('description', 'We keep to ourselves.')], OWNER);
    const response = await slash('alter', 'create', [str('username', 'ash'), str('display-name', 'Ash'), str('pronouns', 'they/them'), str('description', 'The quiet one.')], OWNER);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.body.content).toBe('Created **Ash (@ash)**. Only you can see it for now: `/alter privacy alter:ash all:public` shows it to others.');
    const privacy = field(embedsOf(response)[0], 'Privacy');
    expect(privacy).toMatch(/^Private: others see nothing of this alter, not even that it exists\./);
    expect(privacy).toMatch(/Your system hides its alter list, so others see none of your alters: `\/system privacy alters:public`\./);
  });

  it('shows a moderator who never linked that a private system is private, and nothing of it', async () => {
    const menu = await viewSystem(OWNER, MODERATOR);
    expect(menu.body.flags).toBe(MessageFlags.Ephemeral);
    expect(componentsOf(menu)).toEqual([]); // no link prompt
    const embeds = embedsOf(menu);
    expect(embeds).toHaveLength(1);
    expect(embeds[0]).toMatchObject({ title: 'A private system', description: 'This system keeps its profile private.' });
    expect(field(embeds[0], 'Alters')).toBe('private');
    expect(field(embeds[0], 'Privacy')).toBeUndefined();
    const slashShow = await lookUp('show', []);
    expect(embedsOf(slashShow)[0]?.title).toBe('A private system');
    const list = await lookUp('list', []);
    expect(list.body.flags).toBe(MessageFlags.Ephemeral);
    expect(list.body.content).toBe('This system does not show its alters.');
    for (const answer of [menu, slashShow, list]) expect(JSON.stringify(answer.body)).not.toMatch(/Secret crew|ourselves|Ash|ash|they\/them/);
    // A linked viewer who is not the owner sees no more.
    expect(embedsOf(await viewSystem(OWNER, FRIEND))[0]?.title).toBe('A private system');
    expect(await h.bot.context.accounts.isLinked(MODERATOR.id)).toBe(false);
  });

  it('lets the owner make the profile public in one step, and the moderator then sees it', async () => {
    const response = await slash('system', 'privacy', [str('all', 'public')], OWNER);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.body.content).toBe('Privacy saved: the profile below says what others see.\n1 of your alters is private (each has its own settings): `/alter privacy alter:ash all:public`.');
    expect(field(embedsOf(response)[0], 'Privacy')).toMatch(/^Everything is public\./);

    const afterSystem = embedsOf(await viewSystem(OWNER, MODERATOR));
    expect(afterSystem[0]).toMatchObject({ title: 'Secret crew', description: 'We keep to ourselves.' });
    expect(field(afterSystem[0], 'Alters')).toBe('0');
    expect(afterSystem[1]?.description).toBe('No alters yet.');

    const alter = await slash('alter', 'privacy', [str('alter', 'ash'), str('all', 'public')], OWNER);
    expect(alter.body.content).toBe('Privacy of **Ash (@ash)** saved: the card below says what others see.');
    expect(field(embedsOf(alter)[0], 'Privacy')).toBe('Others see everything.\nChange with `/alter privacy alter:ash`.');

    const afterAlter = embedsOf(await viewSystem(OWNER, MODERATOR));
    expect(field(afterAlter[0], 'Alters')).toBe('1');
    expect(afterAlter[1]?.description).toContain('Ash (@ash) · they/them');
    const list = await lookUp('list', []);
    expect(embedsOf(list)[0]).toMatchObject({ title: 'Alters of owner' });
    expect(embedsOf(list)[0]?.description).toContain('Ash (@ash)');
    // The moderator's autocomplete offers the owner's alter too.
    const choices = await h.run(
      h.fake.autocomplete({ name: 'alter', subcommand: 'show', user: MODERATOR, options: [{ type: 3, name: 'alter', value: 'as', focused: true }, userOption(OWNER)] }),
      (r) => r.callbackType === 8,
    );
    expect((choices.response.body.choices as Array<{ name: string }>).map((c) => c.name)).toEqual(['Ash (@ash)']);
  });

  it('shows proxy tags, the message count and last message on member cards, and the front on the system card', async () => {
    await slash('proxy', 'tag-add', [str('alter', 'ash'), str('prefix', '[a]')], OWNER);
    h.fake.addMember({ user: OWNER });
    const before = h.fake.webhookExecutions().length;
    h.fake.sendUserMessage({ author: OWNER, channelId: h.fake.channelId, content: '[a] hello' });
    const { api, accounts } = h.bot.context;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [ash] = await accounts.withToken(OWNER.id, (token) => api.listAlters(token, '@me', { skip: 0, max: 1 }));
      if (ash?.messageCount === 1) break;
      if (Date.now() > deadline) throw new Error('the proxied message was not recorded');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(h.fake.webhookExecutions().length).toBeGreaterThan(before);
    await slash('front', 'set', [str('alter', 'ash')], OWNER);

    const card = embedsOf(await showAlter('ash'))[0];
    expect(card?.title).toBe('Ash (@ash)');
    expect(field(card, 'Messages')).toMatch(/^1 · last <t:\d+:R>$/);
    expect(field(card, 'Proxy tags')).toBe('`[a]text`');
    expect(field(card, 'Pronouns')).toBe('they/them');
    expect(field(card, 'Privacy')).toBeUndefined(); // the owner's alone

    const system = embedsOf(await lookUp('show', []))[0];
    expect(field(system, 'Fronting')).toMatch(/^Ash \(@ash\) · since <t:\d+:R>$/);
    // The owner's own card shows the same, with what others see.
    const own = embedsOf(await slash('alter', 'show', [str('alter', 'ash')], OWNER))[0];
    expect(field(own, 'Privacy')).toBe('Others see everything.\nChange with `/alter privacy alter:ash`.');
  });

  it('pages another member’s public alters for a moderator who never linked', async () => {
    const { api, accounts } = h.bot.context;
    await accounts.withToken(OWNER.id, async (token) => {
      for (let i = 0; i < 10; i++) await api.createAlter(token, { username: `pine${i}`, displayName: `Pine ${i}`, public: 1 | 2 | 512 });
    });
    const { handle, response } = await h.run(
      h.fake.slashCommand({ name: 'alter', subcommand: 'list', user: MODERATOR, options: [userOption(OWNER)], resolved: resolvedUsers([OWNER]) }),
      isAnswer,
    );
    expect(String(embedsOf(response)[0]?.description).split('\n')).toHaveLength(10);
    const next = componentsOf(response)[1];
    expect(next?.disabled).toBe(false);
    const message = handle.latestMessage();
    if (!message) throw new Error('no message');
    const page2 = await h.run(h.fake.button({ customId: String(next?.custom_id), user: MODERATOR, message }), (r) => r.callbackType === 7);
    expect(String(embedsOf(page2.response)[0]?.description)).toMatch(/^`\d+` Pine 9 \(@pine9\)$/);
    expect(await accounts.isLinked(MODERATOR.id)).toBe(false);
  });

  it('hides again what the owner makes private, field by field', async () => {
    const system = await slash('system', 'privacy', [str('description', 'private')], OWNER);
    expect(field(embedsOf(system)[0], 'Privacy')).toBe(
      // `all: public` above showed the other Discord accounts too (all means all; their default is private).
      'Others see: name, display tag, pronouns, avatar and color, banner, alter list and who is fronting, tags, other Discord accounts.\nOnly you see: description.\nChange with `/system privacy`.',
    );
    const alter = await slash('alter', 'privacy', [str('alter', 'ash'), str('messages', 'private'), str('proxy-tags', 'private')], OWNER);
    expect(field(embedsOf(alter)[0], 'Privacy')).toMatch(/^Others see: display name, username, description, pronouns, avatar and color, banner, tags, birthday\.\nOnly you see: proxy tags, message count and last message\./);

    const seen = embedsOf(await lookUp('show', []))[0];
    expect(seen?.title).toBe('Secret crew');
    expect(seen?.description).toBeUndefined();
    const card = embedsOf(await showAlter('ash'))[0];
    expect(fieldsOf(card).map((f) => f.name)).not.toEqual(expect.arrayContaining(['Messages']));
    expect(fieldsOf(card).map((f) => f.name)).not.toContain('Proxy tags');
    expect(JSON.stringify(card)).not.toContain('[a]');

    // Everything private again in one step: the moderator is back to "A private system".
    await slash('system', 'privacy', [str('all', 'private')], OWNER);
    expect(embedsOf(await viewSystem(OWNER, MODERATOR))[0]?.title).toBe('A private system');
    // The owner still sees everything of their own, and what others see.
    const own = embedsOf(await viewSystem(OWNER, OWNER));
    expect(own[0]?.title).toBe('Secret crew');
    expect(field(own[0], 'Privacy')).toMatch(/^Everything is private/);
    expect(own[1]?.description).toContain('Ash (@ash)');
  });

  it('says plainly that someone who never signed in has no system', async () => {
    const response = await viewSystem(STRANGER, MODERATOR);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(response.body.content).toBe('This user has no system (they have never signed in).');
  });

  it('names the options the user typed in full sentences, not the API’s fields', async () => {
    const create = await slash('alter', 'create', [str('username', 'two words'), str('display-name', 'Two'), str('color', 'orange'), str('avatar', 'not a link')], OWNER);
    expect(create.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(create.body.content).split('\n')).toEqual([
      'The username must not contain spaces, @, \\ or /.',
      'The color must be a color written like #a1b2c3 (a # and six digits or letters a–f).',
      'The avatar must be a link starting with https:// (or http://).',
    ]);
    const edit = await slash('system', 'edit', [str('avatar', 'ftp://files.example/me.png')], OWNER);
    expect(edit.body.content).toBe('The avatar must be a link starting with https:// (or http://).');
    const banner = await slash('alter', 'edit', [str('alter', 'ash'), str('banner', 'javascript:alert(1)')], OWNER);
    expect(banner.body.content).toBe('The banner must be a link starting with https:// (or http://).');
    const duplicate = await slash('alter', 'create', [str('username', 'ASH'), str('display-name', 'Other')], OWNER);
    expect(duplicate.body.content).toMatch(/^The system already has an alter with this username \(.*\)\.$/);
    for (const answer of [create, edit, banner]) expect(String(answer.body.content)).not.toMatch(/avatarUrl|systemAvatar|displayName/);
  });

  it('reads as the bot with one cached client token, renewed once when the service stops taking it, never for one’s own data', async () => {
    const proxy = await startTokenProxy(h.server.address);
    try {
      const api = createApiClient({ baseUrl: proxy.url, clientId: BOT_CLIENT_ID, clientSecret: loadBotClientSecret(h.server.config), timeoutMs: 10_000 });
      const tokenRequests = () => proxy.log.filter((entry) => entry.path === TOKEN_PATH).length;
      const systems = await Promise.all(Array.from({ length: 5 }, () => api.withClientToken((token) => api.getSystem(token, OWNER.id))));
      expect(systems.map((system) => system.systemName)).toEqual(Array(5).fill(null)); // all private again
      const token = await api.withClientToken(async (value) => value);
      expect(tokenRequests()).toBe(1);
      await api.revoke(token, 'access_token');
      expect((await api.withClientToken((value) => api.getSystem(value, OWNER.id))).associatedUserId).toBe(OWNER.id);
      expect(tokenRequests()).toBe(2);
      await expect(api.withClientToken((value) => api.getSystem(value, '@me'))).rejects.toMatchObject({ type: 'user-token-required' });
    } finally {
      await proxy.close();
    }
  });

  it('says the bot is misconfigured when its client may not read as itself (registered by hand without the scopes)', async () => {
    const old = await createTestClient(h.server, { name: 'Bot registered for message info only', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['messages:read'] });
    const api = createApiClient({ baseUrl: h.server.url, clientId: old.id, clientSecret: old.secret ?? '', timeoutMs: 10_000 });
    const refused = await api.withClientToken((token) => api.getSystem(token, OWNER.id)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ kind: 'misconfigured', message: CLIENT_MISCONFIGURED_MESSAGE });
    expect(CLIENT_MISCONFIGURED_MESSAGE).toContain('alters:read system:read messages:read');
  });
});
