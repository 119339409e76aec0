// A PluralKit export (version 2, and the older files PluralKit still accepts, §1.8) read into the
// source model. Every key is optional and every value is checked: a bad field is dropped or
// clamped with a note, an entity without a usable id or name is skipped by its id and name.
import { MAX_PROXY_TAGS, Username } from '../alter.js';
import { AlterPrivacy, SystemPrivacy } from '../privacy-bits.js';
import { DESCRIPTION_MAX, NAME_MAX } from '../values.js';
import { PROFILE_FIELD_DEFAULTS } from '../profile-fields.js';
import { DEFAULT_LATCH_EXPIRATION_MS, MAX_LATCH_EXPIRATION_MS, isTimeZone, systemValuesOf } from '../system.js';
import {
  EXTENSION_KEY,
  Extension,
  ExtensionAlter,
  ExtensionProfileField,
  ExtensionSystem,
  ExtensionTag,
  MAX_SWITCH_MEMBERS,
  TagPrivacy,
  type ImportFormat,
  type ImportSource,
  type SkippedEntity,
  type SourceAlter,
  type SourceProfileField,
  type SourceSwitch,
  type SourceSystem,
  type SourceTag,
} from './model.js';
import { GROUP, MEMBER, arrayOf, idOf, isObject, usableEntities, type Json } from './entities.js';
import { Notes, deriveUsername, normaliseBirthday, normaliseColor, normaliseCount, normaliseProxyTags, normaliseText, normaliseUrl, parseInstant, plural } from './normalise.js';

/** The years PluralKit writes for a birthday without one: 0004, and 0001 before 2020-02-10. */
const PK_YEARLESS = ['0004', '0001'];

/**
 * A reference to one of the file's members (`memberIds`, already checked by idOf), or null. A
 * group or switch names members hundreds of thousands of times: an exact match skips idOf.
 */
function knownId(value: unknown, memberIds: ReadonlySet<string>): string | null {
  if (typeof value === 'string' && memberIds.has(value)) return value;
  const id = idOf(value);
  return id !== null && memberIds.has(id) ? id : null;
}

type Privacy = (key: string) => boolean;

/**
 * Reads PluralKit privacy values: "public" is public, "private" private; anything else is private
 * with a note. A missing key is private.
 */
function privacyReader(values: Json, notes: Notes, owner: string): Privacy {
  return (key) => {
    const value = values[key];
    if (value === 'public') return true;
    if (value !== undefined && value !== null && value !== 'private') {
      notes.add('privacy-value', owner, (n, names) => `${plural(n, 'privacy setting')} ${n === 1 ? 'was' : 'were'} neither "public" nor "private" and ${n === 1 ? 'was' : 'were'} taken as private${names}`);
    }
    return false;
  };
}

/** The privacy object of a v2 entity, or the flat keys of a v1 one; null when there is neither. */
function privacyValues(entity: Json, keys: string[]): Json | null {
  if (isObject(entity.privacy)) return entity.privacy;
  return keys.some((key) => key in entity) ? entity : null;
}

const MEMBER_PRIVACY_KEYS = ['visibility', 'name_privacy', 'description_privacy', 'banner_privacy', 'birthday_privacy', 'pronoun_privacy', 'avatar_privacy', 'metadata_privacy', 'proxy_privacy'];

/**
 * Alter bits from member privacy (§3.2): visibility 1, name 2 and username 512, description 4,
 * banner 8 (files before 2024-11: the description's), pronouns 16, avatar 32 (and colour, which
 * goes with it), proxy tags 64, message statistics 256 (metadata), birthday 1024. Tags (128) follow the
 * system's group list privacy: PluralKit decides who may list groups per system.
 */
