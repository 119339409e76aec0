// A bounded in-memory map whose entries are dropped by the changes that make them wrong (see
// notes.ts for how writes name them, remote.ts for other processes). It answers only while its
// watch says other processes' changes would be heard.
//
// A reader that missed fills the entry after reading the database; a write may commit between
// that read and the fill. So a reader takes a ticket before it reads, and the fill is refused if
// any change arrived since: an entry is never older than the newest change the process has seen.
import type { Changes } from './notes.js';
import type { ChangeWatch } from './remote.js';

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
    if (!this.watch.usable() || ticket !== this.epoch) return;
    this.remove(key);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    const topics = this.options.topicsOf(key, value);
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
    if (changes === 'all') return this.clear();
    for (const topic of changes) {
      const keys = this.keysByTopic.get(topic);
      if (keys) for (const key of [...keys]) this.remove(key);
    }
  }

  private clear(): void {
    this.entries.clear();
    this.keysByTopic.clear();
  }
}
