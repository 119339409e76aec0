// The one place where privacy is decided. Every read path asks this module what a viewer may load
// (so lists and pages are filtered in the query, and paging stays right) and then turns stored
// records into what the viewer may see. Nothing else in the code base reads the `public` bits: the
// queries filter on the same definitions (the visible bits and `hasBits` below), which
// db/privacy-conditions.ts only spells in SQL.
//
// Rules (a set bit shows that part to other users; owners always see everything):
// - An alter exists for another viewer only when the system shows its alters (system bit 64) and
//   the alter has its visible bit (1). Otherwise it is absent from lists and 404 on direct reads.
// - Hidden fields come back null (maps and lists empty) and are named in `redacted`.
// - Per-server maps, integration fields, flags, the system's settings and which apps made a switch
//   are the owner's alone. A system's other Discord accounts (`subAccounts`) have their own
//   system bit (256), private by default. Every account of a system is its owner here
//   (Viewer.systemId). Proxy tags have their own bit (64: a tag like `alpha:` names the alter);
//   the color goes with the avatar bit (32: how the alter looks). For the fields an owner sets on an
//   alter, each field's row in ALTER_FIELDS (alter.ts) says which bit shows it; viewAlter applies it.
// - Integration fields are shown only to the client that wrote them, on the owner's reads.
// - A tag exists for another viewer only when the system shows its tags (system bit 128) and the
//   tag has its visible bit (1); its fields follow its own bits.
// - A custom profile field's value follows its field's `privacy` (profile-fields.ts): the owner's
//   alone, everyone who sees the alter, or an alter bit's (shown where the alter shows that). Others
//   read only the values they may see (the query filters them) and never learn of the others; the
//   definitions of fields only the owner sees are not listed to them either.
// - That an alter is in a tag is shown to others only when both sides show it: the system shows
//   its alters and its tags (64, 128), the alter is visible and shows its tags (1, 128), and the
//   tag is visible and shows its members (1, 32). The alter's `tagIds` and the tag's `alterIds`
//   are the same pairs seen from either end.
import { ALTER_FIELDS, Alter, type AlterRecord } from './alter.js';
import { hiddenAs, hiddenValue, type FieldGroup, type Shown } from './fields.js';
import { toAutoproxy } from './autoproxy.js';
import type { Switch, SwitchRecord } from './front.js';
import { AlterPrivacy, SystemPrivacy, TagPrivacy } from './privacy-bits.js';
import type { MessageInfo, ProxiedMessageRecord, SystemSummary } from './proxied-message.js';
import { toProxiedMessage } from './proxied-message.js';
import { SYSTEM_FIELDS, type System, type SystemDetails, type SystemRecord } from './system.js';
import { TAG_FIELDS, type Tag, type TagRecord } from './tag.js';
import { fieldShown, type ProfileField, type ProfileFieldPrivacy, type ProfileFieldRecord, type ProfileFieldValueRecord } from './profile-fields.js';

/** Who is reading: the token's user (null for a client acting as itself) and client. */
export interface Viewer {
  userId: string | null;
  clientId: string;
  /**
   * The viewer's own system, as far as ownership needs it: the /v1 path sets it to the system being
   * read when that system is theirs and to null otherwise, without a lookup of its own.
   */
  systemId: number | null;
  /**
   * The token's scopes. A scope bounds what an answer may hold, whatever its route needs: an alter
   * record only with `alters:read`, a system profile only with `system:read`. Without them an answer
   * names alters by id, as the consent page promises (the front with `system:read`, message info
   * with `messages:read`).
   */
  scopes: ReadonlySet<string>;
}

/** Every bit of `bits` is set in `mask`: the one test the filter makes (in SQL: db/privacy-conditions.ts). */
export const hasBits = (mask: number, bits: number) => (mask & bits) === bits;
const has = hasBits;

/** The bit that makes an alter exist for other viewers (with the system's alters bit). */
export const ALTER_VISIBLE_BIT = AlterPrivacy.visible;
/** The bit that makes a tag exist for other viewers (with the system's tags bit). */
export const TAG_VISIBLE_BIT = TagPrivacy.visible;