export function memberPublicBits(privacy: Privacy, hasBanner: boolean, groupsPublic: boolean): number {
  let bits = 0;
  if (privacy('visibility')) bits |= AlterPrivacy.visible;
  if (privacy('name_privacy')) bits |= AlterPrivacy.name | AlterPrivacy.username;
  if (privacy('description_privacy')) bits |= AlterPrivacy.description;
  if (hasBanner ? privacy('banner_privacy') : privacy('description_privacy')) bits |= AlterPrivacy.banner;
  if (privacy('pronoun_privacy')) bits |= AlterPrivacy.pronouns;
  if (privacy('avatar_privacy')) bits |= AlterPrivacy.avatar;
  if (privacy('proxy_privacy')) bits |= AlterPrivacy.proxyTags;
  if (privacy('metadata_privacy')) bits |= AlterPrivacy.messageStats;
  if (privacy('birthday_privacy')) bits |= AlterPrivacy.birthday;
  if (groupsPublic) bits |= AlterPrivacy.tags;
  return bits;
}

/** Tag bits from group privacy: a private visibility hides everything. */
export function groupPublicBits(privacy: Privacy): number {
  if (!privacy('visibility')) return 0;
  let bits = TagPrivacy.visible | TagPrivacy.color;
  if (privacy('name_privacy')) bits |= TagPrivacy.name;
  if (privacy('description_privacy')) bits |= TagPrivacy.description;
  if (privacy('icon_privacy')) bits |= TagPrivacy.icon;
  if (privacy('list_privacy')) bits |= TagPrivacy.members;
  return bits;
}

/** System bits (§3.3); the display tag is public whenever there is one (PluralKit shows it on every message). */
export function systemPublicBits(privacy: Privacy, hasBanner: boolean, hasTag: boolean): number {
  let bits = 0;
  if (privacy('name_privacy')) bits |= SystemPrivacy.name;
  if (hasTag) bits |= SystemPrivacy.displayTag;
  if (privacy('description_privacy')) bits |= SystemPrivacy.description;
  if (privacy('avatar_privacy')) bits |= SystemPrivacy.avatar;
  if (hasBanner ? privacy('banner_privacy') : privacy('description_privacy')) bits |= SystemPrivacy.banner;
  if (privacy('pronoun_privacy')) bits |= SystemPrivacy.pronouns;
  if (privacy('member_list_privacy')) bits |= SystemPrivacy.alters;
  if (privacy('group_list_privacy')) bits |= SystemPrivacy.tags;
  return bits;
}

/** The part of our own key for one entity, when it is there and valid. */
function extensionPart<T>(
  parts: Record<string, unknown> | undefined,
  id: string,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  notes: Notes,
  what: string,
): T | undefined {
  if (!parts || !Object.hasOwn(parts, id)) return undefined;
  const parsed = schema.safeParse(parts[id]);
  if (parsed.success) return parsed.data;
  notes.add(
    `extension:${what}`,
    id,
    (n, names) => `our own data (the "${EXTENSION_KEY}" key) of ${plural(n, what)} was invalid and was ignored; the PluralKit fields were used${names}`,
  );
  return undefined;
}

