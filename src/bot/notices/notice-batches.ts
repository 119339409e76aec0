// Which owners' operation messages are due after a read of the event feed. Changes made together
// belong in one message, but "together" cannot be one read: a burst of requests can straddle two.
// So an owner's events wait until a read brings nothing new for them; an app that never pauses
// still gets its owner a message every `maxHeldReads` reads. Pure: events in, batches out.
import type { FeedEvent } from '../api-client.js';

export interface NoticeBatch {
  userId: string;
  events: FeedEvent[];
}

/** The batches waiting between reads, as they are kept (operation-notices.ts saves them). */
export type HeldBatches = Array<[userId: string, waiting: { events: FeedEvent[]; reads: number }]>;

export class NoticeBatches {
  readonly #held = new Map<string, { events: FeedEvent[]; reads: number }>();
  readonly #arrived = new Set<string>();

  constructor(private readonly maxHeldReads: number) {}

  /** Batches kept by `snapshot`, waiting again. */
  static restore(maxHeldReads: number, held: HeldBatches): NoticeBatches {
    const batches = new NoticeBatches(maxHeldReads);
    for (const [userId, waiting] of held) batches.#held.set(userId, { events: [...waiting.events], reads: waiting.reads });
    return batches;
  }

  /** What waits, to keep between reads (after endRead). */
  snapshot(): HeldBatches {
    return [...this.#held].map(([userId, waiting]) => [userId, { events: [...waiting.events], reads: waiting.reads }]);
  }

  /** An event to tell its owner about, read in the current read. */
  add(event: FeedEvent): void {
    const userId = event.data.userId;
    const waiting = this.#held.get(userId) ?? { events: [], reads: 0 };
    waiting.events.push(event);
    this.#held.set(userId, waiting);
    this.#arrived.add(userId);
  }

  /** Ends a read: the batches of owners it brought nothing new for, or that waited long enough. */
  endRead(): NoticeBatch[] {
    const due: NoticeBatch[] = [];
    for (const [userId, waiting] of this.#held) {
      waiting.reads += 1;
      if (!this.#arrived.has(userId) || waiting.reads >= this.maxHeldReads) due.push({ userId, events: waiting.events });
    }
    for (const { userId } of due) this.#held.delete(userId);
    this.#arrived.clear();
    return due;
  }
}