export function isOwner(viewer: Viewer, systemId: number): boolean {
  return viewer.systemId !== null && viewer.systemId === systemId;
}

/** The token may read alter records (`alters:read`); without it, answers name alters by id only. */
export function readsAlters(viewer: Viewer): boolean {
  return viewer.scopes.has('alters:read');
}

/** The token may read system profiles (`system:read`). */
export function readsSystems(viewer: Viewer): boolean {
  return viewer.scopes.has('system:read');
}

/**
 * Whether the alter exists for this viewer, so that its id may be named: always for the owner,
 * for others when the system shows its alters and the alter is visible. Scopes play no part here:
 * an id is what a token without `alters:read` gets instead of the record.
 */
export function alterExistsFor(alterPublic: number, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): boolean {
  return isOwner(viewer, system.id) || (has(system.public, SystemPrivacy.alters) && has(alterPublic, ALTER_VISIBLE_BIT));
}

/** Whether another viewer may see the system's alters at all (lists, alter reads, the front). */
export function showsAlters(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): boolean {
  return isOwner(viewer, system.id) || has(system.public, SystemPrivacy.alters);
}

export interface AlterLoadPolicy {
  /** Only alters with the visible bit: the query filters them, so paging counts only those. */
  onlyVisible: boolean;
  /** The one client whose integration field may be loaded, or null for none. */
  fieldsFor: string | null;
  /**
   * Every field is loaded (the owner's reads); false: only what the viewer may be shown (fields
   * shown to the owner alone are not read, those behind an alter bit only where it is set).
   */
  allFields: boolean;
  /**
   * false: the custom profile field values are not read (the records' are empty), for reads whose
   * answer holds no alter record (the proxy profile, an import's target). Default: read.
   */
  profileFields?: boolean;
}

/** What to load for reads of a system's alters, or undefined when the viewer may not see them. */
export function alterLoadPolicy(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): AlterLoadPolicy | undefined {
  if (isOwner(viewer, system.id)) return { onlyVisible: false, fieldsFor: viewer.clientId, allFields: true };
  if (!has(system.public, SystemPrivacy.alters)) return undefined;
  return { onlyVisible: true, fieldsFor: null, allFields: false };
}

/** One stored field of a table and its rule: `name` in the record, `key` in the answer. */
interface FieldRule {
  name: string;
  key: string;
  rule: Shown;
  hidden: ReturnType<typeof hiddenAs>;
}

/** The rules of a group of a field table (ALTER_FIELDS, SYSTEM_FIELDS, TAG_FIELDS), worked out once: views run for every record read. */
function rulesOf(group: FieldGroup): FieldRule[] {
  return Object.entries(group).map(([name, field]) => {
    const key = (field as { key?: string }).key ?? name;
    return { name, key, rule: field.shown, hidden: hiddenAs(field) };
  });
}

const ALTER_RULES = new Map<FieldGroup, FieldRule[]>(Object.values(ALTER_FIELDS).map((group: FieldGroup) => [group, rulesOf(group)]));
const SYSTEM_RULES = { profile: rulesOf(SYSTEM_FIELDS.profile), settings: rulesOf(SYSTEM_FIELDS.settings), state: rulesOf(SYSTEM_FIELDS.state) };
const TAG_RULES = rulesOf(TAG_FIELDS);

// Every view starts as a copy of this object, which has the answer's keys in its order: views of one
// shape fill several times faster than objects assembled from parts (a list page has 250), and
// events, sent as JSON.stringify of the view, list the keys as the API's answers do.
const VIEW_TEMPLATE = Object.fromEntries(Object.keys(Alter.shape).map((key) => [key, null])) as unknown as Alter;

/** Whether this viewer sees a field under `rule` on a record with these bits. */
function shows(rule: Shown, bits: number, owner: boolean): boolean {
  return owner || rule === 'everyone' || (rule !== 'owner' && has(bits, rule));
}

/** Sets the fields of `rules` on `view` as the viewer may see them, naming the hidden ones in `redacted`. */
function viewFields(view: object, rules: readonly FieldRule[], record: object, bits: number, owner: boolean, redacted: string[]): void {
  const fields = view as Record<string, unknown>;
  const values = record as Record<string, unknown>;
  for (const { name, key, rule, hidden } of rules) {
    if (shows(rule, bits, owner)) {
      fields[key] = values[name];
    } else {
      fields[key] = hiddenValue(hidden);
      redacted.push(key);
    }
  }
}

