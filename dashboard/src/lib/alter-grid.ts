// What the alters screen reads besides the alters and tags (alter-directory.ts): when each alter
// last fronted; and how its sort keys order.
import { get } from './api';

export type SortKey = 'name' | 'created' | 'lastFronted';

/**
 * How the API orders each key (list-alters' `sort`): names A to Z and the oldest first are
 * ascending, the last fronted most recent first is descending. The screen reverses a loaded list
 * for the other direction.
 */
export const API_DIRECTION: Record<SortKey, 'ascending' | 'descending'> = {
  name: 'ascending',
  created: 'ascending',
  lastFronted: 'descending',
};

const me = { user: '@me' };

/** The longest period front statistics cover is five years; a day less keeps clear of the edge. */
const STATS_SPAN_MS = (5 * 365 - 1) * 24 * 60 * 60 * 1000;

/** When each alter last fronted within the last five years (front statistics), by alter id. */
export async function loadLastFronted(now = Date.now()): Promise<Map<number, string>> {
  const { data } = await get('/v1/users/{user}/front/stats', { path: me, query: { from: new Date(now - STATS_SPAN_MS).toISOString() } });
  const last = new Map<number, string>();
  for (const row of data.alters) if (row.alterId !== null && row.lastFronted !== null) last.set(row.alterId, row.lastFronted);
  return last;
}
