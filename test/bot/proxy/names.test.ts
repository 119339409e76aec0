// Webhook names and nicknames: Discord's limits (80 and 32 characters), its banned words, and
// truncation that drops the least important part first and never cuts inside a grapheme.
import { describe, expect, it } from 'vitest';
import { nicknameFor } from '../../../src/bot/proxy/nickname.js';
import { MAX_WEBHOOK_NAME, shorten, webhookName } from '../../../src/bot/proxy/webhook-name.js';

const length = (text: string) => [...text].length;

describe('webhookName', () => {
  it.each([
    [{ name: 'Kestrel', fallback: 'k' }, 'Kestrel'],
    [{ name: 'Kestrel', displayTag: '| Flock', fallback: 'k' }, 'Kestrel | Flock'],
    [{ name: 'Kestrel', pronouns: 'she/her', displayTag: '| Flock', fallback: 'k' }, 'Kestrel (she/her) | Flock'],
    [{ name: '  ', fallback: 'kestrel' }, 'kestrel'],
    [{ name: 'K', fallback: 'k' }, 'K\u17b5'],
    [{ name: '\u200bK\u200b', fallback: 'k' }, 'K\u17b5'],
    [{ name: '\u200b', fallback: 'kestrel' }, 'kestrel'],
    [{ name: 'Discord Kid', displayTag: 'clyde', fallback: 'k' }, 'D\u200aiscord Kid c\u200alyde'],
    [{ name: 'xCLYDEx', fallback: 'k' }, 'xC\u200aLYDEx'],
    [{ name: 'Kes', pronouns: 'discord/her', fallback: 'k' }, 'Kes (d\u200aiscord/her)'],
    [{ name: 'Everyone', fallback: 'k' }, 'E\u200averyone'],
    [{ name: 'HERE', fallback: 'k' }, 'H\u200aERE'],
    [{ name: ' here ', fallback: 'k' }, 'h\u200aere'],
    [{ name: 'Everyone', displayTag: '| Flock', fallback: 'k' }, 'Everyone | Flock'],
    [{ name: 'Here we go', fallback: 'k' }, 'Here we go'],
    [{ name: 'Everyones', fallback: 'k' }, 'Everyones'],
  ])('%j → %j', (parts, expected) => {
    expect(webhookName(parts)).toBe(expected);
  });

  it('never gives a name Discord refuses (its rule as the fake Discord applies it)', () => {
    const refused = (value: string) => {
      const seen = value.replaceAll('\u200b', '').trim();
      return length(seen) < 1 || length(seen) > 80 || /clyde|discord/i.test(seen) || /^(?:everyone|here)$/i.test(seen);
    };
    const names = ['everyone', 'Here', 'clyde', 'Discord', 'discordclyde', 'c', '\u200beveryone\u200b', 'x'.repeat(200), '👩🏽‍🚀'.repeat(50), 'Clyde'.repeat(30)];
    for (const name of names) {
      for (const displayTag of [null, '', 'discord', '| Clyde'.repeat(20)]) {
        for (const pronouns of [null, 'here']) expect(refused(webhookName({ name, pronouns, displayTag, fallback: 'x' })), `${name} ${displayTag} ${pronouns}`).toBe(false);
      }
    }
  });

  it('drops the pronouns before shortening anything', () => {
    const name = 'N'.repeat(65); // 65 + 12 + 8 > 80, but 65 + 8 fits
    expect(webhookName({ name, pronouns: 'they/them', displayTag: '| Flock', fallback: 'n' })).toBe(`${name} | Flock`);
  });

  it('keeps the tag and shortens the name at a grapheme boundary, with an ellipsis', () => {
    const name = '👩🏽‍🚀'.repeat(40);
    const result = webhookName({ name, displayTag: '| Flock', fallback: 'n' });
    expect(length(result)).toBeLessThanOrEqual(MAX_WEBHOOK_NAME);
    expect(result.endsWith('… | Flock')).toBe(true);
    const kept = result.slice(0, result.indexOf('…'));
    expect(kept.replaceAll('👩🏽‍🚀', '')).toBe('');
  });

  it('shortens a tag that leaves no room, still within 80', () => {
    const result = webhookName({ name: 'Kestrel', displayTag: 'T'.repeat(100), fallback: 'k' });
    expect(length(result)).toBeLessThanOrEqual(MAX_WEBHOOK_NAME);
    expect(result.startsWith('Kestrel')).toBe(true);
  });

  it('shorten leaves short text alone', () => {
    expect(shorten('hello', 5)).toBe('hello');
    expect(shorten('hello!', 5)).toBe('hell…');
  });
});

describe('nicknameFor', () => {
  it.each([
    ['@%username%', { username: 'kestrel', displayName: 'Kestrel' }, '@kestrel'],
    ['%display% (Flock)', { username: 'kestrel', displayName: 'Kestrel' }, 'Kestrel (Flock)'],
    ['%display% $& %username%', { username: 'k$1', displayName: 'K' }, 'K $& k$1'],
    ['%display%', { username: 'k', displayName: 'A very long display name that goes on' }, 'A very long display name that g…'],
  ])('%s with %j → %s', (format, alter, expected) => {
    const nickname = nicknameFor(format, alter);
    expect(nickname).toBe(expected);
    expect(length(nickname)).toBeLessThanOrEqual(32);
  });
});