/** Sets the group's fields of `view` as the viewer may see them, naming the hidden ones in `redacted`. */
function viewStored(view: Alter, group: FieldGroup, alter: AlterRecord, owner: boolean, redacted: string[]): void {
  viewFields(view, ALTER_RULES.get(group) ?? [], alter, alter.public, owner, redacted);
}

/**
 * The alter as this viewer may see it, or undefined when it does not exist for them or their token
 * may not read alter records (no `alters:read`): every answer that holds an alter record is made
 * here, so none can hold one the token's scopes do not cover.
 */
export function viewAlter(alter: AlterRecord, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): Alter | undefined {
  if (!readsAlters(viewer) || !alterExistsFor(alter.public, system, viewer)) return undefined;
  return alterAnswer(alter, system, viewer, isOwner(viewer, system.id));
}

/**
 * The answer to an owner's write of an alter (create, edit), which the API answers with an Alter
 * for `alters:write` alone (as the origin does). With `alters:read` it is the owner's view; a
 * write-only token is shown no more than a stranger to a wholly private alter: its id, what every
 * viewer sees, and every other field hidden and named in `redacted`, so the write's answer is no
 * way to read what the token may not.
 */
export function writtenAlterView(alter: AlterRecord, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): Alter {
  return viewAlter(alter, system, viewer) ?? alterAnswer({ ...alter, public: 0, tags: [], profileFields: [] }, { ...system, public: 0 }, viewer, false);
}

function alterAnswer(alter: AlterRecord, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer, owner: boolean): Alter {
  const view = { ...VIEW_TEMPLATE };
  const redacted: string[] = [];
  function pick<T, H>(field: string, visible: boolean, value: T, hidden: H): T | H {
    if (visible) return value;
    redacted.push(field);
    return hidden;
  }
  const { identity, profile, proxying, settings } = ALTER_FIELDS;
  const messageStats = shows(AlterPrivacy.messageStats, alter.public, owner);
  const ownValue = owner ? alter.fields[viewer.clientId] : undefined;

  // In the answer's order, which is the order of `redacted` too.
  view.alterId = alter.id;
  view.systemId = String(alter.systemId);
  viewStored(view, identity, alter, owner, redacted);
  view.created = new Date(alter.createdAt).toISOString();
  viewStored(view, profile, alter, owner, redacted);
  view.lastMessageTimestamp = pick('lastMessageTimestamp', messageStats, alter.lastMessageAt === null ? null : new Date(alter.lastMessageAt).toISOString(), null);
  view.messageCount = pick('messageCount', messageStats, alter.messageCount, null);
  viewStored(view, proxying, alter, owner, redacted);
  view.tagIds = owner
    ? alter.tagIds
    : has(alter.public, AlterPrivacy.tags) && has(system.public, SystemPrivacy.tags)
      ? alter.tags.filter((tag) => membershipShown(system, alter.public, tag.public, viewer)).map((tag) => tag.id)
      : (redacted.push('tagIds'), []);
  viewStored(view, settings, alter, owner, redacted);
  view.fields = pick('fields', owner, ownValue === undefined ? {} : { [viewer.clientId]: ownValue }, {});
  view.profileFields = viewProfileFieldValues(alter.profileFields, alter.public, owner);
  view.redacted = redacted;
  return view;
}

/** Whether a viewer sees the values of a field with this privacy on an alter with these bits. */
export function profileFieldShown(privacy: ProfileFieldPrivacy, alterPublic: number, owner: boolean): boolean {
  return shows(fieldShown(privacy), alterPublic, owner);
}

/**
 * An alter's profile field values this viewer may see, keyed by field id. Hidden ones are left out
 * without being named: a field's existence is the owner's to tell (the query did not load them for
 * others anyway; this is the filter's own check).
 */
