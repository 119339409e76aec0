// `{user}` as the bot spells it: @me for one's own system, the owner's id for anyone else's, and
// the reverse for page buttons that carry the owner's id.
import { describe, expect, it } from 'vitest';
import { ownerOf, targetFor } from '../../src/bot/target.js';

const VIEWER = '100000000000000001';
const OTHER = '100000000000000002';

describe('targetFor', () => {
  it.each([
    ['no owner chosen', undefined, '@me'],
    ['an empty option', '', '@me'],
    ['a null option', null, '@me'],
    ['oneself chosen', VIEWER, '@me'],
    ['someone else chosen', OTHER, OTHER],
  ])('%s', (_case, owner, expected) => {
    expect(targetFor(VIEWER, owner)).toBe(expected);
  });
});

describe('ownerOf', () => {
  it.each([
    ['@me is the viewer', '@me', VIEWER],
    ['an id is that user', OTHER, OTHER],
  ])('%s', (_case, target, expected) => {
    expect(ownerOf(target, VIEWER)).toBe(expected);
  });

  it('undoes targetFor for every owner', () => {
    for (const owner of [VIEWER, OTHER]) expect(ownerOf(targetFor(VIEWER, owner), VIEWER)).toBe(owner);
  });
});
