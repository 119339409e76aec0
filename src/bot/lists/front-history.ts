// The paged switch history (`fronts:<userId>:<skip>`), like the alter list.
import { SWITCHES_PER_PAGE, frontHistoryEmbed } from '../embeds.js';
import { definePager } from './pager.js';

export const frontPages = definePager({
  prefix: 'fronts:',
  perPage: SWITCHES_PER_PAGE,
  defaultTitle: 'Switches',
  async load({ api, accounts }, viewerId, target, skip, title) {
    const page = await accounts.asViewer(viewerId, target, (token) => api.frontHistory(token, target, { skip, max: SWITCHES_PER_PAGE }));
    const hasMore = page.next !== null;
    return { embed: frontHistoryEmbed(page.switches, page.alters, title, { skip, hasMore }), hasMore };
  },
});
