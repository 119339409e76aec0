// How profiles look in Discord: one embed per alter or system, built from what the API returned
// (so other users' privacy is already applied: hidden fields are simply absent).
import { EmbedBuilder, escapeMarkdown, type APIEmbed, type APIEmbedField, type Client, type JSONEncodable } from 'discord.js';
import { discordImageUrl } from '../domain/image-url.js';
import { shortenGraphemes } from '../domain/proxy/text.js';
import type { Alter } from '../domain/alter.js';
import type { Front, Switch } from '../domain/front.js';
import type { System } from '../domain/system.js';
import type { Fronter } from './api-client.js';
import { alterPrivacyText, systemPrivacyText } from './privacy-settings.js';
import { alterProxyingText } from './settings/alter-settings.js';
import type { Tag } from '../domain/tag.js';
import type { ProfileField } from '../domain/profile-fields.js';

const DEFAULT_COLOR = 0x5865f2;

/** Discord's limits for one embed's parts, and for all the embeds of one message together. */
export const EMBED_LIMITS = {
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
} as const;

/** Cut at a grapheme boundary (never inside an emoji), with an ellipsis. */
const cut = shortenGraphemes;

/** An image or link URL in the form Discord accepts (`attachment://` names an uploaded file), or none. */
const embedUrl = (url: string | undefined): string | undefined => (url === undefined ? undefined : url.startsWith('attachment://') ? url : (discordImageUrl(url) ?? undefined));

interface TextPart {
  length: number;
  cutTo(max: number): void;
}

/**
 * What every embed the bot sends goes through, as the embeds of one message: each part within its
 * own limit, at most 10 embeds and 25 fields each, image URLs Discord would refuse dropped, and all
 * of it within Discord's 6,000 characters per message. Over that, the longest texts are cut first,
 * all to one common length (the largest that fits), so a long description gives way before a
 * title does. Lengths are UTF-16 units, which bound the code points Discord counts from above.
 */
export function fitEmbeds(embeds: readonly (JSONEncodable<APIEmbed> | APIEmbed)[]): APIEmbed[] {
  const out = embeds.slice(0, EMBED_LIMITS.embeds).map((embed) => structuredClone('toJSON' in embed ? embed.toJSON() : embed));
  const parts: TextPart[] = [];
  const part = (text: string | undefined, max: number, set: (value: string) => void): void => {
    if (text === undefined) return;
    let value = cut(text, max);
    if (value !== text) set(value);
    parts.push({
      length: value.length,
      cutTo(limit) {
        value = cut(value, limit);
        set(value);
      },
    });
  };
  for (const embed of out) {
    fixUrls(embed);
    part(embed.title, EMBED_LIMITS.title, (value) => (embed.title = value));
    part(embed.description, EMBED_LIMITS.description, (value) => (embed.description = value));
    if (embed.fields && embed.fields.length > EMBED_LIMITS.fields) embed.fields = embed.fields.slice(0, EMBED_LIMITS.fields);
    for (const field of embed.fields ?? []) {
      part(field.name, EMBED_LIMITS.fieldName, (value) => (field.name = value));
      part(field.value, EMBED_LIMITS.fieldValue, (value) => (field.value = value));
    }
    const { footer, author } = embed;
    if (footer) part(footer.text, EMBED_LIMITS.footer, (value) => (footer.text = value));
    if (author) part(author.name, EMBED_LIMITS.author, (value) => (author.name = value));
  }
  const total = parts.reduce((sum, p) => sum + p.length, 0);
  if (total > EMBED_LIMITS.total) {
    const common = largestFittingLength(parts.map((p) => p.length), EMBED_LIMITS.total);
    for (const p of parts) if (p.length > common) p.cutTo(common);
  }
  return out;
}

/** The largest `cap` with Σ min(length, cap) ≤ budget (lengths over it are cut to it). */
function largestFittingLength(lengths: readonly number[], budget: number): number {
  let low = 1;
  let high = Math.max(...lengths);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (lengths.reduce((sum, length) => sum + Math.min(length, mid), 0) <= budget) low = mid;
    else high = mid - 1;
  }
  return low;
}

function fixUrls(embed: APIEmbed): void {
  if (embed.url !== undefined) {
    const url = embedUrl(embed.url);
    if (url === undefined) delete embed.url;
    else embed.url = url;
  }
  if (embed.thumbnail) {
    const url = embedUrl(embed.thumbnail.url);
    if (url === undefined) delete embed.thumbnail;
    else embed.thumbnail.url = url;
  }
  if (embed.image) {
    const url = embedUrl(embed.image.url);
    if (url === undefined) delete embed.image;
    else embed.image.url = url;
  }
  if (embed.author) {
    const iconUrl = embedUrl(embed.author.icon_url);
    const url = embedUrl(embed.author.url);
    embed.author = { name: embed.author.name, ...(iconUrl ? { icon_url: iconUrl } : {}), ...(url ? { url } : {}) };
  }
  if (embed.footer) {
    const iconUrl = embedUrl(embed.footer.icon_url);
    embed.footer = { text: embed.footer.text, ...(iconUrl ? { icon_url: iconUrl } : {}) };
  }
}