function viewProfileFieldValues(values: readonly ProfileFieldValueRecord[], alterPublic: number, owner: boolean): Record<string, string> {
  if (!Object.isFrozen(values)) return profileFieldValuesShown(values, alterPublic, owner);
  // A shared list (the lists' cache hands the same frozen one to every read of the alter:
  // db/repositories/profile-value-cache.ts): its view for each kind of viewer is made once, frozen,
  // and shared too, so the answers' serializer writes its text once (http/v1/serializer.ts).
  let views = sharedValueViews.get(values);
  if (views === undefined) sharedValueViews.set(values, (views = new Map()));
  const viewerKey = owner ? 'owner' : alterPublic;
  let view = views.get(viewerKey);
  if (view === undefined) views.set(viewerKey, (view = Object.freeze(profileFieldValuesShown(values, alterPublic, owner))));
  return view as Record<string, string>;
}

/** Views of frozen value lists: for the owner, or for others by the alter's bits (all the view depends on besides the list). */
const sharedValueViews = new WeakMap<readonly ProfileFieldValueRecord[], Map<'owner' | number, Readonly<Record<string, string>>>>();

function profileFieldValuesShown(values: readonly ProfileFieldValueRecord[], alterPublic: number, owner: boolean): Record<string, string> {
  const view: Record<string, string> = {};
  for (const { fieldId, value, privacy } of values) {
    if (owner || profileFieldShown(privacy, alterPublic, false)) view[fieldId] = value;
  }
  return view;
}

export interface ProfileFieldLoadPolicy {
  /** Only fields whose values someone besides the owner may see: the query filters them. */
  onlyShared: boolean;
}

/** What to load for reads of a system's profile field definitions, or undefined when the viewer may not see them (nor its alters). */
export function profileFieldLoadPolicy(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): ProfileFieldLoadPolicy | undefined {
  if (isOwner(viewer, system.id)) return { onlyShared: false };
  return has(system.public, SystemPrivacy.alters) ? { onlyShared: true } : undefined;
}

/**
 * A field definition as this viewer may see it, or undefined: the owner sees every field, others
 * those whose values anyone else may see, when the system shows its alters and the token reads
 * alter records (the definitions name what the alters hold).
 */
export function viewProfileField(field: ProfileFieldRecord, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): ProfileField | undefined {
  const policy = profileFieldLoadPolicy(system, viewer);
  if (!readsAlters(viewer) || policy === undefined || (policy.onlyShared && field.privacy === 'owner')) return undefined;
  return {
    fieldId: field.id,
    systemId: String(field.systemId),
    name: field.name,
    kind: field.kind,
    privacy: field.privacy,
    position: field.position,
    created: new Date(field.createdAt).toISOString(),
  };
}

/**
 * What sorting, filtering and searching a list of alters (domain/alter-list.ts) may look at for
 * this viewer: for each value, the alter bits that must be set for it to count (an alter that
 * hides it sorts as having none and never matches a search on it). Null for the owner, who sees
 * everything. Creation time and the front are shown to whoever sees the alter in a list.
 */
export interface AlterQueryPrivacy {
  username: number;
  displayName: number;
  description: number;
  messageStats: number;
  /** The alter's side of a tag membership (membershipShown); the tag's side is checked with the tag. */
  tagMembership: number;
}

const bitsOf = (rule: Shown): number => {
  if (rule === 'owner') throw new Error('an owner-only field is never sorted or searched by others');
  return rule === 'everyone' ? 0 : rule;
};

export function alterQueryPrivacy(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): AlterQueryPrivacy | null {
  if (isOwner(viewer, system.id)) return null;
  return {
    username: bitsOf(ALTER_FIELDS.identity.username.shown),
    displayName: bitsOf(ALTER_FIELDS.identity.displayName.shown),
    description: bitsOf(ALTER_FIELDS.identity.description.shown),
    messageStats: AlterPrivacy.messageStats,
    tagMembership: ALTER_VISIBLE_BIT | AlterPrivacy.tags,
  };
}

/** Whether another viewer may filter this system's alters by this tag: they see the tag and its members. */
export function tagFilterAllowed(system: Pick<SystemRecord, 'id' | 'public'>, tagPublic: number, viewer: Viewer): boolean {
  if (isOwner(viewer, system.id)) return true;
  return has(system.public, SystemPrivacy.alters | SystemPrivacy.tags) && has(tagPublic, TAG_VISIBLE_BIT | TagPrivacy.members);
}

