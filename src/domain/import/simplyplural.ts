// A Simply Plural export (`export.json`, spec simply-plural-export.md) read into the source model:
// members become alters, custom fronts alters in a "Custom fronts" tag (or are left out), groups
// tags, front-history intervals switches (the sweep of §7.4), custom fields a separate list for
// profile fields. The file is a raw database dump: every field may be missing or of another type,
// references may dangle, and it holds secrets (API tokens, push tokens, IP addresses, friends'
// ids) that are never read: only the collections named in READ_COLLECTIONS are looked at, and
// the rest are counted by length at most. A member's `pkId` becomes a PluralKit import link.
import { AlterPrivacy } from '../privacy-bits.js';
import { Problem } from '../problems.js';
import { isTimeZone } from '../system.js';
import { TagName } from '../tag.js';
import { DESCRIPTION_MAX, NAME_MAX } from '../values.js';
import type { ProfileFieldKind } from '../profile-fields.js';
import { clampGraphemes } from '../proxy/text.js';
import { Username } from '../alter.js';
import {
  MAX_FILE_ENTITIES,
  MAX_IMPORT_SWITCHES,
  MAX_SWITCH_MEMBERS,
  TagPrivacy,
  type ImportReadOptions,
  type ImportSource,
  type SkippedEntity,
  type SourceAlter,
  type SourceProfileField,
  type SourceSwitch,
  type SourceSystem,
  type SourceTag,
} from './model.js';
import { arrayOf, isObject, type Json } from './entities.js';
import { Notes, deriveUsername, normaliseText, normaliseUrl, plural } from './normalise.js';

/** The id of the tag custom fronts are put in; never a Simply Plural id (those have no colon). */
export const CUSTOM_FRONTS_TAG_ID = 'switchboard:custom-fronts';
export const CUSTOM_FRONTS_TAG_NAME = 'Custom fronts';

/** Front history before this is out of range (Simply Plural started in 2020; 1970 means seconds for milliseconds). */
const EARLIEST = Date.UTC(2015, 0, 1);
const DAY = 86_400_000;
/** Custom fields a system may define (issue 30); more in a file are left out, which also bounds renaming repeated names. */
export const MAX_PROFILE_FIELDS = 100;
/** Rows of front history read at all: far above years of history (50,000 rows is about 12 MiB). */
export const MAX_FRONT_HISTORY_ROWS = 1_000_000;

/** Keys that make an object a Simply Plural export (collections no other format has). */
const SP_KEYS = ['frontHistory', 'frontStatuses', 'customFields', 'privacyBuckets', 'users', 'boardMessages', 'automatedReminders', 'repeatedReminders', 'chatMessages'];

/** Whether an object is a Simply Plural export: `members` documents with `_id`, or its own collections. */
export function isSimplyPluralObject(file: Json): boolean {
  if ('switches' in file || 'tuppers' in file || 'version' in file) return false;
  if (SP_KEYS.some((key) => Array.isArray(file[key]))) return true;
  const first = arrayOf(file.members)[0];
  return isObject(first) && '_id' in first && 'uid' in first;
}

/** Whether a top-level array is the 2022 flat export: documents with `_id` and `uid`. */
export function isSimplyPluralArray(file: unknown): file is unknown[] {
  if (!Array.isArray(file) || file.length === 0) return false;
  return file.some((doc) => isObject(doc) && typeof doc._id === 'string' && typeof doc.uid === 'string');
}

// ---------------------------------------------------------------------------------------------
// The 2022 flat array, classified by shape (P1)

/**
 * The collection a document of the flat export most likely came from, or null (ignored). Members
 * and custom fronts look alike; `customIds` are the ids front history marks as custom.
 */
export function classifyDocument(doc: Json, customIds: ReadonlySet<string>): string | null {
  const has = (key: string) => key in doc;
  if (has('token') && has('permission')) return 'tokens';
  if (has('ip') && has('action')) return 'securityLogs';
  if (has('frienduid')) return 'friends';
  if (doc._id === doc.uid) return has('username') || has('isAsystem') || has('fields') ? 'users' : null;
  if (has('member') && has('startTime')) return 'frontHistory';
  if (has('parent') && has('emoji')) return 'groups';
  if (has('title') && has('note')) return 'notes';
  if (has('documentId') && has('text')) return 'comments';
  if (has('writtenBy') || has('writtenFor')) return 'boardMessages';
  if (has('iv') && has('message')) return 'chatMessages';
  if (has('delayInHours')) return 'automatedReminders';
  if (has('dayInterval')) return 'repeatedReminders';
  if (has('votes') || has('options') || has('allowAbstain')) return 'polls';
  if (!has('name')) return null;
  if (typeof doc._id === 'string' && customIds.has(doc._id)) return 'frontStatuses';
  return 'members';
}

/** The flat export sorted into collections by shape. */
export function collectionsOfArray(docs: unknown[]): Json {
  const customIds = new Set<string>();
  for (const doc of docs) {
    if (isObject(doc) && 'member' in doc && 'startTime' in doc && doc.custom === true && typeof doc.member === 'string') customIds.add(doc.member);
  }
  const collections: Record<string, unknown[]> = {};
  for (const doc of docs) {
    if (!isObject(doc)) continue;
    const kind = classifyDocument(doc, customIds);
    if (kind !== null) (collections[kind] ??= []).push(doc);
  }
  return collections;
}

