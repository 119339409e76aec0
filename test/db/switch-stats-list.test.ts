// What switchesForStats reads a period as: `<time> <id> <list>` entries in one string, parsed by
// hand for speed, so the parser gets a table of its own (switch-outs, co-fronts, negative times,
// an order the database did not keep).
import { describe, expect, it } from 'vitest';
import { parseStatsList } from '../../src/db/repositories/front-days.js';

describe('parseStatsList', () => {
  it.each([
    ['nothing', '', [], true],
    ['one switch of one alter', '1000 7 12', [{ at: 1000, id: 7, alterIds: [12] }], true],
    ['a switch-out', '1000 7 ', [{ at: 1000, id: 7, alterIds: [] }], true],
    [
      'several, co-fronting in order',
      '1000 7 12,3,45;2000 8 ;3000 9 3',
      [
        { at: 1000, id: 7, alterIds: [12, 3, 45] },
        { at: 2000, id: 8, alterIds: [] },
        { at: 3000, id: 9, alterIds: [3] },
      ],
      true,
    ],
    ['a time before 1970', '-86400000 2 1', [{ at: -86_400_000, id: 2, alterIds: [1] }], true],
    [
      'out of order (told, not fixed here)',
      '2000 8 1;1000 9 2',
      [
        { at: 2000, id: 8, alterIds: [1] },
        { at: 1000, id: 9, alterIds: [2] },
      ],
      false,
    ],
    [
      'one time, ids out of order',
      '1000 9 1;1000 8 2',
      [
        { at: 1000, id: 9, alterIds: [1] },
        { at: 1000, id: 8, alterIds: [2] },
      ],
      false,
    ],
  ])('%s', (_name, list, entries, ordered) => {
    expect(parseStatsList(list)).toEqual({ entries, ordered });
  });
});