/**
 * Whether another viewer may see that this alter is in this tag (both sides must show it). The
 * owner sees every membership.
 */
export function membershipShown(system: Pick<SystemRecord, 'id' | 'public'>, alterPublic: number, tagPublic: number, viewer: Viewer): boolean {
  if (isOwner(viewer, system.id)) return true;
  return (
    has(system.public, SystemPrivacy.alters | SystemPrivacy.tags) &&
    has(alterPublic, ALTER_VISIBLE_BIT | AlterPrivacy.tags) &&
    has(tagPublic, TAG_VISIBLE_BIT | TagPrivacy.members)
  );
}

/** Whether another viewer may see the system's tags at all (lists, tag reads). */
export function showsTags(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): boolean {
  return isOwner(viewer, system.id) || has(system.public, SystemPrivacy.tags);
}

export interface TagLoadPolicy {
  /** Only tags with the visible bit: the query filters them, so paging counts only those. */
  onlyVisible: boolean;
}

/** What to load for reads of a system's tags, or undefined when the viewer may not see them. */
export function tagLoadPolicy(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): TagLoadPolicy | undefined {
  if (isOwner(viewer, system.id)) return { onlyVisible: false };
  return has(system.public, SystemPrivacy.tags) ? { onlyVisible: true } : undefined;
}

/** The tag as this viewer may see it, or undefined when it does not exist for them. */
export function viewTag(tag: TagRecord, system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): Tag | undefined {
  const owner = isOwner(viewer, system.id);
  if (!owner && !(showsTags(system, viewer) && has(tag.public, TAG_VISIBLE_BIT))) return undefined;
  const redacted: string[] = [];
  const view: Record<string, unknown> = { tagId: tag.id, systemId: String(tag.systemId) };
  viewFields(view, TAG_RULES, tag, tag.public, owner, redacted);
  const members = owner || has(tag.public, TagPrivacy.members) ? tag.members.filter((alter) => membershipShown(system, alter.public, tag.public, viewer)) : (redacted.push('alterIds'), []);
  view.alterIds = members.map((alter) => alter.id);
  view.created = new Date(tag.createdAt).toISOString();
  view.redacted = redacted;
  return view as Tag;
}

export interface SystemLoadPolicy {
  /** Which alter ids to list: all (owner), only visible ones, or none. */
  alterIds: 'all' | 'visible' | 'none';
  /** Which tag ids to list, the same way. */
  tagIds: 'all' | 'visible' | 'none';
  /** Autoproxy entries are the owner's. */
  ownerDetails: boolean;
  /** The other accounts: the owner's, and others' when the system shows them (bit 256). */
  subAccounts: boolean;
}

/** Everything: the owner's view, which events store (domain/events.ts). */
export const OWNER_SYSTEM_LOAD: Readonly<SystemLoadPolicy> = Object.freeze({ alterIds: 'all', tagIds: 'all', ownerDetails: true, subAccounts: true });

export function systemLoadPolicy(system: Pick<SystemRecord, 'id' | 'public'>, viewer: Viewer): SystemLoadPolicy {
  if (isOwner(viewer, system.id)) return OWNER_SYSTEM_LOAD;
  return {
    alterIds: has(system.public, SystemPrivacy.alters) ? 'visible' : 'none',
    tagIds: has(system.public, SystemPrivacy.tags) ? 'visible' : 'none',
    ownerDetails: false,
    subAccounts: has(system.public, SystemPrivacy.subAccounts),
  };
}

