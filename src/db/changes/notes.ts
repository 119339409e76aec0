// What a write tells the caches. A write that changes something a cache may hold calls
// `noteChange(db, topics)` in its transaction (or right after a one-statement write). The topics
// name what changed (`system:12`, `user:3000…`, `oidc:<row key>`, `grant:<id>`, `client:<id>`).
// The note is a statement of its own, so it travels with the transaction:
// - in this process, the dialect wrapper (dialect.ts) sees it and hands the topics to every cache
//   once the transaction has committed, before the write's caller goes on (so before it answers);
// - on PostgreSQL the statement is a `pg_notify`, which the database delivers to every other
//   process's listener (remote.ts) when, and only if, the transaction commits.
// SQLite has no notifications; other processes writing the same file are noticed through its data
// version instead (remote.ts), so there the statement is never sent to the database.
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../tables.js';

/** Starts the SQL text of a change note: the dialect wrapper recognises notes by it. */
export const CHANGE_NOTE_MARKER = '/* switchboard:change-note */';

/** The PostgreSQL notification channel; payloads are `<schema> <topic> <topic> …`. */
export const CHANGE_CHANNEL = 'switchboard_changes';

/** NOTIFY payloads must stay under 8000 bytes; a longer list becomes "everything changed". */
const MAX_PAYLOAD = 7000;

/** Either a list of topics, or everything (another process wrote, or a listener was lost). */
export type Changes = readonly string[] | 'all';

export const EVERYTHING = 'all';

export function encodeTopics(topics: readonly string[]): string {
  const joined = topics.join(' ');
  return joined.length > MAX_PAYLOAD ? EVERYTHING : joined;
}

export function decodeTopics(payload: string): Changes {
  return payload === EVERYTHING ? 'all' : payload.split(' ').filter(Boolean);
}

/**
 * Notes that `topics` changed, inside the transaction `db` (or as a statement of its own). Must be
 * called after the change's own statements are sure to run, not in a branch that rolls back alone.
 */
export async function noteChange(db: Kysely<Schema>, topics: readonly string[]): Promise<void> {
  if (topics.length === 0) return;
  for (const topic of topics) if (topic === '' || /\s/.test(topic)) throw new Error(`a change topic has no spaces: ${JSON.stringify(topic)}`);
  await sql`${sql.raw(CHANGE_NOTE_MARKER)} select pg_notify(${CHANGE_CHANNEL}, current_schema() || ' ' || ${encodeTopics(topics)})`.execute(db);
}

type Listener = (changes: Changes) => void;
const listeners = new Set<Listener>();

/**
 * Every cache in this process hears every local change. Several databases in one process (tests
 * do that) then drop each other's topics as well: more misses, never a stale answer.
 */
export function onLocalChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function publishLocally(changes: Changes): void {
  for (const listener of listeners) listener(changes);
}
