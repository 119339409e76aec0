// The paged alter list (`alters:<userId>:<skip>[:<sort>:<tag id>:<search>]`). Another user's public
// alters read through the bot's client when the presser never linked. The order, tag and search
// ride in the buttons' custom ids, so every page of one list is the same query.
import { time, TimestampStyles } from 'discord.js';
import { ALTER_SORTS, type AlterSort } from '../../domain/alter-list.js';
import type { Alter } from '../../domain/alter.js';
import { ALTERS_PER_PAGE, alterListEmbed } from '../embeds.js';
import { definePager } from './pager.js';

export interface AlterListQuery {
  sort: AlterSort;
  tagId?: number | undefined;
  search?: string | undefined;
}

/** Discord's limit on a custom id; the search is cut to fit beside the rest. */
const CUSTOM_ID_LIMIT = 100;
/** The longest prefix, owner id, offset and separators a button's id has before the state. */
const ID_HEAD = 'alters:'.length + 20 + 1 + 7 + 1;

/** The list's query as the buttons carry it: `<sort index>:<tag id or empty>:<search>`. */
export function encodeListState(query: AlterListQuery): string {
  if (query.sort === 'id' && query.tagId === undefined && !query.search) return '';
  const head = `${ALTER_SORTS.indexOf(query.sort)}:${query.tagId ?? ''}:`;
  const room = CUSTOM_ID_LIMIT - ID_HEAD - head.length;
  return `${head}${fitting(query.search ?? '', room)}`;
}

/** The longest start of `text` within `room` UTF-16 units, never splitting a character. */
function fitting(text: string, room: number): string {
  let kept = '';
  for (const character of text) {
    if (kept.length + character.length > room) break;
    kept += character;
  }
  return kept;
}

export function decodeListState(state: string): AlterListQuery {
  const match = /^(\d):(\d*):(.*)$/s.exec(state);
  if (!match) return { sort: 'id' };
  const sort = ALTER_SORTS[Number(match[1])] ?? 'id';
  return { sort, tagId: match[2] ? Number(match[2]) : undefined, search: match[3] || undefined };
}

/** What each line adds for the order chosen: the value the list is sorted by, when the alter shows it. */
function detail(sort: AlterSort): ((alter: Alter) => string) | undefined {
  switch (sort) {
    case 'messageCount':
      return (alter) => (alter.messageCount === null ? '' : ` · ${alter.messageCount} message${alter.messageCount === 1 ? '' : 's'}`);
    case 'lastMessage':
      return (alter) => (alter.lastMessageTimestamp === null ? '' : ` · last message ${time(new Date(alter.lastMessageTimestamp), TimestampStyles.RelativeTime)}`);
    case 'created':
      return (alter) => ` · created ${time(new Date(alter.created), TimestampStyles.ShortDate)}`;
    default:
      return undefined;
  }
}

export const alterPages = definePager({
  prefix: 'alters:',
  perPage: ALTERS_PER_PAGE,
  defaultTitle: 'Alters',
  async load({ api, accounts }, viewerId, target, skip, title, state) {
    const query = decodeListState(state);
    const page = await accounts.asViewer(viewerId, target, (token) =>
      api.listAlters(
        token,
        target,
        { skip, max: ALTERS_PER_PAGE + 1 },
        { sort: query.sort, ...(query.tagId === undefined ? {} : { tag: query.tagId }), ...(query.search ? { search: query.search } : {}) },
      ),
    );
    const hasMore = page.length > ALTERS_PER_PAGE;
    return { embed: alterListEmbed(page.slice(0, ALTERS_PER_PAGE), title, { skip, hasMore }, detail(query.sort)), hasMore };
  },
});
