// Our system as a PluralKit v2 export (§3.6): a file PluralKit's importer accepts (colours
// without `#`, https URLs of at most 256 characters, `switches` always present, no `config` or
// `accounts` so an import into PluralKit never resets settings it has and we do not), plus
// everything PluralKit has no place for under one namespaced key, `switchboard`, which our own
// importer reads back: export → import into a fresh system loses nothing.
import { pickAlterFields } from '../alter.js';
import { AlterPrivacy, SystemPrivacy } from '../privacy-bits.js';
import { systemInputsOf, type SystemRecord } from '../system.js';
import { pickTagFields } from '../tag.js';
import { EXTENSION_KEY, EXTENSION_VERSION, MAX_IMPORT_SWITCHES, MAX_SWITCH_MEMBERS, TagPrivacy, type ExtensionAlter, type ExtensionSystem, type ExtensionTag } from './model.js';
import { clampGraphemes } from '../proxy/text.js';
import { plural, pluralKitBirthday } from './normalise.js';
import type { TargetAlter, TargetTag } from './plan.js';

/** PluralKit's short-id alphabet (`generate_hid`). */
const HID_ALPHABET = 'abcefghjknoprstuvwxyz';
const PK_URL_MAX = 256;
const PK_TAG_MAX = 79;
const PK_MEMBER_LIMIT = 1000;
const PK_GROUP_LIMIT = 250;

export interface ExportData {
  system: SystemRecord;
  alters: TargetAlter[];
  tags: Array<TargetTag & { createdAt: number }>;
  /** Alter id → tag ids. */
  switches: Array<{ at: number; alterIds: number[] }>;
  /** PluralKit ids this system's alters and tags were imported from, for one PluralKit system. */
  pluralKit: { systemId: string | null; alterHids: ReadonlyMap<number, string>; tagHids: ReadonlyMap<number, string>; uuids: ReadonlyMap<string, string> };
  /** Tag id → the tag it was nested under in the file it came from (Simply Plural groups); absent: top level. */
  tagParents?: ReadonlyMap<number, number>;
  newUuid: () => string;
}

/** A six-letter short id from a number, stable for the same number. */
function hidOf(value: number): string {
  let rest = value;
  let hid = '';
  for (let i = 0; i < 6; i++) {
    hid = (HID_ALPHABET[rest % HID_ALPHABET.length] as string) + hid;
    rest = Math.floor(rest / HID_ALPHABET.length);
  }
  return hid;
}

/** Short ids: the PluralKit one an entity was imported with, else one derived from its id, never repeated. */
function assignHids(ids: number[], known: ReadonlyMap<number, string>, salt: number): Map<number, string> {
  const hids = new Map<number, string>();
  const used = new Set<string>();
  for (const id of ids) {
    const hid = known.get(id);
    if (hid !== undefined && !used.has(hid)) {
      hids.set(id, hid);
      used.add(hid);
    }
  }
  for (const id of ids) {
    if (hids.has(id)) continue;
    let n = id * 7919 + salt;
    let hid = hidOf(n);
    while (used.has(hid)) hid = hidOf((n += 104_729));
    hids.set(id, hid);
    used.add(hid);
  }
  return hids;
}

