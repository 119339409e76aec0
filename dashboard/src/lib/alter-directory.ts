// Every alter of the signed-in member's system, for the screens that name alters by id (the tags'
// members, the front history, the statistics): list-alters gives at most 250 a page, and a system
// may have more, so this reads page after page.
import { get, type Schemas } from './api';

export type Alter = Schemas['Alter'];

const PAGE = 250;

/** The system's alters in display-name order, every page of them. */
export async function loadAllAlters(): Promise<Alter[]> {
  const alters: Alter[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const page = await get('/v1/users/{user}/system/list-alters', { path: { user: '@me' }, query: { sort: 'name', max: String(PAGE), skip: String(skip) } });
    alters.push(...page);
    if (page.length < PAGE) return alters;
  }
}

/** What the dashboard calls an alter: its display name, else its username. */
export function alterName(alter: Alter | undefined, id: number): string {
  return alter?.displayName ?? alter?.username ?? `Alter ${id}`;
}
