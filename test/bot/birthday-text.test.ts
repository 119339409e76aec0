// How the owner's cards word a birthday (src/bot/embeds.ts): with its year, or without one.
import { describe, expect, it } from 'vitest';
import { birthdayText } from '../../src/bot/embeds.js';

describe('birthdayText', () => {
  it.each([
    ['1996-07-21', 'July 21, 1996'],
    ['--07-21', 'July 21'],
    ['--02-29', 'February 29'],
    ['2024-02-29', 'February 29, 2024'],
    ['0004-12-31', 'December 31, 4'],
  ])('%s reads as %s', (birthday, text) => {
    expect(birthdayText(birthday)).toBe(text);
  });
});
