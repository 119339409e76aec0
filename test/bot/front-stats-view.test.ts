// How /front stats words its numbers: durations (the largest unit and the next when not 0) and bars.
import { describe, expect, it } from 'vitest';
import { bar, duration } from '../../src/bot/front-stats-view.js';

describe('front statistics wording', () => {
  it.each([
    [0, '0s'],
    [0.4, '0s'],
    [45, '45s'],
    [60, '1m'],
    [320, '5m 20s'],
    [7200, '2h'],
    [7201, '2h'],
    [7260, '2h 1m'],
    [86_400 * 3 + 3600 * 4 + 59, '3d 4h'],
  ])('%s seconds: %s', (seconds, expected) => {
    expect(duration(seconds)).toBe(expected);
  });

  it.each([
    [0, '░░░░░░░░░░░░'],
    [0.001, '█░░░░░░░░░░░'],
    [0.5, '██████░░░░░░'],
    [1, '████████████'],
  ])('share %s: %s', (share, expected) => {
    expect(bar(share)).toBe(expected);
  });
});
