// SHARD_COUNT and SHARD_IDS: how many shards the bot has in all, and which of them this process
// holds. Pure: strings in, a plan or the sentence that says what is wrong.

/** Discord's recommended count, fetched at start-up, or a fixed count. */
export type ShardCount = 'auto' | number;

export interface ShardPlan {
  count: ShardCount;
  /** The shard ids this process holds; undefined: all of them (0 … count-1, or Discord's count). */
  ids: number[] | undefined;
}

/** Above Discord's largest deployments by far; a typo (an extra digit) is caught here. */
export const MAX_SHARD_COUNT = 100_000;

/** `SHARD_COUNT`: `auto` or a whole number of shards. */
export function parseShardCount(value: string): ShardCount | { error: string } {
  const trimmed = value.trim();
  if (trimmed === 'auto') return 'auto';
  if (!/^\d+$/.test(trimmed)) return { error: 'expected auto or a whole number of shards' };
  const count = Number(trimmed);
  if (count < 1 || count > MAX_SHARD_COUNT) return { error: `expected from 1 to ${MAX_SHARD_COUNT} shards` };
  return count;
}

/**
 * `SHARD_IDS`: shard ids and ranges separated by commas (`2,3`, `0-3`, `0-1,6`), each below
 * `count`, none twice; sorted. A process holds some shards of a known total, so `auto` is refused.
 */
export function parseShardIds(value: string, count: ShardCount): number[] | { error: string } {
  if (count === 'auto') return { error: 'needs SHARD_COUNT set to a number: every process must agree on the total' };
  const ids = new Set<number>();
  for (const part of value.split(',').map((p) => p.trim())) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match) return { error: `expected shard ids and ranges such as 2,3 or 0-3 (not ${JSON.stringify(part)})` };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) return { error: `the range ${part} runs backwards` };
    if (last >= count) return { error: `shard ${last} does not exist: SHARD_COUNT=${count} has shards 0 to ${count - 1}` };
    for (let id = first; id <= last; id += 1) {
      if (ids.has(id)) return { error: `shard ${id} is listed twice` };
      ids.add(id);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

/** Both settings together; `ids` unset means every shard. */
export function planShards(countValue: string | undefined, idsValue: string | undefined): ShardPlan | { error: string; setting: 'SHARD_COUNT' | 'SHARD_IDS' } {
  const count = countValue === undefined ? 1 : parseShardCount(countValue);
  if (typeof count === 'object') return { ...count, setting: 'SHARD_COUNT' };
  if (idsValue === undefined) return { count, ids: undefined };
  const ids = parseShardIds(idsValue, count);
  if ('error' in ids) return { ...ids, setting: 'SHARD_IDS' };
  return { count, ids };
}