// ---------------------------------------------------------------------------------------------
// Values

/** A document id: any non-empty string (ids are opaque: 24-hex, 20-character, 5-character, uids). */
function docId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return value !== '' && value.length <= 64 && !/[\p{Cc}\s]/u.test(value) ? value : null;
}

/**
 * A collection as a list: an array, or a map keyed by id (third-party dumps, §6), whose keys become
 * `_id`. Anything else is refused: the file is damaged.
 */
function listOf(collections: Json, key: string): Json[] {
  const value = collections[key];
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.filter(isObject);
  if (isObject(value)) return Object.entries(value).filter(([, doc]) => isObject(doc)).map(([id, doc]) => ({ _id: id, ...(doc as Json) }));
  throw new Problem('invalid-import', `"${key}" must be a list of documents`);
}

/** `{exists, id, content}` (Simply Plural's API, not the export, P2) unwrapped to the bare document. */
function unwrapApiShape(docs: Json[], notes: Notes, what: string): Json[] {
  if (!docs.some((doc) => isObject(doc.content) && !('_id' in doc))) return docs;
  notes.once(`the ${what} were in the shape of Simply Plural's API ({exists, id, content}), not of its export file; they were read as such`);
  return docs.map((doc) => (isObject(doc.content) && !('_id' in doc) ? { ...doc.content, _id: doc.id } : doc));
}

/**
 * A Simply Plural colour (section 3, P9): `#RRGGBB` or `RRGGBB`; eight hex digits are AARRGGBB
 * (Flutter's order) unless they end in `ff` and do not start with it (then RRGGBBAA); `""` none.
 */
export function spColor(value: unknown, notes: Notes, what: string, owner: string | null): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value.trim().replace(/^#/, '') : undefined;
  if (text === '') return null;
  if (text !== undefined && /^[0-9a-f]{6}$/i.test(text)) return `#${text.toUpperCase()}`;
  if (text !== undefined && /^[0-9a-f]{8}$/i.test(text)) {
    const rgbaLike = /ff$/i.test(text) && !/^ff/i.test(text);
    notes.add('color-alpha', owner, (n, names) => `${plural(n, 'colour')} with eight digits lost their transparency${names}`);
    return `#${(rgbaLike ? text.slice(0, 6) : text.slice(2)).toUpperCase()}`;
  }
  notes.add(`color:${what}`, owner, (n, names) => `${plural(n, what)} ${n === 1 ? 'was' : 'were'} not a colour like #3a6ea5 and ${n === 1 ? 'was' : 'were'} dropped${names}`);
  return null;
}

/** Hosts of Simply Plural's own uploaded images: gone with the service. */
const SP_IMAGE_HOST = /^(?:https?:)?\/\/(?:[a-z0-9-]+\.)*(?:apparyllis\.com|simply-plural\.sfo3\.digitaloceanspaces\.com)(?:[/:?#]|$)/i;

interface AvatarCount {
  hosted: number;
}

/**
 * An avatar: an external https `avatarUrl` is kept as given; an uploaded one (`avatarUuid`, or a
 * link to Simply Plural's image host, or a relative `/avatars/` path) is dropped and counted.
 * Nothing is fetched.
 */
export function spAvatar(doc: Json, count: AvatarCount, notes: Notes, what: string, owner: string | null): string | null {
  const uploaded = typeof doc.avatarUuid === 'string' && doc.avatarUuid.trim() !== '';
  const url = typeof doc.avatarUrl === 'string' ? doc.avatarUrl.trim() : '';
  const onHost = url !== '' && (SP_IMAGE_HOST.test(url) || url.startsWith('/avatars/'));
  if (uploaded || onHost) count.hosted++;
  if (url === '' || onHost) return null;
  return normaliseUrl(url, what, notes, owner);
}

const MENTION = /<###@([^#<>]{1,64})###>/g;

/** Member mentions `<###@id###>` rewritten to `@name` (P12); unknown ids to "@(deleted member)". */
export function rewriteMentions(text: unknown, names: ReadonlyMap<string, string>, counter: { unknown: number }): unknown {
  if (typeof text !== 'string' || !text.includes('<###@')) return text;
  return text.replace(MENTION, (_, id: string) => {
    const name = names.get(id);
    if (name !== undefined) return `@${name}`;
    counter.unknown++;
    return '@(deleted member)';
  });
}

/** A time of front history in epoch ms: a number, a string of digits, or an ISO string (zone-less is UTC). */
export function spTime(value: unknown, counter: { strings: number }): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  let time: number;
  if (/^\d{1,16}$/.test(text)) time = Number(text);
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) time = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
  else return null;
  if (!Number.isFinite(time)) return null;
  counter.strings++;
  return time;
}

// ---------------------------------------------------------------------------------------------
// Privacy (§7.6): nothing public unless asked, and then only what friends could see

