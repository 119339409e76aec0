// What the alters screen reads: every alter matching its query (the API pages at 250, a system
// holds up to 2,000), every tag, and when each alter last fronted; and how its sort keys order.
import { get, type Schemas } from './api';

export type Alter = Schemas['Alter'];
export type Tag = Schemas['Tag'];

/** The API's largest page of alters and of tags. */
export const PAGE = 250;

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

export interface AlterQuery {
  sort: SortKey;
  /** Text to find in names and descriptions (the API's `search`); empty for none. */
  search: string;
  /** A tag id (the API's `tag`), or '' for every alter. */
  tag: string;
}

const me = { user: '@me' };

/** Every alter matching `query`, page after page, in the API's order (each once, should a page shift while read). */
export async function loadAlters(query: AlterQuery): Promise<Alter[]> {
  const search = query.search.trim();
  const byId = new Map<number, Alter>();
  for (let skip = 0; ; skip += PAGE) {
    const page = await get('/v1/users/{user}/system/list-alters', {
      path: me,
      query: { sort: query.sort, max: String(PAGE), skip: String(skip), ...(search ? { search } : {}), ...(query.tag ? { tag: query.tag } : {}) },
    });
    for (const alter of page) if (!byId.has(alter.alterId)) byId.set(alter.alterId, alter);
    if (page.length < PAGE) break;
  }
  return [...byId.values()];
}

/** Every tag of the system, in id order. */
export async function loadTags(): Promise<Tag[]> {
  const tags: Tag[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const page = await get('/v1/users/{user}/system/list-tags', { path: me, query: { max: String(PAGE), skip: String(skip) } });
    tags.push(...page);
    if (page.length < PAGE) break;
  }
  return tags;
}

/** The longest period front statistics cover is five years; a day less keeps clear of the edge. */
const STATS_SPAN_MS = (5 * 365 - 1) * 24 * 60 * 60 * 1000;

/** When each alter last fronted within the last five years (front statistics), by alter id. */
export async function loadLastFronted(now = Date.now()): Promise<Map<number, string>> {
  const { data } = await get('/v1/users/{user}/front/stats', { path: me, query: { from: new Date(now - STATS_SPAN_MS).toISOString() } });
  const last = new Map<number, string>();
  for (const row of data.alters) if (row.alterId !== null && row.lastFronted !== null) last.set(row.alterId, row.lastFronted);
  return last;
}

/** The name an alter goes by on the screen: its display name, else its username. */
export function nameOf(alter: Alter): string {
  return alter.displayName ?? alter.username ?? `Alter ${alter.alterId}`;
}
