// The service's errors in a command's words: table-driven over real error bodies of the service.
import { describe, expect, it } from 'vitest';
import { fieldWordsOf, problemSentence, problemSentences } from '../../src/bot/error-wording.js';
import { IMAGE_URL_RULE } from '../../src/domain/image-url.js';

const ALTER_WORDS = { ...fieldWordsOf([['avatar', 'avatarUrl'], ['display-name', 'displayName'], ['color', 'color']] as const), 'proxyTags.prefix': 'prefix' };

describe('problemSentence', () => {
  const cases: Array<[string, { type: string; friendly: string; field?: string }, string]> = [
    ['an API field becomes the option typed, in plainer words', { type: 'validation', friendly: `avatarUrl: ${IMAGE_URL_RULE}`, field: 'avatarUrl' }, 'The avatar must be a link starting with https:// (or http://).'],
    ['a hyphenated option reads as words', { type: 'validation', friendly: 'displayName: must be at most 100 characters', field: 'displayName' }, 'The display name must be at most 100 characters.'],
    ['a list position is looked through', { type: 'validation', friendly: 'proxyTags.0.prefix: must be at most 100 characters', field: 'proxyTags.0.prefix' }, 'The prefix must be at most 100 characters.'],
    ['a field without an option is spoken, not camel-cased', { type: 'validation', friendly: `webhookAvatarUrl: ${IMAGE_URL_RULE}`, field: 'webhookAvatarUrl' }, 'The webhook avatar URL must be a link starting with https:// (or http://).'],
    ['a message that is a sentence of its own stays one', { type: 'validation', friendly: 'proxyTags.1: a proxy tag needs a prefix or a suffix', field: 'proxyTags.1' }, 'A proxy tag needs a prefix or a suffix.'],
    ['a message without the field prefix is capitalised and ended', { type: 'duplicate', friendly: 'the system already has an alter with this username', field: 'username' }, 'The system already has an alter with this username.'],
    ['an error without a field', { type: 'alters-private', friendly: 'this system does not show its alters' }, 'This system does not show its alters.'],
    ['a sentence already ended keeps its end', { type: 'no-system', friendly: 'No system here!' }, 'No system here!'],
  ];
  it.each(cases)('%s', (_name, problem, expected) => {
    expect(problemSentence(problem, ALTER_WORDS)).toBe(expected);
  });
});

describe('problemSentences', () => {
  it('gives one line per problem, and says how many more there were', () => {
    const problems = Array.from({ length: 7 }, () => ({ type: 'validation', friendly: 'color: must be a color like #a1b2c3', field: 'color' }));
    const lines = problemSentences(problems, ALTER_WORDS).split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe('The color must be a color written like #a1b2c3 (a # and six digits or letters a–f).');
    expect(lines[5]).toBe('(and 2 more)');
  });
});