/** The system as this viewer may see it. `details` must have been loaded with systemLoadPolicy. */
export function viewSystem(system: SystemRecord, details: SystemDetails, viewer: Viewer): System {
  const owner = isOwner(viewer, system.id);
  const policy = systemLoadPolicy(system, viewer);
  const redacted: string[] = [];
  function pick<T, H>(field: string, value: T, hidden: H): T | H {
    if (owner) return value;
    redacted.push(field);
    return hidden;
  }
  // In the answer's order, which is the order of `redacted` too.
  const view: Record<string, unknown> = { associatedUserId: system.userId };
  viewFields(view, SYSTEM_RULES.profile, system, system.public, owner, redacted);
  view.alterIds = policy.alterIds === 'none' ? (redacted.push('alterIds'), []) : details.alterIds;
  view.tagIds = policy.tagIds === 'none' ? (redacted.push('tagIds'), []) : details.tagIds;
  view.createdAt = new Date(system.createdAt).toISOString();
  view.systemAutoproxy = pick('systemAutoproxy', details.autoproxy.map(toAutoproxy), []);
  viewFields(view, SYSTEM_RULES.settings, system, system.public, owner, redacted);
  view.subAccounts = policy.subAccounts ? details.subAccounts : (redacted.push('subAccounts'), []);
  viewFields(view, SYSTEM_RULES.state, system, system.public, owner, redacted);
  view.redacted = redacted;
  return view as System;
}

/** The few system fields "message info" shows, as this viewer may see them. */
export function viewSystemSummary(system: SystemRecord, viewer: Viewer): SystemSummary {
  const owner = isOwner(viewer, system.id);
  const redacted: string[] = [];
  function pick<T>(field: string, bit: number, value: T): T | null {
    if (owner || has(system.public, bit)) return value;
    redacted.push(field);
    return null;
  }
  return {
    associatedUserId: system.userId,
    systemName: pick('systemName', SystemPrivacy.name, system.name),
    systemDisplayTag: pick('systemDisplayTag', SystemPrivacy.displayTag, system.displayTag),
    systemAvatar: pick('systemAvatar', SystemPrivacy.avatar, system.avatar),
    systemPronouns: pick('systemPronouns', SystemPrivacy.pronouns, system.pronouns),
    redacted,
  };
}

/**
 * "Message info": the sending account and the name the message was sent under always (moderation
 * needs them whatever the privacy settings, and everyone in the channel saw the name), the system
 * and alter as this viewer may see them and as far as the token's scopes reach: the system profile
 * with `system:read`, the alter record with `alters:read`, else only the alter's id.
 * `alter` is undefined when the alter is gone.
 */
export function viewMessage(message: ProxiedMessageRecord, system: SystemRecord, alter: AlterRecord | undefined, viewer: Viewer): MessageInfo {
  const owner = isOwner(viewer, system.id);
  const exists = alter !== undefined && alterExistsFor(alter.public, system, viewer);
  const redacted: string[] = [];
  const shown = alter && viewAlter(alter, system, viewer);
  if (exists && !shown) redacted.push('alter');
  if (!readsSystems(viewer)) redacted.push('system');
  return {
    ...toProxiedMessage(message),
    system: readsSystems(viewer) ? viewSystemSummary(system, viewer) : null,
    alterId: owner || exists ? message.alterId : null,
    alter: shown ?? null,
    alterDeleted: owner ? alter === undefined : exists ? false : null,
    systemDeleted: false,
    redacted,
  };
}

/**
 * A record whose system was deleted: who sent it, where and under which name (what moderators
 * need, and what the channel saw), nothing of a system or alter that no longer exist.
 */
export function viewMessageOfDeletedSystem(message: ProxiedMessageRecord): MessageInfo {
  return { ...toProxiedMessage(message), system: null, alterId: null, alter: null, alterDeleted: null, systemDeleted: true, redacted: [] };
}

/** Which apps made a system's switches (and each app's own front): the owner's to know, as it tells which apps they use. */
export function seesFrontSources(system: Pick<SystemRecord, 'id'>, viewer: Viewer): boolean {
  return isOwner(viewer, system.id);
}

/**
 * A switch as this viewer may see it. `shown` holds the alters the viewer may see (loaded with
 * alterLoadPolicy, passed through viewAlter); the others are left out, so a switch of hidden alters
 * only looks like a switch-out and never tells who fronted.
 */
export function viewSwitch(record: SwitchRecord, shown: ReadonlySet<number>, system: Pick<SystemRecord, 'id'>, viewer: Viewer): Switch {
  const sources = seesFrontSources(system, viewer);
  return {
    switchId: record.id,
    switchedAt: new Date(record.switchedAt).toISOString(),
    alterIds: record.alterIds.filter((id) => shown.has(id)),
    clientId: sources ? record.clientId : null,
    clientName: sources ? record.clientName : null,
  };
}
