// Privacy in words: options become the origin's bitmasks and masks become "Others see / Only you see".
import { describe, expect, it } from 'vitest';
import { ALTER_PRIVACY, SYSTEM_PRIVACY, alterPrivacyText, chosenPrivacy, privacySplit, systemPrivacyText } from '../../src/bot/privacy-settings.js';
import { ALTER_PRIVACY_MASK, AlterPrivacy, SYSTEM_PRIVACY_MASK, SystemPrivacy } from '../../src/domain/privacy-bits.js';

const choices = (given: Record<string, string>) => (option: string) => given[option] ?? null;

describe('chosenPrivacy', () => {
  const cases: Array<[string, Record<string, string>, number, number | undefined]> = [
    ['no option: nothing to change', {}, 5, undefined],
    ['all:public shows every part', { all: 'public' }, 0, SYSTEM_PRIVACY_MASK],
    ['all:private hides every part', { all: 'private' }, SYSTEM_PRIVACY_MASK, 0],
    ['one option changes one bit, keeping the rest', { description: 'public' }, SystemPrivacy.name, SystemPrivacy.name | SystemPrivacy.description],
    ['private clears a bit', { name: 'private' }, SystemPrivacy.name | SystemPrivacy.alters, SystemPrivacy.alters],
    ['named options apply on top of all', { all: 'public', description: 'private' }, 0, SYSTEM_PRIVACY_MASK & ~SystemPrivacy.description],
    ['a hyphenated option', { 'display-tag': 'public' }, 0, SystemPrivacy.displayTag],
  ];
  it.each(cases)('%s', (_name, given, current, expected) => {
    expect(chosenPrivacy(choices(given), SYSTEM_PRIVACY, current)).toBe(expected);
  });

  it('covers every bit of each kind with exactly one option', () => {
    for (const [kind, mask] of [[SYSTEM_PRIVACY, SYSTEM_PRIVACY_MASK], [ALTER_PRIVACY, ALTER_PRIVACY_MASK]] as const) {
      const bits = kind.settings.map((setting) => setting.bit);
      expect(new Set(bits).size).toBe(bits.length);
      expect(bits.reduce((all, bit) => all | bit, 0)).toBe(mask);
      for (const setting of kind.settings) expect(setting.description.length).toBeLessThanOrEqual(100);
    }
  });
});

describe('summaries', () => {
  it('splits a mask into what others see and what only the owner sees', () => {
    expect(privacySplit(SystemPrivacy.name | SystemPrivacy.pronouns, SYSTEM_PRIVACY)).toEqual({
      shown: ['name', 'pronouns'],
      hidden: ['display tag', 'description', 'avatar and color', 'banner', 'alter list and who is fronting', 'tags', 'other Discord accounts'],
    });
  });

  it('says how to change a system’s privacy in each state', () => {
    expect(systemPrivacyText(0)).toMatch(/Everything is private: others see only “A private system”.*\/system privacy all:public/);
    expect(systemPrivacyText(SYSTEM_PRIVACY_MASK)).toMatch(/^Everything is public/);
    expect(systemPrivacyText(SystemPrivacy.name)).toBe('Others see: name.\nOnly you see: display tag, description, pronouns, avatar and color, banner, alter list and who is fronting, tags, other Discord accounts.\nChange with `/system privacy`.');
  });

  it('says an unlisted alter shows nothing, and warns when the system hides every alter', () => {
    expect(alterPrivacyText(AlterPrivacy.name, 'ash')).toMatch(/^Private: others see nothing of this alter.*`\/alter privacy alter:ash all:public`/);
    expect(alterPrivacyText(AlterPrivacy.visible | AlterPrivacy.name, 'ash', true)).toMatch(/^Others see: display name\.\nOnly you see: username, .*message count and last message, birthday\.\nChange with `\/alter privacy alter:ash`\.$/);
    expect(alterPrivacyText(ALTER_PRIVACY_MASK, 'ash', false)).toMatch(/^Others see everything\.\n.*\nYour system hides its alter list.*\/system privacy alters:public/);
  });
});
