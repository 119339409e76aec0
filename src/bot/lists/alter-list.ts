// The paged alter list (`alters:<userId>:<skip>`). Another user's public alters read through the
// bot's client when the presser never linked.
import { ALTERS_PER_PAGE, alterListEmbed } from '../embeds.js';
import { definePager } from './pager.js';

export const alterPages = definePager({
  prefix: 'alters:',
  perPage: ALTERS_PER_PAGE,
  defaultTitle: 'Alters',
  async load({ api, accounts }, viewerId, target, skip, title) {
    const page = await accounts.asViewer(viewerId, target, (token) => api.listAlters(token, target, { skip, max: ALTERS_PER_PAGE + 1 }));
    const hasMore = page.length > ALTERS_PER_PAGE;
    return { embed: alterListEmbed(page.slice(0, ALTERS_PER_PAGE), title, { skip, hasMore }), hasMore };
  },
});
