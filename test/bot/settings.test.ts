// Settings from the bot, in words: /system settings (every setting in one card; proxying on or off,
// proxy tags kept, case, pronouns in names, the latch timeout, the nickname format), /system server
// (the display tag and proxying in one server), /alter edit's proxy avatar and mode, and /alter
// server (an alter's name and avatar in one server), and images given as files or as Discord
// attachment links, copied to the service's image host. What the service stores is read back
// through the API after each command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/bot/settings/durations.js';
import type { Alter } from '../../src/domain/alter.js';
import { SystemFlags } from '../../src/domain/privacy-bits.js';
import type { System } from '../../src/domain/system.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import sharp from 'sharp';
import { resolvedAttachments, user, type RecordedResponse } from '../support/fake-discord.js';

const OWNER = user('400000000000000801', 'owner');

type Json = Record<string, unknown>;
type Field = { name: string; value: string };
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const embedsOf = (response: RecordedResponse) => (response.body.embeds ?? []) as Array<Json & { fields?: Field[] }>;
const fieldOf = (response: RecordedResponse, name: string) => embedsOf(response)[0]?.fields?.find((field) => field.name === name)?.value;
const string = (name: string, value: string, focused?: boolean) => ({ type: 3, name, value, ...(focused ? { focused } : {}) });
const boolean = (name: string, value: boolean) => ({ type: 5, name, value });

describe('durations in words', () => {
  const cases: Array<[string, number | undefined]> = [
    ['6h', 6 * 3_600_000],
    ['90m', 90 * 60_000],
    ['1h 30m', 90 * 60_000],
    ['1 hour, 30 minutes', 90 * 60_000],
    ['45 seconds', 45_000],
    ['never', 0],
    ['off', 0],
    ['0', 0],
    ['', undefined],
    ['soon', undefined],
    ['6x', undefined],
    ['2h5', undefined],
    ['30m 1h', undefined],
  ];
  it.each(cases)('%j → %s', (typed, ms) => expect(parseDuration(typed)).toBe(ms));

  it('reads back as it is typed', () => {
    expect(formatDuration(6 * 3_600_000)).toBe('6 hours');
    expect(formatDuration(90 * 60_000)).toBe('1 hour 30 minutes');
    expect(formatDuration(1000)).toBe('1 second');
    expect(formatDuration(0)).toBe('never');
  });
});

