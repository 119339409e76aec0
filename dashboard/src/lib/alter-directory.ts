// Every alter (and every tag) of the signed-in member's system, for the screens that list them or
// name them by id (the alters grid, the tags' members, the front history, the statistics):
// list-alters and list-tags give at most 250 a page, and a system may have more, so these read
// page after page.
import { get, type Schemas } from './api';

export type Alter = Schemas['Alter'];
export type Tag = Schemas['Tag'];

/** The API's largest page of alters and of tags. */
export const PAGE = 250;

const me = { user: '@me' };

export interface AlterListQuery {
  /** list-alters' `sort` (default: by name). */
  sort?: 'name' | 'created' | 'lastFronted';
  /** Text to find in names and descriptions (the API's `search`); empty for none. */
  search?: string;
  /** A tag id (the API's `tag`); empty for every alter. */
  tag?: string;
}

/** The system's alters matching `query`, every page of them, in the API's order (each once, should a page shift while read). */
export async function loadAllAlters(query: AlterListQuery = {}): Promise<Alter[]> {
  const search = query.search?.trim();
  const byId = new Map<number, Alter>();
  for (let skip = 0; ; skip += PAGE) {
    const page = await get('/v1/users/{user}/system/list-alters', {
      path: me,
      query: { sort: query.sort ?? 'name', max: String(PAGE), skip: String(skip), ...(search ? { search } : {}), ...(query.tag ? { tag: query.tag } : {}) },
    });
    for (const alter of page) if (!byId.has(alter.alterId)) byId.set(alter.alterId, alter);
    if (page.length < PAGE) return [...byId.values()];
  }
}

/** Every tag of the system, in id order. */
export async function loadAllTags(): Promise<Tag[]> {
  const tags: Tag[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const page = await get('/v1/users/{user}/system/list-tags', { path: me, query: { max: String(PAGE), skip: String(skip) } });
    tags.push(...page);
    if (page.length < PAGE) return tags;
  }
}

/** What the dashboard calls an alter: its display name, else its username. */
export function alterName(alter: Alter | undefined, id: number): string {
  return alter?.displayName ?? alter?.username ?? `Alter ${id}`;
}