export function alterName(alter: Pick<Alter, 'displayName' | 'username' | 'alterId'>): string {
  if (alter.displayName && alter.username) return `${alter.displayName} (@${alter.username})`;
  return alter.displayName ?? (alter.username ? `@${alter.username}` : `Alter ${alter.alterId}`);
}

/** How a card is being looked at: by its owner (who is told what others see), and what else is known. */
export interface CardView {
  owner?: boolean;
  /** The system's own "alters" setting, when known: an owner's alter card warns when it hides every alter. */
  systemShowsAlters?: boolean;
  /** The names of the alter's tags the viewer may see, when the caller looked them up. */
  tagNames?: readonly string[];
  /** Names the servers of an owner's per-server settings (else they show as ids). */
  client?: Client;
  /** The system's profile fields in its order, when the caller looked them up: the card lists the alter's values by them. */
  profileFields?: readonly ProfileField[];
}

/** A profile field's value as a card shows it, by its kind (text shown as typed, Markdown as Markdown). */
export function profileFieldText(field: Pick<ProfileField, 'kind'>, value: string): string {
  switch (field.kind) {
    case 'text':
      return escapeMarkdown(value);
    case 'date':
    case 'month-day':
      return birthdayText(value);
    case 'colour':
      return code(value);
    case 'link':
    case 'markdown':
      return value;
  }
}

const when = (iso: string, style: 'D' | 'R') => `<t:${Math.floor(Date.parse(iso) / 1000)}:${style}>`;

/** Text in a code span, whatever backticks it holds. */
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A proxy tag as it is typed: `k:text`, `[text]`. */
export const proxyTagText = (tag: { prefix: string | null; suffix: string | null }) => code(`${tag.prefix ?? ''}text${tag.suffix ?? ''}`);

/** `1996-07-21` → "July 21, 1996"; `--07-21` (no year) → "July 21". */
export function birthdayText(birthday: string): string {
  const [year, month, day] = birthday.startsWith('--') ? [null, ...birthday.slice(2).split('-').map(Number)] : birthday.split('-').map(Number);
  const date = new Date(Date.UTC(2000, (month ?? 1) - 1, day ?? 1));
  const text = date.toLocaleDateString('en-US', { month: 'long', day: 'numeric', timeZone: 'UTC' });
  return year === null || year === undefined ? text : `${text}, ${year}`;
}

export function alterEmbed(alter: Alter, view: CardView = {}): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setTitle(cut(alterName(alter), 256))
    .setColor(alter.color ? Number.parseInt(alter.color.slice(1), 16) : DEFAULT_COLOR)
    .setFooter({ text: `Alter ${alter.alterId}` });
  if (alter.avatarUrl) embed.setThumbnail(alter.avatarUrl);
  if (alter.banner) embed.setImage(alter.banner);
  if (alter.description) embed.setDescription(cut(alter.description, 4096));
  if (alter.pronouns) embed.addFields({ name: 'Pronouns', value: cut(alter.pronouns, 1024), inline: true });
  if (alter.birthday) embed.addFields({ name: 'Birthday', value: birthdayText(alter.birthday), inline: true });
  // What the alter does (fields hidden from the viewer come back empty, so they are left out).
  if (alter.messageCount !== null) {
    const last = alter.lastMessageTimestamp ? ` · last ${when(alter.lastMessageTimestamp, 'R')}` : '';
    embed.addFields({ name: 'Messages', value: `${alter.messageCount}${last}`, inline: true });
  }
  if (view.tagNames && view.tagNames.length > 0) embed.addFields({ name: 'Tags', value: cut(view.tagNames.join(', '), 1024) });
  if (alter.proxyTags.length > 0) embed.addFields({ name: 'Proxy tags', value: cut(alter.proxyTags.map(proxyTagText).join(' '), 1024), inline: true });
  embed.addFields({ name: 'Created', value: when(alter.created, 'D'), inline: true });
  const ownerFields: APIEmbedField[] = [];
  if (view.owner) ownerFields.push({ name: 'Proxying', value: cut(alterProxyingText(alter, view.client), 1024) });
  if (view.owner && alter.autoproxyEnabled === false) ownerFields.push({ name: 'Autoproxy', value: 'Left out of front and latch autoproxy (its proxy tags still work)' });
  if (view.owner) ownerFields.push({ name: 'Privacy', value: cut(alterPrivacyText(alter.public, alter.username, view.systemShowsAlters), 1024) });
  // Custom profile fields in the system's order, in the room Discord's 25 fields leave beside the
  // owner's settings; those that do not fit are counted in the last one's place.
  const valued = (view.profileFields ?? []).filter((field) => alter.profileFields[field.fieldId] !== undefined);
  const room = EMBED_LIMITS.fields - (embed.data.fields?.length ?? 0) - ownerFields.length;
  const shown = valued.length <= room ? valued : valued.slice(0, Math.max(0, room - 1));
  for (const field of shown) {
    embed.addFields({ name: cut(field.name, EMBED_LIMITS.fieldName), value: cut(profileFieldText(field, alter.profileFields[field.fieldId] ?? ''), EMBED_LIMITS.fieldValue), inline: field.kind !== 'markdown' && field.kind !== 'text' });
  }
  if (shown.length < valued.length && room > 0) embed.addFields({ name: 'More fields', value: `${valued.length - shown.length} more, not shown here` });
  if (ownerFields.length > 0) embed.addFields(...ownerFields);
  return embed;
}