interface PrivacyRule {
  friendBuckets: ReadonlySet<string>;
  friendsArePublic: boolean;
  friendVisible: number;
}

/** Whether friends could see a document: a bucket friends hold, or (before buckets) `private: false`. */
function friendVisible(doc: Json, rule: PrivacyRule): boolean {
  const visible = Array.isArray(doc.buckets) ? doc.buckets.some((id) => typeof id === 'string' && rule.friendBuckets.has(id)) : doc.private === false;
  if (visible) rule.friendVisible++;
  return visible;
}

const FRIEND_VISIBLE_ALTER_BITS =
  AlterPrivacy.visible | AlterPrivacy.name | AlterPrivacy.username | AlterPrivacy.description | AlterPrivacy.pronouns | AlterPrivacy.avatar;
const FRIEND_VISIBLE_TAG_BITS = TagPrivacy.visible | TagPrivacy.name | TagPrivacy.description | TagPrivacy.icon | TagPrivacy.color | TagPrivacy.members;

// ---------------------------------------------------------------------------------------------
// The reader

/**
 * A member's `pkId` (§4.2, §7.2): the PluralKit member id it is linked to, five or six letters
 * (PluralKit's ids are lower case; one typed by hand may not be), else null (`""`, or not an id).
 */
export function pluralKitIdOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().toLowerCase();
  return /^[a-z]{5,6}$/.test(id) ? id : null;
}

/** `sp-<id>` when a name leaves no username. */
function spFallbackUsername(id: string): string {
  const candidate = `sp-${id}`.slice(0, NAME_MAX);
  return Username.safeParse(candidate).success ? candidate : 'sp-member';
}

/** What a file's kinds without a counterpart here are called in `notImported`, and which collections they count. */
const NOT_IMPORTED: Array<[string, string[]]> = [
  ['notes', ['notes']],
  ['boardMessages', ['boardMessages']],
  ['polls', ['polls']],
  ['reminders', ['automatedReminders', 'repeatedReminders']],
  ['chatMessages', ['chatMessages']],
  ['friends', ['friends']],
];

/** Simply Plural's custom-field types (§4.6) to profile field kinds; the rest become text. */
function fieldKind(type: unknown, markdown: boolean): { kind: ProfileFieldKind; sourceKind: string | null } {
  const number = typeof type === 'string' && /^\d+$/.test(type) ? Number(type) : type;
  switch (number) {
    case 0:
      return { kind: markdown ? 'markdown' : 'text', sourceKind: null };
    case 1:
      return { kind: 'colour', sourceKind: null };
    case 2:
      return { kind: 'date', sourceKind: null };
    case 7:
      return { kind: 'month-day', sourceKind: null };
    case 3:
      return { kind: 'text', sourceKind: 'month' };
    case 4:
      return { kind: 'text', sourceKind: 'year' };
    case 5:
      return { kind: 'text', sourceKind: 'month and year' };
    case 6:
      return { kind: 'text', sourceKind: 'timestamp' };
    default:
      return { kind: markdown ? 'markdown' : 'text', sourceKind: `type ${JSON.stringify(type ?? null).slice(0, 20)}` };
  }
}

/** A custom-field value in its field's kind; null when it does not read as one (then kept as text). */
export function fieldValue(kind: ProfileFieldKind, raw: string, notes: Notes): string | null {
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(raw);
  switch (kind) {
    case 'date':
      return date ? `${date[1]}-${date[2]}-${date[3]}` : null;
    case 'month-day':
      return date ? `--${date[2]}-${date[3]}` : /^--\d{2}-\d{2}$/.test(raw) ? raw : null;
    case 'colour':
      return spColor(raw, notes, 'custom field colour', null);
    default:
      return raw;
  }
}