describe('settings from the bot', () => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness();
    await h.link(OWNER.id);
  });
  afterAll(async () => h?.stop());

  const slash = (name: string, subcommand: string, options: Json[] = []) => h.run(h.fake.slashCommand({ name, subcommand, user: OWNER, options }), isAnswer);
  const stored = () => h.bot.context.accounts.withToken(OWNER.id, (token) => h.bot.context.api.getSystem(token, '@me')) as Promise<System>;
  const storedAlter = async (alterId: number) =>
    (await h.bot.context.accounts.withToken(OWNER.id, (token) => h.bot.context.api.getAlter(token, '@me', alterId))).data as Alter;

  it('shows every setting in one card, then changes the ones given and shows them back', async () => {
    const shown = await slash('system', 'settings');
    expect(embedsOf(shown.response)[0]?.title).toBe('Your settings');
    expect(fieldOf(shown.response, 'Proxying')).toBe('on');
    expect(fieldOf(shown.response, 'Proxy tags in messages')).toBe('removed');
    expect(fieldOf(shown.response, 'Nickname format')).toBe('`@%username%`');

    const changed = await slash('system', 'settings', [
      boolean('keep-proxy-tags', true),
      boolean('case-insensitive-tags', true),
      string('latch-timeout', '1h 30m'),
      string('nickname-format', '%display% (%username%)'),
      boolean('proxying', false),
    ]);
    expect(changed.response.body.content).toBe('Settings saved.');
    expect(fieldOf(changed.response, 'Proxying')).toBe('off everywhere');
    expect(fieldOf(changed.response, 'Proxy tags in messages')).toBe('kept');
    expect(fieldOf(changed.response, 'Proxy tag case')).toBe('ignored');
    expect(fieldOf(changed.response, 'Latch timeout')).toBe('1 hour 30 minutes');
    const system = await stored();
    expect(system).toMatchObject({ disabled: true, latchExpiration: 90 * 60_000, nicknameFormat: '%display% (%username%)' });
    expect(system.flags).toBe(SystemFlags.keepProxy | SystemFlags.tagsIgnoreCase);

    const zoned = await slash('system', 'settings', [string('timezone', 'Europe/Berlin')]);
    expect(fieldOf(zoned.response, 'Time zone')).toBe('Europe/Berlin');
    expect((await stored()).systemTimezone).toBe('Europe/Berlin');
    const badZone = await slash('system', 'settings', [string('timezone', 'Mars/Olympus')]);
    expect(badZone.response.body.content).toMatch(/timezone/);
    await slash('system', 'settings', [string('timezone', 'utc')]);
    expect((await stored()).systemTimezone).toBeNull();
    await slash('system', 'edit', [string('color', '#a1b2c3')]);
    expect((await stored()).systemColor).toBe('#a1b2c3');

    // One bit off leaves the others; `never` is 0.
    await slash('system', 'settings', [boolean('keep-proxy-tags', false), boolean('pronouns-in-name', true), string('latch-timeout', 'never'), boolean('proxying', true)]);
    expect(await stored()).toMatchObject({ flags: SystemFlags.tagsIgnoreCase | SystemFlags.showPronouns, latchExpiration: 0, disabled: false });
  });

  it('refuses a duration it cannot read, and one the service refuses, naming the option and changing nothing', async () => {
    const before = await stored();
    const unreadable = await slash('system', 'settings', [string('latch-timeout', 'soon'), boolean('keep-proxy-tags', true)]);
    expect(unreadable.response.body.content).toMatch(/“soon” is not a duration/);
    const tooLong = await slash('system', 'settings', [string('latch-timeout', '11h')]);
    expect(tooLong.response.body.content).toMatch(/A latch lasts at most 10 hours/);
    expect(await stored()).toEqual(before);
  });

  it('sets the display tag and proxying of the server it runs in, and clears them', async () => {
    const guild = h.fake.guild.id;
    const set = await slash('system', 'server', [string('display-tag', '[here]'), boolean('proxying', false)]);
    expect(set.response.body.content).toMatch(/^Saved\.\n\*\*.+\*\*\nDisplay tag: \[here\]\nProxying: off in this server$/);
    expect(await stored()).toMatchObject({ displayTagMap: { [guild]: '[here]' }, disabledGuilds: [guild] });

    const settings = await slash('system', 'settings');
    expect(fieldOf(settings.response, 'Display tag per server')).toMatch(/: \[here\]$/);
    expect(fieldOf(settings.response, 'Proxying off in')).toMatch(/^• /);

    await slash('system', 'server', [string('display-tag', '-'), boolean('proxying', true)]);
    expect(await stored()).toMatchObject({ displayTagMap: {}, disabledGuilds: [] });
    const named = await slash('system', 'server', [string('server', 'no such server')]);
    expect(named.response.body.content).toMatch(/No server called “no such server”/);
  });

  it('offers the server it runs in when a server is typed', async () => {
    const payload = h.fake.autocomplete({ name: 'system', subcommand: 'server', user: OWNER, options: [string('server', '', true)] });
    const { response } = await h.run(payload, (r) => r.callbackType === 8);
    const choices = response.body.choices as Array<{ name: string; value: string }>;
    expect(choices[0]).toEqual({ name: expect.stringMatching(/ \(this server\)$/) as string, value: h.fake.guild.id });
  });

  it('sets an alter’s proxy avatar and mode, and its name and avatar in one server', async () => {
    await slash('alter', 'create', [string('username', 'ash'), string('display-name', 'Ash')]);
    const edited = await slash('alter', 'edit', [string('alter', 'ash'), string('proxy-avatar', 'https://images.example/ash-proxy.png'), string('proxy-mode', 'both')]);
    expect(fieldOf(edited.response, 'Proxying')).toMatch(/^Mode: both \(messages re-sent and nickname changed\)\nProxy avatar: https:\/\/images\.example\/ash-proxy\.png$/);
    const alterId = Number(/Alter (\d+)/.exec(String((embedsOf(edited.response)[0]?.footer as Json | undefined)?.text))?.[1]);
    expect(await storedAlter(alterId)).toMatchObject({ webhookAvatarUrl: 'https://images.example/ash-proxy.png', alterMode: 'both' });

    await slash('alter', 'edit', [string('alter', 'ash'), string('birthday', '--02-29'), boolean('autoproxy', false)]);
    expect(await storedAlter(alterId)).toMatchObject({ birthday: '--02-29', autoproxyEnabled: false });
    const badBirthday = await slash('alter', 'edit', [string('alter', 'ash'), string('birthday', '2023-02-29')]);
    expect(badBirthday.response.body.content).toMatch(/birthday/);

    const guild = h.fake.guild.id;
    const here = await slash('alter', 'server', [string('alter', 'ash'), string('name', 'Ash here'), string('avatar', 'https://images.example/ash-here.png')]);
    expect(here.response.body.content).toMatch(/^Saved\. \*\*Ash \(@ash\)\*\* in \*\*.+\*\*:\nName: Ash here\nAvatar: https:\/\/images\.example\/ash-here\.png$/);
    expect(await storedAlter(alterId)).toMatchObject({ nameMap: [{ server: guild, name: 'Ash here' }], avatarUrlMap: { [guild]: 'https://images.example/ash-here.png' } });

    const bad = await slash('alter', 'server', [string('alter', 'ash'), string('avatar', 'not a link')]);
    expect(bad.response.body.content).toMatch(/avatar/);
    await slash('alter', 'server', [string('alter', 'ash'), string('name', '-'), string('avatar', '-')]);
    expect(await storedAlter(alterId)).toMatchObject({ nameMap: [], avatarUrlMap: {} });
    await slash('alter', 'edit', [string('alter', 'ash'), string('proxy-avatar', '-')]);
    expect((await storedAlter(alterId)).webhookAvatarUrl).toBeNull();
  });

  it('copies an image given as a file, or as a Discord attachment link, to the service', async () => {
    const png = await sharp({ create: { width: 1500, height: 1500, channels: 3, background: '#884422' } }).png().toBuffer();
    const file = h.fake.uploadAttachment({ filename: 'avatar.png', data: png });
    const { response } = await h.run(
      h.fake.slashCommand({ name: 'alter', subcommand: 'create', user: OWNER, options: [string('username', 'birch'), string('display-name', 'Birch'), { type: 11, name: 'avatar-file', value: file.id }], resolved: resolvedAttachments([file]) }),
      isAnswer,
    );
    expect(response.body.content).toMatch(/The avatar was copied here/);
    const alterId = Number(/Alter (\d+)/.exec(String((embedsOf(response)[0]?.footer as Json | undefined)?.text))?.[1]);
    const hosted = (await storedAlter(alterId)).avatarUrl ?? '';
    expect(hosted).toMatch(new RegExp(`^${h.server.url}/images/[A-Za-z0-9_-]{43}\\.webp$`));
    expect(await sharp(Buffer.from(await (await fetch(hosted)).arrayBuffer())).metadata()).toMatchObject({ format: 'webp', width: 1024 });

    // A pasted attachment link (it would expire) is copied too; the banner keeps its purpose's size.
    const banner = h.fake.uploadAttachment({ filename: 'banner.png', data: png });
    const linked = await slash('alter', 'edit', [string('alter', 'birch'), string('banner', String(banner.url))]);
    expect(linked.response.body.content).toMatch(/The banner was copied here/);
    expect((await storedAlter(alterId)).banner).toMatch(/\/images\/[A-Za-z0-9_-]{43}\.webp$/);

    // Not an image: the service's refusal, in words, and nothing changes.
    const text = h.fake.uploadAttachment({ filename: 'notes.png', data: Buffer.from('not an image') });
    const refused = await h.run(
      h.fake.slashCommand({ name: 'system', subcommand: 'edit', user: OWNER, options: [{ type: 11, name: 'avatar-file', value: text.id }], resolved: resolvedAttachments([text]) }),
      isAnswer,
    );
    expect(refused.response.body.content).toMatch(/PNG, JPEG, WebP or GIF/);
    expect((await stored()).systemAvatar).toBeNull();
  });
});
