// The editor's form state (a draft: text boxes hold strings, rows have keys for the page to track
// them) made from an alter as stored, and back: the one edit request that changes what the member
// changed and nothing else (so an edit made meanwhile in another app to another field stays).
import type { Alter, AlterEdit } from './types.js';

export type AlterMode = Alter['alterMode'];

export interface ServerNameRow {
  key: number;
  server: string;
  name: string;
}

export interface ServerAvatarRow {
  key: number;
  server: string;
  url: string;
}

export interface ProxyTagRow {
  key: number;
  /** The stored tag's id, kept across edits; absent for a tag added here. */
  id?: string;
  prefix: string;
  suffix: string;
}

export interface AlterDraft {
  username: string;
  displayName: string;
  pronouns: string;
  description: string;
  color: string;
  birthday: string;
  avatarUrl: string;
  webhookAvatarUrl: string;
  banner: string;
  alterMode: AlterMode;
  autoproxyEnabled: boolean;
  nameMap: ServerNameRow[];
  avatarUrlMap: ServerAvatarRow[];
  proxyTags: ProxyTagRow[];
  public: number;
  tagIds: number[];
  /** Profile field id → value; '' is no value. */
  profileFields: Record<string, string>;
  /** The alter's `flags`, as a number input holds it: null when emptied (sent as 0, the default). */
  flags: number | null;
}

let lastKey = 0;
/** A key for a new row, unique in this page. */
export const rowKey = (): number => ++lastKey;

export function draftOf(alter: Alter): AlterDraft {
  return {
    username: alter.username ?? '',
    displayName: alter.displayName ?? '',
    pronouns: alter.pronouns ?? '',
    description: alter.description ?? '',
    color: alter.color ?? '',
    birthday: alter.birthday ?? '',
    avatarUrl: alter.avatarUrl ?? '',
    webhookAvatarUrl: alter.webhookAvatarUrl ?? '',
    banner: alter.banner ?? '',
    alterMode: alter.alterMode,
    autoproxyEnabled: alter.autoproxyEnabled ?? true,
    nameMap: alter.nameMap.map((entry) => ({ key: rowKey(), server: entry.server, name: entry.name })),
    avatarUrlMap: Object.entries(alter.avatarUrlMap).map(([server, url]) => ({ key: rowKey(), server, url })),
    proxyTags: alter.proxyTags.map((tag) => ({ key: rowKey(), id: tag.id, prefix: tag.prefix ?? '', suffix: tag.suffix ?? '' })),
    public: alter.public,
    tagIds: [...alter.tagIds],
    profileFields: { ...alter.profileFields },
    flags: alter.flags ?? 0,
  };
}

const orNull = (text: string): string | null => (text.trim() === '' ? null : text);

// Rows left wholly blank are dropped: an empty row is a row the member did not fill in.
const nameMapOf = (draft: AlterDraft) => draft.nameMap.filter((row) => row.server.trim() !== '' || row.name !== '').map((row) => ({ server: row.server.trim(), name: row.name }));
const avatarUrlMapOf = (draft: AlterDraft) =>
  Object.fromEntries(draft.avatarUrlMap.filter((row) => row.server.trim() !== '' || row.url.trim() !== '').map((row) => [row.server.trim(), row.url.trim()]));
const proxyTagsOf = (draft: AlterDraft) =>
  draft.proxyTags
    .filter((row) => row.prefix !== '' || row.suffix !== '')
    .map((row) => ({ ...(row.id ? { id: row.id } : {}), prefix: row.prefix === '' ? null : row.prefix, suffix: row.suffix === '' ? null : row.suffix }));

/** The edit request's keys this page edits (not the read-only ones, nor integrations' own `fields`). */
type EditedHere = Omit<AlterEdit, 'profileFields' | 'fields' | 'alterId' | 'created' | 'lastMessageTimestamp' | 'messageCount' | 'systemId'>;

/** Each edited field as the edit request spells it. */
function requestValues(draft: AlterDraft): Required<EditedHere> {
  return {
    username: draft.username.trim(),
    displayName: draft.displayName,
    pronouns: orNull(draft.pronouns),
    description: orNull(draft.description),
    color: orNull(draft.color.trim()),
    birthday: orNull(draft.birthday.trim()),
    avatarUrl: orNull(draft.avatarUrl.trim()),
    webhookAvatarUrl: orNull(draft.webhookAvatarUrl.trim()),
    banner: orNull(draft.banner.trim()),
    alterMode: draft.alterMode,
    autoproxyEnabled: draft.autoproxyEnabled,
    nameMap: nameMapOf(draft),
    avatarUrlMap: avatarUrlMapOf(draft),
    proxyTags: proxyTagsOf(draft),
    public: draft.public,
    tagIds: [...draft.tagIds].sort((a, b) => a - b),
    // Not rounded or clamped here: a fraction or a negative number is the service's to refuse, at the field.
    flags: draft.flags ?? 0,
  };
}

/** Whether the form holds anything the last save did not store (what leaving would lose). */
export function hasChanges(saved: AlterDraft, draft: AlterDraft): boolean {
  return Object.keys(editBetween(saved, draft)).length > 0;
}

/** The edit request from `saved` to `draft`: only the keys that differ; `{}` when nothing does. */
export function editBetween(saved: AlterDraft, draft: AlterDraft): AlterEdit {
  const before = requestValues(saved);
  const after = requestValues(draft);
  const edit: Record<string, unknown> = {};
  for (const key of Object.keys(after) as Array<keyof typeof after>) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) edit[key] = after[key];
  }
  const fields: Record<string, string | null> = {};
  for (const id of new Set([...Object.keys(saved.profileFields), ...Object.keys(draft.profileFields)])) {
    const was = saved.profileFields[id] ?? '';
    const now = draft.profileFields[id] ?? '';
    if (was !== now) fields[id] = now.trim() === '' ? null : now;
  }
  if (Object.keys(fields).length > 0) edit.profileFields = fields;
  return edit as AlterEdit;
}

/**
 * Where the page shows an error that names `field`: the input of a plain field, a profile field's
 * own input, or the group of a list (`nameMap.2.name` is shown at the per-server names).
 */
export function errorAnchor(field: string): string {
  const [first = '', second] = field.split('.');
  return first === 'profileFields' && second !== undefined ? `profileFields.${second}` : first;
}