export function readSimplyPlural(file: unknown, options: ImportReadOptions): ImportSource {
  const notes = new Notes();
  const skipped: SkippedEntity[] = [];
  const skip = (entity: Omit<SkippedEntity, 'source'>) => skipped.push({ source: 'simplyplural', ...entity });
  const notImported: Record<string, number> = {};
  const count = (kind: string, n: number) => {
    if (n > 0) notImported[kind] = (notImported[kind] ?? 0) + n;
  };

  let collections: Json;
  if (Array.isArray(file)) {
    collections = collectionsOfArray(file);
    notes.once('this is a Simply Plural export from 2022, whose documents do not say what they are: members, custom fronts, groups and front history were told apart by their shape, which is a guess. Check the result (a preview changes nothing)');
  } else if (isObject(file)) {
    collections = file;
  } else {
    throw new Problem('invalid-import', 'the file is JSON but not a Simply Plural export');
  }

  for (const [key, what] of [['members', 'members'], ['frontStatuses', 'custom fronts'], ['groups', 'groups']] as const) {
    const n = arrayOf(collections[key]).length;
    if (n > MAX_FILE_ENTITIES) throw new Problem(key === 'groups' ? 'too-many-entries' : 'too-many-alters', `the file has ${n} ${what}; no system can hold more than ${MAX_FILE_ENTITIES}`);
  }
  const users = listOf(collections, 'users');
  const user = users[0] ?? {};
  const sourceSystemId = docId(user._id) ?? docId(user.uid) ?? docId(listOf(collections, 'members')[0]?.uid) ?? '';
  const privacy: PrivacyRule = { friendBuckets: new Set(), friendsArePublic: options.friendsArePublic, friendVisible: 0 };
  {
    // Buckets friends hold: those granted to any friend, and the default "Friends" bucket.
    const buckets = privacy.friendBuckets as Set<string>;
    for (const friend of listOf(collections, 'friends')) for (const id of arrayOf(friend.buckets)) if (typeof id === 'string') buckets.add(id);
    for (const bucket of listOf(collections, 'privacyBuckets')) {
      const id = docId(bucket._id);
      if (id !== null && typeof bucket.name === 'string' && bucket.name.trim() === 'Friends') buckets.add(id);
    }
  }
  const alterBits = (doc: Json) => (friendVisible(doc, privacy) && privacy.friendsArePublic ? FRIEND_VISIBLE_ALTER_BITS : 0);
  const avatars: AvatarCount = { hosted: 0 };
  const mentions = { unknown: 0 };

  // Members first (mentions and references name them), then custom fronts.
  const memberDocs = unwrapApiShape(listOf(collections, 'members'), notes, 'members');
  const names = new Map<string, string>();
  const members: Array<{ doc: Json; id: string; name: string }> = [];
  let unnamed = 0;
  for (const doc of memberDocs) {
    const id = docId(doc._id);
    const rawName = typeof doc.name === 'string' ? doc.name : '';
    if (id === null) {
      skip({ id: typeof doc._id === 'string' ? doc._id : '', name: rawName, reason: 'no usable id' });
      continue;
    }
    if (names.has(id)) {
      skip({ id, name: rawName, reason: 'the file has an earlier member with the same id' });
      continue;
    }
    let name = normaliseText(doc.name, { max: NAME_MAX, what: 'member name' }, notes, id);
    if (name === null) {
      unnamed++;
      name = 'Unnamed member';
    }
    names.set(id, name);
    members.push({ doc, id, name });
  }
  if (unnamed > 0) notes.once(`${plural(unnamed, 'member')} had no name and ${unnamed === 1 ? 'was' : 'were'} named "Unnamed member"`);

  const customFronts: Array<{ doc: Json; id: string; name: string }> = [];
  const customIds = new Set<string>();
  for (const doc of unwrapApiShape(listOf(collections, 'frontStatuses'), notes, 'custom fronts')) {
    const id = docId(doc._id);
    const rawName = typeof doc.name === 'string' ? doc.name : '';
    if (id === null || names.has(id) || customIds.has(id)) {
      const reason = id === null ? 'a custom front without a usable id' : 'a custom front with the id of an earlier member or custom front';
      skip({ id: typeof doc._id === 'string' ? doc._id : '', name: rawName, reason });
      continue;
    }
    const name = normaliseText(doc.name, { max: NAME_MAX, what: 'custom front name' }, notes, id) ?? 'Unnamed custom front';
    customIds.add(id);
    customFronts.push({ doc, id, name });
  }
  const importCustomFronts = options.customFronts === 'import';
  if (importCustomFronts) for (const front of customFronts) names.set(front.id, front.name);
  else count('customFronts', customFronts.length);

  const text = (value: unknown, max: number, what: string, owner: string | null) =>
    normaliseText(rewriteMentions(value, names, mentions), { max, what }, notes, owner);

  // Alters
  const alters: SourceAlter[] = [];
  let archived = 0;
  const toAlter = ({ doc, id, name }: { doc: Json; id: string; name: string }, what: 'member' | 'custom front'): SourceAlter => ({
    id,
    uuid: null,
    name,
    username: deriveUsername(name) ?? spFallbackUsername(id),
    displayName: name,
    description: text(doc.desc, DESCRIPTION_MAX, `${what} description`, name),
    pronouns: what === 'member' ? text(doc.pronouns, NAME_MAX, 'member pronouns', name) : null,
    color: spColor(doc.color, notes, `${what} colour`, name),
    avatarUrl: spAvatar(doc, avatars, notes, `${what} avatar`, name),
    public: alterBits(doc),
    createdAt: null,
    lastMessageAt: null,
    messageCount: 0,
    proxyTags: [],
    keepProxy: null,
  });
  let staleLinks = 0;
  for (const member of members) {
    if (member.doc.archived === true) archived++;
    const alter = toAlter(member, 'member');
    const pluralKitId = pluralKitIdOf(member.doc.pkId);
    if (pluralKitId !== null) alter.pluralKitId = pluralKitId;
    else if (typeof member.doc.pkId === 'string' && member.doc.pkId.trim() !== '') staleLinks++;
    alters.push(alter);
  }
  if (staleLinks > 0) notes.once(`${plural(staleLinks, 'member')} named a PluralKit member id that is not one (five or six letters) and ${staleLinks === 1 ? 'was' : 'were'} not linked to PluralKit`);
  if (archived > 0) notes.once(`${plural(archived, 'archived member')} ${archived === 1 ? 'was' : 'were'} imported as ${archived === 1 ? 'an alter' : 'alters'} like the others (there is no archive here)`);
  const usableMembers = alters.length;
  if (importCustomFronts) for (const front of customFronts) alters.push(toAlter(front, 'custom front'));

  // Groups → tags: flat, the parent kept; cycles and missing parents made top level (P19).
  const tags: SourceTag[] = [];
  const groupParents = new Map<string, string | null>();
  let unknownMembers = 0;
  const alterIds = new Set(alters.map((alter) => alter.id));
  const groupIds = new Set<string>();
  for (const doc of unwrapApiShape(listOf(collections, 'groups'), notes, 'groups')) {
    const id = docId(doc._id);
    const rawName = typeof doc.name === 'string' ? doc.name : '';
    if (id === null || groupIds.has(id)) {
      skip({ id: typeof doc._id === 'string' ? doc._id : '', name: rawName, reason: id === null ? 'no usable group id' : 'the file has an earlier group with the same id' });
      continue;
    }
    const name = normaliseText(doc.name, { max: NAME_MAX, what: 'group name' }, notes, id);
    const refused = name === null ? undefined : TagName.safeParse(name);
    if (name === null || refused?.success === false) {
      skip({ id, name: rawName, reason: name === null ? 'a group without a name' : 'a name a group cannot have here' });
      continue;
    }
    groupIds.add(id);
    const memberIds = new Set<string>();
    for (const member of arrayOf(doc.members)) {
      if (typeof member === 'string' && alterIds.has(member)) memberIds.add(member);
      else unknownMembers++;
    }
    const emoji = typeof doc.emoji === 'string' ? doc.emoji.trim() : '';
    const parent = typeof doc.parent === 'string' && doc.parent !== '' && doc.parent !== 'root' ? doc.parent : null;
    groupParents.set(id, parent);
    tags.push({
      id,
      uuid: null,
      name,
      displayName: emoji === '' ? null : clampGraphemes(`${emoji} ${name}`, NAME_MAX),
      description: text(doc.desc, DESCRIPTION_MAX, 'group description', name),
      color: spColor(doc.color, notes, 'group colour', name),
      icon: null,
      public: friendVisible(doc, privacy) && privacy.friendsArePublic ? FRIEND_VISIBLE_TAG_BITS : 0,
      memberIds: [...memberIds],
    });
  }
  const parents = resolveParents(groupParents, notes);
  for (const tag of tags) tag.parentId = parents.get(tag.id) ?? null;
  if (unknownMembers > 0) notes.once(`${plural(unknownMembers, 'group membership')} named members not in the file (deleted, or skipped) and ${unknownMembers === 1 ? 'was' : 'were'} left out`);
  if (importCustomFronts && customFronts.length > 0) {
    const description = 'Custom fronts imported from Simply Plural: fronting states such as "Blurry" or "Asleep".';
    tags.push({ id: CUSTOM_FRONTS_TAG_ID, uuid: null, name: CUSTOM_FRONTS_TAG_NAME, description, public: 0, memberIds: customFronts.map((front) => front.id) });
  }

  // The system (§7.1): SP's only name is the account's username.
  const system: SourceSystem = { public: 0 };
  const systemName = text(user.username, NAME_MAX, 'system name', null);
  if (systemName !== null) system.name = systemName;
  if ('desc' in user) system.description = text(user.desc, DESCRIPTION_MAX, 'system description', null);
  if ('color' in user) system.color = spColor(user.color, notes, 'system colour', null);
  if ('avatarUuid' in user || 'avatarUrl' in user) system.avatar = spAvatar(user, avatars, notes, 'system avatar', null);
  const location = listOf(collections, 'private')[0]?.location;
  if (typeof location === 'string' && location.trim() !== '') {
    if (isTimeZone(location.trim())) system.timezone = location.trim() === 'UTC' ? null : location.trim();
    else notes.once(`the time zone ${JSON.stringify(location.slice(0, 64))} is not one we know and was ignored`);
  }

  const profileFields = readCustomFields(collections, user, members, names, mentions, privacy, notes);
  // Each member's values on its alter, keyed by the file's field id (the planner matches fields by name).
  const alterById = new Map(alters.map((alter) => [alter.id, alter]));
  for (const { alterId, fieldId, value } of profileFields.values) {
    const alter = alterById.get(alterId);
    if (alter) (alter.profileFields ??= {})[fieldId] = value;
  }

  // Front history
  const history = readFrontHistory(collections, alterIds, customIds, options, notes);
  count('frontHistoryIntervals', history.dropped);
  count('customStatuses', history.customStatuses);

  // What is left out, counted by kind: the documents themselves are never read.
  for (const [kind, keys] of NOT_IMPORTED) count(kind, keys.reduce((sum, key) => sum + arrayOf(collections[key]).length, 0));
  const comments = arrayOf(collections.comments).length;
  // Legacy embedded comments were copied into `comments` (migration 150): count one or the other.
  count('comments', comments > 0 ? comments : listOf(collections, 'frontHistory').reduce((sum, row) => sum + arrayOf(row.comments).length, 0));
  count('avatarsOnSimplyPluralHost', avatars.hosted);
  if (avatars.hosted > 0) {
    notes.once(`${plural(avatars.hosted, 'avatar')} ${avatars.hosted === 1 ? 'was' : 'were'} uploaded to Simply Plural's image host, which is gone, and ${avatars.hosted === 1 ? 'was' : 'were'} not imported (nothing is fetched): set them again, for example from the avatar ZIP of the export email`);
  }
  if (mentions.unknown > 0) notes.once(`${plural(mentions.unknown, 'mention')} named a member not in the file and became "@(deleted member)"`);
  if (privacy.friendVisible > 0) {
    notes.once(
      privacy.friendsArePublic
        ? `${plural(privacy.friendVisible, 'member, custom front, group or field', 'members, custom fronts, groups and fields')} that friends could see in Simply Plural ${privacy.friendVisible === 1 ? 'was' : 'were'} made public (friendsArePublic=true)`
        : `${plural(privacy.friendVisible, 'member, custom front, group or field', 'members, custom fronts, groups and fields')} that friends could see in Simply Plural ${privacy.friendVisible === 1 ? 'was' : 'were'} imported private, as everything else (friendsArePublic=true makes them public)`,
    );
  }

  if (usableMembers === 0) {
    const why = memberDocs.length === 0
      ? Array.isArray(file) ? 'no document of the file looks like a member' : 'its "members" list is missing or empty'
      : `none of its ${plural(memberDocs.length, 'member')} has a usable id (${skipped.slice(0, 3).map((s) => s.reason).join('; ')})`;
    throw new Problem('invalid-import', `this Simply Plural export has no member to import: ${why}. Nothing was imported`);
  }

  return {
    format: 'simplyplural',
    source: 'simplyplural',
    sourceSystemId,
    system,
    alters,
    tags,
    switches: history.switches,
    skipped,
    warnings: notes.list(),
    notImported,
    profileFields: profileFields.definitions.map((field): SourceProfileField => ({ id: field.id, name: field.name, kind: field.kind, privacy: field.public ? 'everyone' : 'owner' })),
  };
}

