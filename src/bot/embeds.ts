// How profiles look in Discord: one embed per alter or system, built from what the API returned
// (so other users' privacy is already applied: hidden fields are simply absent).
import { EmbedBuilder } from 'discord.js';
import type { Alter } from '../domain/alter.js';
import type { FrontEntry } from '../domain/front.js';
import type { System } from '../domain/system.js';
import type { Tag } from '../domain/tag.js';

const DEFAULT_COLOR = 0x5865f2;

/** Discord's limits: titles 256, descriptions 4096, field values 1024. */
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function alterName(alter: Pick<Alter, 'displayName' | 'username' | 'alterId'>): string {
  if (alter.displayName && alter.username) return `${alter.displayName} (@${alter.username})`;
  return alter.displayName ?? (alter.username ? `@${alter.username}` : `Alter ${alter.alterId}`);
}

/** `tagNames`: the names of the alter's tags the viewer may see, when the caller looked them up. */
export function alterEmbed(alter: Alter, tagNames: string[] = []): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setTitle(cut(alterName(alter), 256))
    .setColor(alter.color ? Number.parseInt(alter.color.slice(1), 16) : DEFAULT_COLOR)
    .setFooter({ text: `Alter ${alter.alterId}` });
  if (alter.avatarUrl) embed.setThumbnail(alter.avatarUrl);
  if (alter.banner) embed.setImage(alter.banner);
  if (alter.description) embed.setDescription(cut(alter.description, 4096));
  if (alter.pronouns) embed.addFields({ name: 'Pronouns', value: cut(alter.pronouns, 1024), inline: true });
  if (alter.messageCount !== null) embed.addFields({ name: 'Messages', value: String(alter.messageCount), inline: true });
  if (tagNames.length > 0) embed.addFields({ name: 'Tags', value: cut(tagNames.join(', '), 1024) });
  embed.addFields({ name: 'Created', value: `<t:${Math.floor(Date.parse(alter.created) / 1000)}:D>`, inline: true });
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
  embed.addFields({ name: 'Created', value: `<t:${Math.floor(Date.parse(tag.created) / 1000)}:D>`, inline: true });
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

export function systemEmbed(system: System, fronting: FrontEntry | undefined): EmbedBuilder {
  const title = system.systemName ?? 'A private system';
  const embed = new EmbedBuilder()
    .setTitle(cut(system.systemDisplayTag ? `${title} ${system.systemDisplayTag}` : title, 256))
    .setColor(DEFAULT_COLOR)
    .setFooter({ text: `System of user ${system.associatedUserId}` });
  if (system.systemAvatar) embed.setThumbnail(system.systemAvatar);
  if (system.systemBanner) embed.setImage(system.systemBanner);
  if (system.systemDescription) embed.setDescription(cut(system.systemDescription, 4096));
  if (system.systemPronouns) embed.addFields({ name: 'Pronouns', value: cut(system.systemPronouns, 1024), inline: true });
  if (!system.redacted.includes('alterIds')) embed.addFields({ name: 'Alters', value: String(system.alterIds.length), inline: true });
  if (fronting) embed.addFields({ name: 'Fronting', value: cut(`${alterName(fronting.alter)} · <t:${Math.floor(Date.parse(fronting.pushedAt) / 1000)}:R>`, 1024) });
  embed.addFields({ name: 'Created', value: `<t:${Math.floor(Date.parse(system.createdAt) / 1000)}:D>`, inline: true });
  return embed;
}

export const ALTERS_PER_PAGE = 10;

export function alterListEmbed(alters: Alter[], title: string, page: { skip: number; hasMore: boolean }): EmbedBuilder {
  const lines = alters.map((alter) => `\`${alter.alterId}\` ${alterName(alter)}${alter.pronouns ? ` · ${alter.pronouns}` : ''}`);
  const first = page.skip + 1;
  return new EmbedBuilder()
    .setTitle(cut(title, 256))
    .setColor(DEFAULT_COLOR)
    .setDescription(lines.length > 0 ? cut(lines.join('\n'), 4096) : page.skip === 0 ? 'No alters yet.' : 'No more alters.')
    .setFooter({ text: alters.length > 0 ? `Alters ${first}–${page.skip + alters.length}${page.hasMore ? ' · more on the next page' : ''}` : ' ' });
}
