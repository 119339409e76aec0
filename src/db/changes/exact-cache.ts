// A bounded in-memory map whose entries are dropped by the changes that make them wrong (see
// notes.ts for how writes name them, remote.ts for other processes). It answers only while its
// watch says other processes' changes would be heard.
//
// A reader that missed fills the entry after reading the database; a write may commit between
// that read and the fill. So a reader takes a ticket before it reads, and the fill is refused if a
// change to one of the entry's topics (or to everything) arrived since: an entry is never older
// than the newest change to it the process has seen. Only its own topics count: under a steady
// stream of writes some change arrives during nearly every read, and refusing every fill then kept
// the caches empty (every write request read its token and its system: bench/RESULTS.md, issue 28).
// A change to another topic could not have made the entry wrong, or `apply` would drop the entry
// for it too.
import type { Changes } from './notes.js';
import type { ChangeWatch } from './remote.js';

/** Topics whose latest change is remembered for the fills in flight; a read takes milliseconds. */
const MAX_REMEMBERED_TOPICS = 4096;

export interface ExactCacheOptions<K, V> {
  maxEntries: number;
  /** The topics whose change makes this entry wrong. */
  topicsOf(key: K, value: V): readonly string[];
}

/** Taken before reading what will fill the cache. */
export type FillTicket = number;

export class ExactCache<K, V> {
  private readonly entries = new Map<K, { value: V; topics: readonly string[] }>();
  private readonly keysByTopic = new Map<string, Set<K>>();
  private epoch = 0;
  /** The epoch of each topic's latest change, for the fills in flight (bounded: see `apply`). */
  private readonly changedAt = new Map<string, number>();
  /** Fills with a ticket older than this are refused: everything changed then, or `changedAt` was forgotten. */
  private refuseBefore = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly watch: ChangeWatch,
    private readonly options: ExactCacheOptions<K, V>,
  ) {
    this.unsubscribe = watch.subscribe((changes) => this.apply(changes));
  }

  get(key: K): V | undefined {
    if (!this.watch.usable()) return undefined;
    return this.entries.get(key)?.value;
  }

  ticket(): FillTicket {
    // usable() first: on SQLite it is what notices another process's commit (and moves the epoch).
    this.watch.usable();
    return this.epoch;
  }

  fill(key: K, value: V, ticket: FillTicket): void {
    if (!this.watch.usable() || ticket < this.refuseBefore) return;
    const topics = this.options.topicsOf(key, value);
    for (const topic of topics) if ((this.changedAt.get(topic) ?? 0) > ticket) return;
    this.remove(key);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    this.entries.set(key, { value, topics });
    for (const topic of topics) {
      let keys = this.keysByTopic.get(topic);
      if (!keys) this.keysByTopic.set(topic, (keys = new Set()));
      keys.add(key);
    }
  }

  remove(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const topic of entry.topics) {
      const keys = this.keysByTopic.get(topic);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByTopic.delete(topic);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private apply(changes: Changes): void {
    this.epoch++;
    if (changes === 'all') {
      this.forgetChanges();
      return this.clear();
    }
    // Remembering every topic ever changed would grow without end: past the bound, forgetting them
    // refuses the fills in flight instead (as one change to everything would).
    if (this.changedAt.size + changes.length > MAX_REMEMBERED_TOPICS) this.forgetChanges();
    for (const topic of changes) this.changedAt.set(topic, this.epoch);
    for (const topic of changes) {
      const keys = this.keysByTopic.get(topic);
      if (keys) for (const key of [...keys]) this.remove(key);
    }
  }

  private forgetChanges(): void {
    this.changedAt.clear();
    this.refuseBefore = this.epoch;
  }

  private clear(): void {
    this.entries.clear();
    this.keysByTopic.clear();
  }
}