/**
 * Each group's parent after breaking cycles and dropping missing parents (P19): the walk from a
 * group follows parents until a group already settled, the top, or a group of its own path (a
 * cycle, broken at the group that closes it). Every group is walked once: linear.
 */
export function resolveParents(parents: ReadonlyMap<string, string | null>, notes: Notes): Map<string, string | null> {
  const settled = new Map<string, string | null>();
  let missing = 0;
  let cycles = 0;
  for (const start of parents.keys()) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let current: string | null = start;
    while (current !== null && !settled.has(current)) {
      path.push(current);
      onPath.add(current);
      const parent: string | null = parents.get(current) ?? null;
      if (parent !== null && !parents.has(parent)) {
        missing++;
        settled.set(current, null);
        break;
      }
      if (parent !== null && onPath.has(parent)) {
        cycles++;
        settled.set(current, null);
        break;
      }
      current = parent;
    }
    for (const id of path) if (!settled.has(id)) settled.set(id, parents.get(id) ?? null);
  }
  if (missing > 0) notes.once(`${plural(missing, 'group')} named a parent group not in the file and ${missing === 1 ? 'was' : 'were'} taken as top level`);
  if (cycles > 0) notes.once(`${plural(cycles, 'loop')} of groups each other's parents ${cycles === 1 ? 'was' : 'were'} broken: one group of each was taken as top level`);
  return settled;
}

