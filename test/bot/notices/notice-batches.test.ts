// When the bot tells owners about other apps' changes (notice-batches.ts): an owner's events wait
// for a read that brings nothing new for them, at most a few reads. Each case is a sequence of
// reads, each read the owners whose events it brought; expected, the batches each read ends with.
import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../../src/bot/api-client.js';
import { NoticeBatches } from '../../../src/bot/notices/notice-batches.js';

const event = (userId: string, n: number): FeedEvent => ({
  type: 'alter.updated',
  timestamp: `2026-11-27T00:00:0${n}.000Z`,
  data: { userId, actor: { clientId: 'app', clientName: 'App', self: false } },
}) as unknown as FeedEvent;

/**
 * Reads as lists of owners (one event each); each ends with "owner:count" for every batch due.
 * `moved`: between reads the batches are kept as JSON and restored, as when the reader's role
 * moves to another process (operation-notices.ts).
 */
function play(maxHeldReads: number, reads: string[][], moved = false): string[][] {
  let batches = new NoticeBatches(maxHeldReads);
  let n = 0;
  return reads.map((owners) => {
    for (const owner of owners) batches.add(event(owner, n++));
    const due = batches.endRead().map(({ userId, events }) => `${userId}:${events.length}`);
    if (moved) batches = NoticeBatches.restore(maxHeldReads, JSON.parse(JSON.stringify(batches.snapshot())) as ReturnType<NoticeBatches['snapshot']>);
    return due;
  });
}

describe('NoticeBatches', () => {
  it.each<[string, number, string[][], string[][]]>([
    ['nothing read, nothing due', 3, [[], []], [[], []]],
    ['one change: due after the next, quiet read', 3, [['a'], []], [[], ['a:1']]],
    ['a burst across two reads is one batch', 3, [['a', 'a'], ['a'], []], [[], [], ['a:3']]],
    ['owners wait apart from each other', 3, [['a'], ['b'], [], []], [[], ['a:1'], ['b:1'], []]],
    ['an app that never pauses: a batch every few reads', 3, [['a'], ['a'], ['a'], ['a'], []], [[], [], ['a:3'], [], ['a:1']]],
    ['at most one read held: due at once', 1, [['a'], ['a']], [['a:1'], ['a:1']]],
  ])('%s', (_name, maxHeldReads, reads, expected) => {
    expect(play(maxHeldReads, reads)).toEqual(expected);
    expect(play(maxHeldReads, reads, true), 'kept and restored between reads').toEqual(expected);
  });

  it('keeps the events of a batch in the order they were read', () => {
    const batches = new NoticeBatches(3);
    const [first, second, third] = [event('a', 1), event('a', 2), event('a', 3)];
    batches.add(first);
    expect(batches.endRead()).toEqual([]);
    batches.add(second);
    batches.add(third);
    expect(batches.endRead()).toEqual([]);
    expect(batches.endRead()).toEqual([{ userId: 'a', events: [first, second, third] }]);
  });
});
