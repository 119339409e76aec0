// One budget for the embeds of a message (fitEmbeds): each part within its limit, 10 embeds, 25
// fields, image URLs Discord refuses dropped, and 6,000 characters in all, cut by grapheme.
import { EmbedBuilder, type APIEmbed } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { EMBED_LIMITS, alterListEmbed, fitEmbeds, systemEmbed } from '../../src/bot/embeds.js';
import { clampGraphemes, shortenGraphemes } from '../../src/domain/proxy/text.js';
import type { System } from '../../src/domain/system.js';
import { viewAlter, type Viewer } from '../../src/domain/privacy.js';
import { anAlter } from '../support/fixtures.js';

/** What Discord counts toward a message's 6,000: titles, descriptions, field names and values, footers, author names. */
const totalOf = (embeds: APIEmbed[]) =>
  embeds.reduce(
    (sum, e) => sum + [e.title, e.description, e.footer?.text, e.author?.name, ...(e.fields ?? []).flatMap((f) => [f.name, f.value])].reduce((n, t) => n + [...(t ?? '')].length, 0),
    0,
  );
const splitsGrapheme = (text: string) => /[\ud800-\udbff]$|\u200d$/.test(text.replace(/…$/, ''));

describe('fitEmbeds', () => {
  it('leaves embeds within the limits as they are', () => {
    const embed = new EmbedBuilder().setTitle('t').setDescription('d').addFields({ name: 'n', value: 'v' }).setThumbnail('https://cdn.example/a.png');
    expect(fitEmbeds([embed])).toEqual([embed.toJSON()]);
  });

  it('brings two long embeds within 6,000 characters, the longest texts cut first', () => {
    const a: APIEmbed = { title: 'System', description: '🏳️‍🌈'.repeat(800), fields: [{ name: 'Pronouns', value: 'they/them' }] };
    const b: APIEmbed = { title: 'Alters', description: 'x'.repeat(4000) };
    const fitted = fitEmbeds([a, b]);
    expect(totalOf(fitted)).toBeLessThanOrEqual(EMBED_LIMITS.total);
    expect(fitted[0]?.title).toBe('System');
    expect(fitted[0]?.fields?.[0]?.value).toBe('they/them');
    expect(fitted[0]?.description?.endsWith('…')).toBe(true);
    expect(fitted[1]?.description?.endsWith('…')).toBe(true);
    expect(splitsGrapheme(fitted[0]?.description ?? '')).toBe(false);
    expect(fitted[0]?.description?.replace(/…$/, '').replaceAll('🏳️‍🌈', '')).toBe('');
    expect(a.description).toBe('🏳️‍🌈'.repeat(800)); // the caller's embeds are not changed
  });

  it('keeps to the count limits and each part’s own limit', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ title: `${i}`.repeat(300), fields: Array.from({ length: 30 }, () => ({ name: 'n', value: 'v'.repeat(2000) })) }));
    const fitted = fitEmbeds(many);
    expect(fitted).toHaveLength(EMBED_LIMITS.embeds);
    for (const embed of fitted) {
      expect(embed.title?.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
      expect(embed.fields).toHaveLength(EMBED_LIMITS.fields);
      for (const field of embed.fields ?? []) expect(field.value.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldValue);
    }
    expect(totalOf(fitted)).toBeLessThanOrEqual(EMBED_LIMITS.total);
  });

  it.each([
    ['a space is encoded', 'https://cdn.example/my pic.png', 'https://cdn.example/my%20pic.png'],
    ['an uploaded file stays', 'attachment://avatar.png', 'attachment://avatar.png'],
    ['credentials are dropped', 'https://u:p@cdn.example/a.png', undefined],
    ['not http is dropped', 'ftp://cdn.example/a.png', undefined],
  ])('image URLs: %s', (_name, url, expected) => {
    const [fitted] = fitEmbeds([{ title: 't', thumbnail: { url }, image: { url }, author: { name: 'a', icon_url: url }, footer: { text: 'f', icon_url: url } }]);
    expect(fitted?.thumbnail?.url).toBe(expected);
    expect(fitted?.image?.url).toBe(expected);
    expect(fitted?.author?.icon_url).toBe(expected);
    expect(fitted?.footer?.icon_url).toBe(expected);
  });

  it('"View system" of a large public system fits one message', () => {
    const system: System = {
      associatedUserId: '200000000000000001',
      systemName: 'N'.repeat(100),
      systemDisplayTag: null,
      displayTagMap: {},
      systemDescription: 'd'.repeat(4000),
      systemAvatar: null,
      systemBanner: null,
      systemPronouns: 'p'.repeat(100),
      nicknameFormat: null,
      alterIds: [1],
      tagIds: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      systemAutoproxy: [],
      systemOperationDM: null,
      latchExpiration: null,
      public: 0xff,
      flags: null,
      disabledGuilds: [],
      subAccounts: [],
      disabled: false,
      redacted: [],
      systemColor: null,
      systemTimezone: null,
    };
    const owner: Viewer = { userId: '200000000000000001', clientId: 'bot', systemId: 7, scopes: new Set(['alters:read']) };
    const alters = Array.from({ length: 25 }, (_, i) => viewAlter(anAlter({ id: i + 1, displayName: 'A'.repeat(100), username: `u${i}`.padEnd(32, 'u'), pronouns: 'p'.repeat(100) }), { id: 7, public: 0 }, owner)).filter((alter) => alter !== undefined);
    expect(alters).toHaveLength(25);
    const embeds = [systemEmbed(system), alterListEmbed(alters, 'Alters of someone', { skip: 0, hasMore: true })];
    expect(totalOf(embeds.map((e) => e.toJSON()))).toBeGreaterThan(EMBED_LIMITS.total); // what was sent before
    expect(totalOf(fitEmbeds(embeds))).toBeLessThanOrEqual(EMBED_LIMITS.total);
  });
});

describe('cutting by grapheme', () => {
  it.each([
    ['short text stays', 'hello', 5, 'hello'],
    ['ASCII', 'hello!', 5, 'hell…'],
    ['never half a surrogate pair', 'ab😀😀', 4, 'ab…'],
    ['never half a ZWJ sequence', 'a👩🏽‍🚀b', 6, 'a…'],
    ['never half a flag', 'a🇳🇿🇳🇿', 7, 'a🇳🇿…'],
    ['a combining accent stays with its letter', 'cafe\u0301!', 5, 'caf…'],
    ['trailing space before the mark dropped', 'ab cd', 4, 'ab…'],
  ])('shortenGraphemes: %s', (_name, text, max, expected) => {
    const result = shortenGraphemes(text, max);
    expect(result).toBe(expected);
    expect(result.length).toBeLessThanOrEqual(max);
  });

  it.each([
    ['within the limit', 'abc', 3, 'abc'],
    ['an emoji that would be split is left out', 'ab😀', 3, 'ab'],
    ['a family is kept whole or not at all', '👨‍👩‍👧x', 5, ''],
  ])('clampGraphemes: %s', (_name, text, max, expected) => {
    expect(clampGraphemes(text, max)).toBe(expected);
  });
});