/** A custom field as read, before it becomes the source model's (which says privacy in our levels). */
interface SpField {
  id: string;
  name: string;
  kind: ProfileFieldKind;
  /** The file's own kind when it had no counterpart (e.g. "timestamp"), else null. */
  sourceKind: string | null;
  order: number;
  /** Whether others may see the values (friends could, and friendsArePublic=true). */
  public: boolean;
}

/** A member's value of a custom field, in the field's kind, mentions rewritten to names. */
interface SpFieldValue {
  alterId: string;
  fieldId: string;
  value: string;
}

function readCustomFields(
  collections: Json,
  user: Json,
  members: Array<{ doc: Json; id: string }>,
  names: ReadonlyMap<string, string>,
  mentions: { unknown: number },
  privacy: PrivacyRule,
  notes: Notes,
): { definitions: SpField[]; values: SpFieldValue[] } {
  // The current generation when there is one (§4.6); else the legacy map on the user.
  const current = listOf(collections, 'customFields');
  const raw: Array<{ id: string; doc: Json }> = [];
  if (current.length > 0) {
    for (const doc of current) {
      const id = docId(doc._id);
      if (id !== null) raw.push({ id, doc });
    }
  } else if (isObject(user.fields)) {
    for (const [id, doc] of Object.entries(user.fields)) if (isObject(doc) && docId(id) !== null) raw.push({ id, doc });
  }
  const orderKey = (doc: Json) => (typeof doc.order === 'number' ? doc.order.toString().padStart(20, '0') : typeof doc.order === 'string' ? doc.order : '');
  raw.sort((a, b) => (orderKey(a.doc) < orderKey(b.doc) ? -1 : orderKey(a.doc) > orderKey(b.doc) ? 1 : 0));
  const definitions: SpField[] = [];
  const seen = new Set<string>();
  const usedNames = new Set<string>();
  let converted = 0;
  const overLimit = new Set<string>();
  for (const { id, doc } of raw) {
    if (seen.has(id)) continue;
    if (definitions.length >= MAX_PROFILE_FIELDS) {
      overLimit.add(id);
      continue;
    }
    const name = normaliseText(doc.name, { max: NAME_MAX, what: 'custom field name' }, notes, id);
    if (name === null) {
      notes.add('field-no-name', id, (n) => `${plural(n, 'custom field')} without a name ${n === 1 ? 'was' : 'were'} left out`);
      continue;
    }
    seen.add(id);
    const { kind, sourceKind } = fieldKind(doc.type, doc.supportMarkdown === true);
    if (sourceKind !== null) converted++;
    let unique = name;
    for (let n = 2; usedNames.has(unique.toLowerCase()); n++) unique = `${clampGraphemes(name, NAME_MAX - 4)} ${n}`;
    usedNames.add(unique.toLowerCase());
    const visible = Array.isArray(doc.buckets) || 'private' in doc ? friendVisible(doc, privacy) : false;
    definitions.push({ id, name: unique, kind, sourceKind, order: definitions.length, public: visible && privacy.friendsArePublic });
  }
  if (overLimit.size > 0) {
    const n = overLimit.size;
    notes.once(`${plural(n, 'custom field')} past the first ${MAX_PROFILE_FIELDS} (a system holds at most ${MAX_PROFILE_FIELDS}) ${n === 1 ? 'was' : 'were'} left out, with ${n === 1 ? 'its' : 'their'} values`);
  }
  if (converted > 0) notes.once(`${plural(converted, 'custom field')} of a kind with no counterpart here (month, year, month and year, timestamp) will be text fields`);
  const byId = new Map(definitions.map((definition) => [definition.id, definition]));
  const values: SpFieldValue[] = [];
  let orphans = 0;
  let unreadable = 0;
  for (const { doc, id: alterId } of members) {
    if (!isObject(doc.info)) continue;
    for (const [fieldId, value] of Object.entries(doc.info)) {
      if (value === null || value === undefined || value === '') continue;
      const definition = byId.get(fieldId);
      if (!definition) {
        if (!overLimit.has(fieldId)) orphans++;
        continue;
      }
      const rawText = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
      if (rawText === null) {
        unreadable++;
        continue;
      }
      const rewritten = rewriteMentions(rawText, names, mentions) as string;
      const textValue = normaliseText(rewritten, { max: DESCRIPTION_MAX, what: 'custom field value' }, notes, names.get(alterId) ?? alterId);
      if (textValue === null) continue;
      const typed = fieldValue(definition.kind, textValue, notes);
      if (typed === null) unreadable++;
      else values.push({ alterId, fieldId, value: typed });
    }
  }
  if (orphans > 0) notes.once(`${plural(orphans, 'custom field value')} named a field not in the file (deleted) and ${orphans === 1 ? 'was' : 'were'} left out`);
  if (unreadable > 0) notes.once(`${plural(unreadable, 'custom field value')} did not read as ${unreadable === 1 ? 'its' : 'their'} field's kind (a date, a colour) and ${unreadable === 1 ? 'was' : 'were'} left out`);
  return { definitions, values };
}

