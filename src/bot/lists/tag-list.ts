// The paged tag list (`tag-page:<userId>:<skip>`), like the alter list; each press reads with the
// presser's own token.
import { TAGS_PER_PAGE, tagListEmbed } from '../embeds.js';
import { definePager } from './pager.js';

export const tagPages = definePager({
  prefix: 'tag-page:',
  perPage: TAGS_PER_PAGE,
  defaultTitle: 'Tags',
  async load({ api, accounts }, viewerId, target, skip, title) {
    const page = await accounts.withToken(viewerId, (token) => api.listTags(token, target, { skip, max: TAGS_PER_PAGE + 1 }));
    const hasMore = page.length > TAGS_PER_PAGE;
    return { embed: tagListEmbed(page.slice(0, TAGS_PER_PAGE), title, { skip, hasMore }), hasMore };
  },
});