export function readPluralKit(file: Json, format: ImportFormat): ImportSource {
  const notes = new Notes();
  const skipped: SkippedEntity[] = [];
  const skip = (entity: Omit<SkippedEntity, 'source'>) => skipped.push({ source: 'pluralkit', ...entity });
  const sourceSystemId = idOf(file.id) ?? '';

  let extension: ReturnType<typeof Extension.parse> | undefined;
  if (EXTENSION_KEY in file) {
    const parsed = Extension.safeParse(file[EXTENSION_KEY]);
    if (parsed.success) extension = parsed.data;
    else notes.once(`the "${EXTENSION_KEY}" key is not one this version understands and was ignored`);
  }

  // The system
  const system: SourceSystem = {};
  const text = (key: string, max: number, what: string) => (key in file ? normaliseText(file[key], { max, what }, notes, null) : undefined);
  const name = text('name', NAME_MAX, 'system name');
  if (name) system.name = name;
  const tag = text('tag', NAME_MAX, 'system tag');
  if (tag !== undefined) system.displayTag = tag;
  const description = text('description', DESCRIPTION_MAX, 'system description');
  if (description !== undefined) system.description = description;
  const pronouns = text('pronouns', NAME_MAX, 'system pronouns');
  if (pronouns !== undefined) system.pronouns = pronouns;
  if ('avatar_url' in file) system.avatar = normaliseUrl(file.avatar_url, 'system avatar', notes, null);
  if ('banner' in file) system.banner = normaliseUrl(file.banner, 'system banner', notes, null);
  const created = parseInstant(file.created);
  if (created !== null) system.createdAt = created;
  const systemPrivacyValues = privacyValues(file, ['name_privacy', 'description_privacy', 'member_list_privacy', 'front_privacy']);
  const systemPrivacy = systemPrivacyValues ? privacyReader(systemPrivacyValues, notes, 'the system') : undefined;
  if (systemPrivacy && systemPrivacyValues) {
    system.public = systemPublicBits(systemPrivacy, 'banner_privacy' in systemPrivacyValues, Boolean(tag ?? null));
  }
  const groupsPublic = systemPrivacy?.('group_list_privacy') ?? false;
  if (isObject(file.config) && 'latch_timeout' in file.config) {
    const timeout = file.config.latch_timeout;
    if (typeof timeout === 'number' && Number.isFinite(timeout) && timeout >= 0) {
      const ms = Math.round(timeout * 1000);
      if (ms > MAX_LATCH_EXPIRATION_MS) notes.once(`the latch timeout of ${timeout} seconds was shortened to ${MAX_LATCH_EXPIRATION_MS / 1000} seconds (10 hours), the longest here`);
      system.latchExpiration = Math.min(ms, MAX_LATCH_EXPIRATION_MS);
    } else if (timeout === null) {
      // PluralKit's own default, which null stands for.
      system.latchExpiration = DEFAULT_LATCH_EXPIRATION_MS;
    } else {
      notes.once('the latch timeout was not a number of seconds and was ignored');
    }
  }
  if ('color' in file) system.color = normaliseColor(file.color, 'system colour', notes, null);
  // PluralKit reads a v1 file's top-level time zone only with its config; so do we.
  const timezone = isObject(file.config) ? (file.config.timezone ?? (format === 'pluralkit-legacy' ? file.timezone : undefined)) : undefined;
  if (timezone !== undefined && timezone !== null) {
    if (typeof timezone === 'string' && isTimeZone(timezone.trim())) system.timezone = timezone.trim() === 'UTC' ? null : timezone.trim();
    else notes.once(`the time zone ${JSON.stringify(timezone)} is not one we know and was ignored`);
  }
  if (isObject(file.config) && typeof file.config.name_format === 'string' && file.config.name_format.trim() !== '') {
    notes.once('the proxy name format (name_format) was not imported: its placeholders differ from the nickname format here');
  }
  if (Array.isArray(file.accounts) && file.accounts.length > 0) {
    notes.once('linked Discord accounts are never imported from a file; add your other accounts with /system accounts add (or POST /system/accounts/code)');
  }
  const ownSystem = extension?.system === undefined ? undefined : ExtensionSystem.safeParse(extension.system);
  if (ownSystem?.success === false) notes.once(`our own system data (the "${EXTENSION_KEY}" key) was invalid and was ignored`);
  if (ownSystem?.success) {
    Object.assign(system, systemValuesOf(ownSystem.data));
  }

  const profileFields = readProfileFields(extension?.profileFields, notes);

  // Members
  const alters: SourceAlter[] = [];
  const memberIds = new Set<string>();
  for (const { entity: member, id, name: memberName } of usableEntities(file.members, MEMBER, notes, skip, memberIds)) {
    const privacyObject = privacyValues(member, MEMBER_PRIVACY_KEYS);
    let publicBits = 0;
    if (privacyObject) {
      publicBits = memberPublicBits(privacyReader(privacyObject, notes, memberName), 'banner_privacy' in privacyObject, groupsPublic);
    } else {
      notes.add('no-privacy', memberName, (n, names) => `${plural(n, 'member')} had no privacy settings and ${n === 1 ? 'was' : 'were'} imported as private${names}`);
    }
    const avatarUrl = normaliseUrl(member.avatar_url, 'member avatar', notes, memberName);
    const webhookAvatarUrl = normaliseUrl(member.webhook_avatar_url, 'member proxy avatar', notes, memberName);
    const tags = Array.isArray(member.proxy_tags)
      ? member.proxy_tags.filter(isObject).map((pair) => ({ prefix: pair.prefix, suffix: pair.suffix }))
      : 'prefix' in member || 'suffix' in member
        ? [{ prefix: member.prefix, suffix: member.suffix }]
        : [];
    const alter: SourceAlter = {
      id,
      uuid: typeof member.uuid === 'string' ? member.uuid.slice(0, 64) : null,
      name: memberName,
      username: deriveUsername(memberName) ?? fallbackUsername('pk', id),
      displayName: normaliseText(member.display_name, { max: NAME_MAX, what: 'member display name' }, notes, memberName) ?? memberName,
      color: normaliseColor(member.color, 'member colour', notes, memberName),
      description: normaliseText(member.description, { max: DESCRIPTION_MAX, what: 'member description' }, notes, memberName),
      pronouns: normaliseText(member.pronouns, { max: NAME_MAX, what: 'member pronouns' }, notes, memberName),
      birthday: normaliseBirthday(member.birthday, PK_YEARLESS, notes, memberName),
      avatarUrl,
      // Exports before 2023-03-21 repeated the avatar here (PluralKit 2bffee54).
      webhookAvatarUrl: webhookAvatarUrl === avatarUrl ? null : webhookAvatarUrl,
      banner: normaliseUrl(member.banner, 'member banner', notes, memberName),
      createdAt: parseInstant(member.created),
      lastMessageAt: parseInstant(member.last_message_timestamp),
      messageCount: normaliseCount(member.message_count),
      proxyTags: normaliseProxyTags(tags, MAX_PROXY_TAGS, notes, memberName),
      public: publicBits,
      keepProxy: typeof member.keep_proxy === 'boolean' ? member.keep_proxy : null,
      // Missing from older files: then a new alter takes the default and a matched one is left as it is.
      ...(typeof member.autoproxy_enabled === 'boolean' ? { autoproxyEnabled: member.autoproxy_enabled } : {}),
    };
    const own = extensionPart(extension?.alters, id, ExtensionAlter, notes, 'alter');
    if (own) {
      Object.assign(alter, {
        ...own,
        proxyTags: (own.proxyTags ?? alter.proxyTags).map((pair) => ({ prefix: pair.prefix || null, suffix: pair.suffix || null })),
      } satisfies Partial<SourceAlter>);
    }
    alters.push(alter);
  }

  // Groups
  const tags: SourceTag[] = [];
  let unknownMembers = 0;
  for (const { entity: group, id, name: groupName } of usableEntities(file.groups, GROUP, notes, skip)) {
    // A Set: a linear search per entry made a group listing every member quadratic.
    const members = new Set<string>();
    for (const member of arrayOf(group.members)) {
      const memberId = knownId(member, memberIds);
      if (memberId !== null) members.add(memberId);
      else unknownMembers++;
    }
    const privacy = isObject(group.privacy) ? privacyReader(group.privacy, notes, groupName) : undefined;
    const tagEntry: SourceTag = {
      id,
      uuid: typeof group.uuid === 'string' ? group.uuid.slice(0, 64) : null,
      name: groupName,
      displayName: normaliseText(group.display_name, { max: NAME_MAX, what: 'group display name' }, notes, groupName),
      description: normaliseText(group.description, { max: DESCRIPTION_MAX, what: 'group description' }, notes, groupName),
      color: normaliseColor(group.color, 'group colour', notes, groupName),
      icon: normaliseUrl(group.icon, 'group icon', notes, groupName),
      public: privacy ? groupPublicBits(privacy) : 0,
      createdAt: parseInstant(group.created),
      memberIds: [...members],
    };
    const own = extensionPart(extension?.tags, id, ExtensionTag, notes, 'tag');
    if (own) {
      const { parent, ...fields } = own;
      Object.assign(tagEntry, fields);
      if (parent !== undefined) tagEntry.parentId = parent;
    }
    tags.push(tagEntry);
  }
  if (unknownMembers > 0) notes.once(`${plural(unknownMembers, 'group membership')} named members not in the file (or skipped) and ${unknownMembers === 1 ? 'was' : 'were'} left out`);

  return {
    format,
    source: 'pluralkit',
    sourceSystemId,
    system,
    alters,
    tags,
    switches: readSwitches(file.switches, memberIds, notes),
    profileFields,
    skipped,
    warnings: notes.list(),
  };
}