const iso = (ms: number) => new Date(ms).toISOString();
const privacy = (mask: number, bit: number) => ((mask & bit) === bit ? 'public' : 'private');
const pkColor = (color: string | null) => (color === null ? null : color.replace(/^#/, '').toLowerCase());

export function buildExport(data: ExportData): { file: Record<string, unknown>; warnings: string[] } {
  const warnings: string[] = [];
  const dropped = new Map<string, string[]>();
  const drop = (what: string, name: string) => {
    const list = dropped.get(what) ?? [];
    list.push(name);
    dropped.set(what, list);
  };
  const pkUrl = (url: string | null, what: string, name: string) => {
    if (url === null) return null;
    if (url.startsWith('https://') && url.length <= PK_URL_MAX) return url;
    drop(what, name);
    return null;
  };

  const { system } = data;
  const alterHids = assignHids(data.alters.map((alter) => alter.id), data.pluralKit.alterHids, 1);
  const tagHids = assignHids(data.tags.map((tag) => tag.id), data.pluralKit.tagHids, 2);
  const systemHid = data.pluralKit.systemId ?? hidOf(system.id * 7919 + 3);
  const keepProxy = (system.flags & 1) === 1;
  const uuidOf = (hid: string) => data.pluralKit.uuids.get(hid) ?? data.newUuid();

  const members = data.alters.map((alter) => {
    const name = alter.username;
    let longTags = 0;
    const proxyTags = alter.proxyTags
      .filter((tag) => {
        const fits = (tag.prefix ?? '').length + 4 + (tag.suffix ?? '').length <= 100;
        if (!fits) longTags++;
        return fits;
      })
      .map((tag) => ({ prefix: tag.prefix || null, suffix: tag.suffix || null }));
    if (longTags > 0) drop('proxy tag longer than PluralKit allows', name);
    const hid = alterHids.get(alter.id) as string;
    return {
      id: hid,
      uuid: uuidOf(`m:${hid}`),
      name,
      display_name: alter.displayName === alter.username ? null : alter.displayName,
      color: pkColor(alter.color),
      birthday: pluralKitBirthday(alter.birthday),
      pronouns: alter.pronouns,
      avatar_url: pkUrl(alter.avatarUrl, 'avatar', name),
      webhook_avatar_url: pkUrl(alter.webhookAvatarUrl, 'proxy avatar', name),
      banner: pkUrl(alter.banner, 'banner', name),
      description: alter.description,
      created: iso(alter.createdAt),
      keep_proxy: keepProxy,
      tts: false,
      autoproxy_enabled: alter.autoproxyEnabled,
      message_count: alter.messageCount,
      last_message_timestamp: alter.lastMessageAt === null ? null : iso(alter.lastMessageAt),
      proxy_tags: proxyTags,
      privacy: {
        visibility: privacy(alter.public, AlterPrivacy.visible),
        name_privacy: privacy(alter.public, AlterPrivacy.name),
        description_privacy: privacy(alter.public, AlterPrivacy.description),
        banner_privacy: privacy(alter.public, AlterPrivacy.banner),
        birthday_privacy: privacy(alter.public, AlterPrivacy.birthday),
        pronoun_privacy: privacy(alter.public, AlterPrivacy.pronouns),
        avatar_privacy: privacy(alter.public, AlterPrivacy.avatar),
        metadata_privacy: privacy(alter.public, AlterPrivacy.messageStats),
        proxy_privacy: privacy(alter.public, AlterPrivacy.proxyTags),
      },
    };
  });

  const membersOfTag = new Map<number, string[]>();
  for (const alter of data.alters) {
    for (const tagId of alter.tagIds) {
      const list = membersOfTag.get(tagId) ?? [];
      list.push(alterHids.get(alter.id) as string);
      membersOfTag.set(tagId, list);
    }
  }
  const groups = data.tags.map((tag) => {
    const hid = tagHids.get(tag.id) as string;
    const visible = (tag.public & TagPrivacy.visible) === TagPrivacy.visible;
    return {
      id: hid,
      uuid: uuidOf(`g:${hid}`),
      name: tag.name,
      display_name: tag.displayName,
      description: tag.description,
      icon: pkUrl(tag.icon, 'tag icon', tag.name),
      banner: null,
      color: pkColor(tag.color),
      created: iso(tag.createdAt),
      members: membersOfTag.get(tag.id) ?? [],
      privacy: {
        name_privacy: privacy(tag.public, TagPrivacy.name),
        description_privacy: privacy(tag.public, TagPrivacy.description),
        banner_privacy: 'private',
        icon_privacy: privacy(tag.public, TagPrivacy.icon),
        list_privacy: privacy(tag.public, TagPrivacy.members),
        metadata_privacy: 'private',
        visibility: visible ? 'public' : 'private',
      },
    };
  });

  // Newest first, as PluralKit writes them.
  let bigSwitches = 0;
  const switches = [...data.switches]
    .sort((a, b) => b.at - a.at)
    .filter((entry) => {
      if (entry.alterIds.length <= MAX_SWITCH_MEMBERS) return true;
      bigSwitches++;
      return false;
    })
    .map((entry) => ({ timestamp: iso(entry.at), members: entry.alterIds.map((id) => alterHids.get(id)).filter((hid): hid is string => hid !== undefined) }));
  if (bigSwitches > 0) warnings.push(`${plural(bigSwitches, 'switch', 'switches')} with more than ${MAX_SWITCH_MEMBERS} alters ${bigSwitches === 1 ? 'was' : 'were'} left out: PluralKit refuses them`);
  if (switches.length > MAX_IMPORT_SWITCHES) {
    warnings.push(`only the newest ${MAX_IMPORT_SWITCHES.toLocaleString('en-US')} of ${switches.length.toLocaleString('en-US')} switches were written: PluralKit imports no more`);
    switches.length = MAX_IMPORT_SWITCHES;
  }

  const tagText = system.displayTag === null ? null : clampGraphemes(system.displayTag, PK_TAG_MAX);
  if (tagText !== system.displayTag) warnings.push(`the system tag was shortened to ${PK_TAG_MAX} characters for PluralKit (our own key keeps it whole)`);
  const file: Record<string, unknown> = {
    version: 2,
    id: systemHid,
    uuid: data.newUuid(),
    name: system.name,
    description: system.description,
    tag: tagText,
    pronouns: system.pronouns,
    avatar_url: pkUrl(system.avatar, 'system avatar', system.name),
    banner: pkUrl(system.banner, 'system banner', system.name),
    color: pkColor(system.color),
    created: iso(system.createdAt),
    webhook_url: null,
    privacy: {
      name_privacy: privacy(system.public, SystemPrivacy.name),
      avatar_privacy: privacy(system.public, SystemPrivacy.avatar),
      description_privacy: privacy(system.public, SystemPrivacy.description),
      banner_privacy: privacy(system.public, SystemPrivacy.banner),
      pronoun_privacy: privacy(system.public, SystemPrivacy.pronouns),
      member_list_privacy: privacy(system.public, SystemPrivacy.alters),
      group_list_privacy: privacy(system.public, SystemPrivacy.tags),
      front_privacy: 'private',
      front_history_privacy: 'private',
    },
    members,
    groups,
    switches,
  };

  for (const [what, names] of dropped) {
    warnings.push(`${plural(names.length, what)} could not go in PluralKit's fields (PluralKit takes https links of at most ${PK_URL_MAX} characters and proxy tags of at most 100 with the text) and ${names.length === 1 ? 'is' : 'are'} only in our own key (${names.slice(0, 5).map((n) => JSON.stringify(n)).join(', ')}${names.length > 5 ? ', …' : ''})`);
  }
  if (data.alters.length > PK_MEMBER_LIMIT) warnings.push(`PluralKit imports at most ${PK_MEMBER_LIMIT} members; this file has ${data.alters.length}`);
  if (data.tags.length > PK_GROUP_LIMIT) warnings.push(`PluralKit imports at most ${PK_GROUP_LIMIT} groups; this file has ${data.tags.length}`);

  const ownSystem: ExtensionSystem = systemInputsOf(system);
  const ownAlters: Record<string, ExtensionAlter> = {};
  for (const alter of data.alters) {
    ownAlters[alterHids.get(alter.id) as string] = {
      ...pickAlterFields(alter),
      proxyTags: alter.proxyTags.map((tag) => ({ prefix: tag.prefix, suffix: tag.suffix })),
    };
  }
  const ownTags: Record<string, ExtensionTag> = {};
  for (const tag of data.tags) {
    const parent = data.tagParents?.get(tag.id);
    const parentHid = parent === undefined ? undefined : tagHids.get(parent);
    ownTags[tagHids.get(tag.id) as string] = { ...pickTagFields(tag), ...(parentHid === undefined ? {} : { parent: parentHid }) };
  }
  file[EXTENSION_KEY] = { version: EXTENSION_VERSION, system: ownSystem, alters: ownAlters, tags: ownTags, warnings };
  return { file, warnings };
}

/**
 * The file as its JSON text in pieces, never as one string: the text of each member, group, switch
 * and `switchboard` entry is a piece of its own, and the pieces joined are exactly
 * `JSON.stringify(file)`. A system's export can be several times its stored size; as one string it
 * could pass V8's limit on a string's length (the export then failed with a 500) and held the file
 * two or three times over in memory (issue 26, item 6). Sent piece by piece, what the export holds
 * beyond the loaded data is about one entity's text.
 */
export function* exportJson(file: Record<string, unknown>): Generator<string> {
  // The file's keys, its lists and maps, and the maps under `switchboard`: below that, an entity.
  yield* jsonPieces(file, 3);
}

function* jsonPieces(value: unknown, depth: number): Generator<string> {
  if (depth === 0 || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    // As JSON.stringify writes a value with no text of its own inside a list.
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      yield* jsonPieces(value[i], depth - 1);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, entry] of Object.entries(value)) {
    // JSON.stringify leaves out the keys of such values.
    if (entry === undefined || typeof entry === 'function' || typeof entry === 'symbol') continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonPieces(entry, depth - 1);
  }
  yield '}';
}
