// The switch body's rules (one alter or a list, no repeats, at most 150) and what "the same
// switch" means, table-driven.
import { describe, expect, it } from 'vitest';
import { MAX_ALTERS_PER_SWITCH, PushFrontBody, requestedAlters, sameAlters } from '../../src/domain/front.js';

describe('PushFrontBody', () => {
  it.each([
    ['the origin’s form, a string', { alter: '7' }, [7]],
    ['one alter as a number', { alter: 7 }, [7]],
    ['a list, in order', { alters: ['3', 1, 2] }, [3, 1, 2]],
    ['an empty list (switch-out)', { alters: [] }, []],
    ['a list with a timestamp', { alters: [1], timestamp: '2026-01-02T03:04:05Z' }, [1]],
    ['the most alters a switch may have', { alters: Array.from({ length: MAX_ALTERS_PER_SWITCH }, (_, i) => i + 1) }, Array.from({ length: MAX_ALTERS_PER_SWITCH }, (_, i) => i + 1)],
  ])('takes %s', (_name, body, alters) => {
    const parsed = PushFrontBody.safeParse(body);
    expect(parsed.success).toBe(true);
    if (parsed.success) expect(requestedAlters(parsed.data)).toEqual(alters);
  });

  it.each([
    ['neither alter nor alters', {}, ['alters']],
    ['both', { alter: 1, alters: [1] }, ['alters']],
    ['a repeated alter, as number and string', { alters: [1, 2, '1'] }, ['alters.2']],
    ['a repeat further on', { alters: [1, 2, 3, 2, 1] }, ['alters.3', 'alters.4']],
    ['one alter too many', { alters: Array.from({ length: MAX_ALTERS_PER_SWITCH + 1 }, (_, i) => i + 1) }, ['alters']],
    ['a bad id in the list', { alters: [1, 'x'] }, ['alters.1']],
    ['a timestamp without an offset', { alter: 1, timestamp: '2026-01-02T03:04:05' }, ['timestamp']],
    ['an unknown key', { alter: 1, member: 2 }, ['']],
  ])('refuses %s, naming %j', (_name, body, paths) => {
    const parsed = PushFrontBody.safeParse(body);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error.issues.map((issue) => issue.path.join('.'))).toEqual(paths);
  });
});

describe('sameAlters', () => {
  it.each([
    [[], [], true],
    [[1], [1], true],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false], // the primary differs
    [[1], [1, 2], false],
    [[1, 2], [1], false],
    [[], [1], false],
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameAlters(a, b)).toBe(same);
  });
});