/**
 * Our own key's custom profile fields (each checked on its own; a repeated id keeps the first);
 * undefined when the file has none to say (no key, or one written before fields existed).
 */
function readProfileFields(entries: unknown[] | undefined, notes: Notes): SourceProfileField[] | undefined {
  if (entries === undefined) return undefined;
  const fields: SourceProfileField[] = [];
  const ids = new Set<string>();
  for (const entry of entries ?? []) {
    const parsed = ExtensionProfileField.safeParse(entry);
    if (!parsed.success || ids.has(parsed.data.id)) {
      notes.add('extension:profile-field', null, (n) => `${plural(n, 'custom profile field')} in our own data (the "${EXTENSION_KEY}" key) ${n === 1 ? 'was' : 'were'} invalid and left out`);
      continue;
    }
    ids.add(parsed.data.id);
    fields.push({ ...PROFILE_FIELD_DEFAULTS, ...parsed.data });
  }
  return fields;
}

/** `pk-<id>` / `tb-<id>` when a name leaves no username (all spaces or symbols). */
export function fallbackUsername(prefix: 'pk' | 'tb', id: string): string {
  const candidate = `${prefix}-${id}`.slice(0, NAME_MAX);
  return Username.safeParse(candidate).success ? candidate : `${prefix}-member`;
}