export function tagName(tag: Pick<Tag, 'name' | 'displayName' | 'tagId'>): string {
  if (tag.displayName && tag.name && tag.displayName !== tag.name) return `${tag.displayName} (${tag.name})`;
  return tag.displayName ?? tag.name ?? `Tag ${tag.tagId}`;
}

/** A tag's profile; `members` are the names of the members the viewer may see, in id order. */
export function tagEmbed(tag: Tag, members: string[]): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setTitle(cut(tagName(tag), 256))
    .setColor(tag.color ? Number.parseInt(tag.color.slice(1), 16) : DEFAULT_COLOR)
    .setFooter({ text: `Tag ${tag.tagId}` });
  if (tag.icon) embed.setThumbnail(tag.icon);
  if (tag.description) embed.setDescription(cut(tag.description, 4096));
  if (!tag.redacted.includes('alterIds')) {
    const shown = members.length > 0 ? members.join(', ') : 'No members.';
    embed.addFields({ name: `Members (${tag.alterIds.length})`, value: cut(shown, 1024) });
  }
  embed.addFields({ name: 'Created', value: when(tag.created, 'D'), inline: true });
  return embed;
}

export const TAGS_PER_PAGE = 20;

/** One page of tags, a line each: its id, name and member count (where shown). */
export function tagListEmbed(tags: Tag[], title: string, page: { skip: number; hasMore: boolean }): EmbedBuilder {
  const lines = tags.map((tag) => cut(`\`${tag.tagId}\` ${tagName(tag)}${tag.redacted.includes('alterIds') ? '' : ` · ${tag.alterIds.length} ${tag.alterIds.length === 1 ? 'member' : 'members'}`}`, 200));
  const first = page.skip + 1;
  return new EmbedBuilder()
    .setTitle(cut(title, 256))
    .setColor(DEFAULT_COLOR)
    .setDescription(lines.length > 0 ? cut(lines.join('\n'), 4096) : page.skip === 0 ? 'No tags yet.' : 'No more tags.')
    .setFooter({ text: tags.length > 0 ? `Tags ${first}–${page.skip + tags.length}${page.hasMore ? ' · more on the next page' : ''}` : ' ' });
}

/** `fronters`: who is fronting now, as far as the viewer may see (empty when unknown or private). */
export function systemEmbed(system: System, fronters: readonly Fronter[] = [], view: CardView = {}): EmbedBuilder {
  const title = system.systemName ?? 'A private system';
  const embed = new EmbedBuilder()
    .setTitle(cut(system.systemDisplayTag ? `${title} ${system.systemDisplayTag}` : title, 256))
    .setColor(system.systemColor ? Number.parseInt(system.systemColor.slice(1), 16) : DEFAULT_COLOR)
    .setFooter({ text: `System of user ${system.associatedUserId}` });
  if (system.systemAvatar) embed.setThumbnail(system.systemAvatar);
  if (system.systemBanner) embed.setImage(system.systemBanner);
  if (system.systemDescription) embed.setDescription(cut(system.systemDescription, 4096));
  else if (!view.owner && system.systemName === null) embed.setDescription('This system keeps its profile private.');
  if (system.systemPronouns) embed.addFields({ name: 'Pronouns', value: cut(system.systemPronouns, 1024), inline: true });
  embed.addFields({ name: 'Alters', value: system.redacted.includes('alterIds') ? 'private' : String(system.alterIds.length), inline: true });
  if (fronters.length > 0) {
    // Co-fronters share the switch's time: one line, the primary first.
    const names = fronters.map((fronter) => alterName(fronter.alter)).join(', ');
    embed.addFields({ name: 'Fronting', value: cut(`${names} · since ${when(fronters[0]?.since ?? '', 'R')}`, 1024) });
  }
  embed.addFields({ name: 'Created', value: when(system.createdAt, 'D'), inline: true });
  if (view.owner && system.systemTimezone) embed.addFields({ name: 'Time zone', value: system.systemTimezone, inline: true });
  if (view.owner) embed.addFields({ name: 'Privacy', value: cut(systemPrivacyText(system.public), 1024) });
  return embed;
}