// ---------------------------------------------------------------------------------------------
// Front history → switches (§7.4)

interface Interval {
  start: number;
  end: number;
}

/**
 * Front-history rows to switches: each row resolved (members, then custom fronts: `custom` is a
 * hint only), made an interval (live rows open, swapped ends swapped, rows without an end or out
 * of range left out), merged per subject, then swept in time order: a switch wherever the set of
 * fronters changes, `[]` when it empties. Every rule's count goes to the report.
 */
export function readFrontHistory(
  collections: Json,
  alterIds: ReadonlySet<string>,
  customIds: ReadonlySet<string>,
  options: Pick<ImportReadOptions, 'customFronts' | 'now'>,
  notes: Notes,
): { switches: SourceSwitch[]; dropped: number; customStatuses: number } {
  let rows = listOf(collections, 'frontHistory');
  if (rows.length === 0) {
    // Before 2022 the current fronters lived here alone (§4.16): open intervals.
    rows = listOf(collections, 'fronters').map((doc) => ({ member: doc._id, startTime: doc.startTime, live: true }));
  }
  if (rows.length > MAX_FRONT_HISTORY_ROWS) {
    throw new Problem('too-many-entries', `the file has ${rows.length.toLocaleString('en-US')} front-history entries; at most ${MAX_FRONT_HISTORY_ROWS.toLocaleString('en-US')} can be read`);
  }
  const latest = options.now + DAY;
  const stats = { dangling: 0, customLeftOut: 0, noStart: 0, noEnd: 0, swapped: 0, zero: 0, outOfRange: 0, overlaps: 0, capped: 0, statuses: 0 };
  const strings = { strings: 0 };
  const bySubject = new Map<string, Interval[]>();
  for (const row of rows) {
    const subject = typeof row.member === 'string' ? row.member : null;
    if (subject === null || !alterIds.has(subject)) {
      if (subject !== null && customIds.has(subject) && options.customFronts === 'skip') stats.customLeftOut++;
      else stats.dangling++;
      continue;
    }
    let start = spTime(row.startTime, strings);
    if (start === null) {
      stats.noStart++;
      continue;
    }
    let end: number | null;
    if (row.live === true) end = Number.POSITIVE_INFINITY;
    else {
      end = spTime(row.endTime, strings);
      if (end === null) {
        stats.noEnd++;
        continue;
      }
    }
    if (end < start) {
      [start, end] = [end, start];
      stats.swapped++;
    }
    if (end === start) {
      stats.zero++;
      continue;
    }
    if (start < EARLIEST || start > latest || (Number.isFinite(end) && end > latest)) {
      stats.outOfRange++;
      continue;
    }
    if (typeof row.customStatus === 'string' && row.customStatus.trim() !== '') stats.statuses++;
    const list = bySubject.get(subject);
    if (list) list.push({ start, end });
    else bySubject.set(subject, [{ start, end }]);
  }

  // Merge each subject's overlapping or touching intervals; then one event list for the sweep.
  const events: Array<{ at: number; subject: string; start: boolean }> = [];
  for (const [subject, intervals] of bySubject) {
    intervals.sort((a, b) => a.start - b.start);
    let current = intervals[0] as Interval;
    const flush = () => {
      events.push({ at: current.start, subject, start: true });
      if (Number.isFinite(current.end)) events.push({ at: current.end, subject, start: false });
    };
    for (let i = 1; i < intervals.length; i++) {
      const next = intervals[i] as Interval;
      if (next.start <= current.end) {
        if (next.start < current.end) stats.overlaps++;
        current = { start: current.start, end: Math.max(current.end, next.end) };
      } else {
        flush();
        current = next;
      }
    }
    flush();
  }
  // By time, then subject: a subject starting is appended to `active` (a Map keeps insertion order),
  // so the fronters are always in the order of their start, then id, without sorting them per switch
  // (2,000 open intervals and 100,000 short ones made that quadratic).
  events.sort((a, b) => a.at - b.at || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));

  const switches: SourceSwitch[] = [];
  const active = new Set<string>();
  for (let i = 0; i < events.length; ) {
    const at = (events[i] as (typeof events)[number]).at;
    // Every event of one millisecond together: a stint ending as another starts is one switch. A
    // subject's merged intervals never touch, so every instant changes who fronts.
    for (; i < events.length && (events[i] as (typeof events)[number]).at === at; i++) {
      const event = events[i] as (typeof events)[number];
      if (event.start) active.add(event.subject);
      else active.delete(event.subject);
    }
    if (active.size === 0 && switches.length === 0) continue;
    if (active.size > MAX_SWITCH_MEMBERS) stats.capped++;
    const members: string[] = [];
    for (const subject of active) {
      if (members.length === MAX_SWITCH_MEMBERS) break;
      members.push(subject);
    }
    switches.push({ at, memberIds: members });
  }
  if (switches.length > MAX_IMPORT_SWITCHES) {
    throw new Problem('too-many-entries', `the front history makes ${switches.length.toLocaleString('en-US')} switches; at most ${MAX_IMPORT_SWITCHES.toLocaleString('en-US')} can be imported`);
  }

  const say = (n: number, what: string) => {
    if (n > 0) notes.once(`front history: ${plural(n, 'entry', 'entries')} ${what}`);
  };
  say(stats.dangling, 'named a member or custom front not in the file (deleted in Simply Plural) and were left out');
  say(stats.customLeftOut, 'of custom fronts were left out (customFronts=skip): their time is a gap, or a switch-out');
  say(stats.noStart, 'had no usable start time and were left out');
  say(stats.noEnd, 'were over but had no end time and were left out (no end is invented)');
  say(stats.swapped, 'ended before they started; their ends were swapped');
  say(stats.zero, 'lasted no time and were left out');
  say(stats.outOfRange, 'were before 2015 or in the future and were left out');
  say(strings.strings, 'had times written as text, which were read as times');
  say(stats.overlaps, 'overlapped an earlier entry of the same member and were merged with it');
  if (stats.capped > 0) notes.once(`front history: ${plural(stats.capped, 'switch', 'switches')} with more than ${MAX_SWITCH_MEMBERS} fronters kept the first ${MAX_SWITCH_MEMBERS}`);
  if (stats.statuses > 0) notes.once(`front history: ${plural(stats.statuses, 'custom status', 'custom statuses')} of entries ${stats.statuses === 1 ? 'was' : 'were'} not imported (switches here have none)`);
  const dropped = stats.dangling + stats.customLeftOut + stats.noStart + stats.noEnd + stats.zero + stats.outOfRange;
  return { switches, dropped, customStatuses: stats.statuses };
}