/** Switches (§3.4), oldest first, one per timestamp; members not in the file are left out. */
export function readSwitches(value: unknown, memberIds: ReadonlySet<string>, notes: Notes): SourceSwitch[] {
  const byTime = new Map<number, SourceSwitch>();
  let badTime = 0;
  let tooMany = 0;
  let unknown = 0;
  let repeated = 0;
  for (const entry of arrayOf(value)) {
    const at = isObject(entry) ? parseInstant(entry.timestamp) : null;
    if (at === null || !isObject(entry)) {
      badTime++;
      continue;
    }
    const members = arrayOf(entry.members);
    if (members.length > MAX_SWITCH_MEMBERS) {
      tooMany++;
      continue;
    }
    const ids = new Set<string>();
    for (const member of members) {
      const id = knownId(member, memberIds);
      if (id !== null) ids.add(id);
      else unknown++;
    }
    if (byTime.has(at)) {
      repeated++;
      continue;
    }
    byTime.set(at, { at, memberIds: [...ids] });
  }
  if (badTime > 0) notes.once(`${plural(badTime, 'switch', 'switches')} without a valid timestamp ${badTime === 1 ? 'was' : 'were'} left out`);
  if (tooMany > 0) notes.once(`${plural(tooMany, 'switch', 'switches')} with more than ${MAX_SWITCH_MEMBERS} members ${tooMany === 1 ? 'was' : 'were'} left out`);
  if (unknown > 0) notes.once(`${plural(unknown, 'switch entry', 'switch entries')} named members not in the file (or skipped) and ${unknown === 1 ? 'was' : 'were'} left out`);
  if (repeated > 0) notes.once(`${plural(repeated, 'switch', 'switches')} repeated the time of another and ${repeated === 1 ? 'was' : 'were'} left out`);
  return [...byTime.values()].sort((a, b) => a.at - b.at);
}
