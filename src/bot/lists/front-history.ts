// The paged switch history (`fronts:<userId>:<skip>`), like the alter list. The owner's own pages
// are numbered, with a "Fix n" button per switch (front-switches.ts: edit or delete it).
import { SWITCHES_PER_PAGE, frontHistoryEmbed } from '../embeds.js';
import { switchPickRows } from '../front-switches.js';
import { definePager } from './pager.js';

export const frontPages = definePager({
  prefix: 'fronts:',
  perPage: SWITCHES_PER_PAGE,
  defaultTitle: 'Switches',
  async load({ api, accounts }, viewerId, target, skip, title) {
    const page = await accounts.asViewer(viewerId, target, (token) => api.frontHistory(token, target, { skip, max: SWITCHES_PER_PAGE }));
    const hasMore = page.next !== null;
    const own = target === '@me';
    return {
      embed: frontHistoryEmbed(page.switches, page.alters, title, { skip, hasMore, numbered: own }),
      hasMore,
      rows: own ? switchPickRows(viewerId, page.switches, skip + 1) : [],
    };
  },
});
