// How a list of alters may be ordered, filtered and searched (GET …/system/list-alters?sort&tag&search):
// the choices, and what each looks at. Which of those values another viewer may use is privacy.ts's
// (alterQueryPrivacy); the SQL is db/repositories/alters.ts's.
import { z } from 'zod';
import { EntityIdString, text } from './values.js';

/**
 * Sort keys, each in the order people want it: names A→Z, the oldest first, the latest message or
 * front first, the most messages first. Ties (and values hidden from the viewer, which count as
 * none, last) fall back to the id.
 */
export const ALTER_SORTS = ['id', 'name', 'created', 'lastMessage', 'messageCount', 'lastFronted'] as const;
export type AlterSort = (typeof ALTER_SORTS)[number];

export const ALTER_SORT_DESCRIPTIONS: Record<AlterSort, string> = {
  id: 'the alter id (the default)',
  name: 'the display name, A to Z (ignoring case)',
  created: 'creation time, oldest first',
  lastMessage: 'the latest proxied message, newest first',
  messageCount: 'proxied messages, most first',
  lastFronted: 'the last time the alter was in the front, most recent first (fronting now comes first)',
};

export const MAX_ALTER_SEARCH = 100;

export const ListAltersFilters = {
  sort: z
    .enum(ALTER_SORTS)
    .optional()
    .describe(`Order of the list: ${ALTER_SORTS.map((sort) => `\`${sort}\` (${ALTER_SORT_DESCRIPTIONS[sort]})`).join(', ')}. For another user's alters a value they hide from you (their name, or their message count and last message) counts as none: those alters come last, in id order.`),
  tag: EntityIdString.optional().describe('Only members of this tag. Another user’s tag must be visible to you (404 `unknown-tag` otherwise), and lists only the members whose membership they show.'),
  search: text(MAX_ALTER_SEARCH, 1)
    .optional()
    .describe('Only alters whose username, display name or description contains this text, ignoring case (on SQLite, case is ignored for ASCII letters only; usernames compare as usernames do, ignoring look-alike forms). For another user’s alters only what they show you is searched.'),
};

export interface AlterListQuery {
  sort: AlterSort;
  tagId: number | undefined;
  search: string | undefined;
}