/** Discord's relative time of a switch ("3 hours ago"). */
const since = (entry: Switch) => `<t:${Math.floor(Date.parse(entry.switchedAt) / 1000)}:R>`;

/** Who a switch names, the primary first; "Nobody" for a switch-out (or, for others, hidden alters only). */
export function fronterNames(entry: Switch, alters: readonly Alter[]): string {
  if (entry.alterIds.length === 0) return 'Nobody';
  const byId = new Map(alters.map((alter) => [alter.alterId, alter]));
  return entry.alterIds.map((id) => nameOf(id, byId)).join(', ');
}

const nameOf = (id: number, byId: ReadonlyMap<number, Alter>) => {
  const alter = byId.get(id);
  return alter ? alterName(alter) : `Alter ${id}`;
};

/** `/front show`: who is fronting now (the primary first), since when, and which app switched (own front only). */
export function frontEmbed(front: Front, title: string): EmbedBuilder {
  const embed = new EmbedBuilder().setTitle(cut(title, 256)).setColor(DEFAULT_COLOR);
  const current = front.current;
  if (!current) return embed.setDescription('Nobody has switched in yet.');
  const byId = new Map(front.alters.map((alter) => [alter.alterId, alter]));
  const lines = current.alterIds.map((id, index) => (index === 0 ? `**${nameOf(id, byId)}** (primary)` : nameOf(id, byId)));
  embed.setDescription(cut(`${lines.length > 0 ? lines.join('\n') : 'Nobody is fronting.'}\n\nSince ${since(current)}`, 4096));
  const primary = byId.get(current.alterIds[0] ?? -1);
  if (primary?.color) embed.setColor(Number.parseInt(primary.color.slice(1), 16));
  if (primary?.avatarUrl) embed.setThumbnail(primary.avatarUrl);
  if (current.clientName ?? current.clientId) embed.setFooter({ text: cut(`Switched through ${current.clientName ?? current.clientId}`, 2048) });
  return embed;
}

export const SWITCHES_PER_PAGE = 10;

/** One page of the switch history, newest first. */
export function frontHistoryEmbed(
  switches: Switch[],
  alters: readonly Alter[],
  title: string,
  page: { skip: number; hasMore: boolean; numbered?: boolean },
): EmbedBuilder {
  // Numbered on the owner's pages, where the "Fix n" buttons name them.
  const lines = switches.map(
    (entry, index) =>
      `${page.numbered ? `**${page.skip + index + 1}.** ` : ''}${since(entry)} · ${entry.alterIds.length === 0 ? '*switched out*' : fronterNames(entry, alters)}`,
  );
  return new EmbedBuilder()
    .setTitle(cut(title, 256))
    .setColor(DEFAULT_COLOR)
    .setDescription(lines.length > 0 ? cut(lines.join('\n'), 4096) : page.skip === 0 ? 'No switches yet.' : 'No more switches.')
    .setFooter({
      text: switches.length > 0 ? `Switches ${page.skip + 1}–${page.skip + switches.length}${page.hasMore ? ' · more on the next page' : ''}` : ' ',
    });
}

export const ALTERS_PER_PAGE = 10;

export function alterListEmbed(alters: Alter[], title: string, page: { skip: number; hasMore: boolean }, detail?: (alter: Alter) => string): EmbedBuilder {
  const lines = alters.map((alter) => `\`${alter.alterId}\` ${alterName(alter)}${alter.pronouns ? ` · ${alter.pronouns}` : ''}${detail ? detail(alter) : ''}`);
  const first = page.skip + 1;
  return new EmbedBuilder()
    .setTitle(cut(title, 256))
    .setColor(DEFAULT_COLOR)
    .setDescription(lines.length > 0 ? cut(lines.join('\n'), 4096) : page.skip === 0 ? 'No alters yet.' : 'No more alters.')
    .setFooter({ text: alters.length > 0 ? `Alters ${first}–${page.skip + alters.length}${page.hasMore ? ' · more on the next page' : ''}` : ' ' });
}
