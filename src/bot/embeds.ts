// How profiles look in Discord: one embed per alter or system, built from what the API returned
// (so other users' privacy is already applied: hidden fields are simply absent).
import { EmbedBuilder } from 'discord.js';
import type { Alter } from '../domain/alter.js';
import type { Front, Switch } from '../domain/front.js';
import type { System } from '../domain/system.js';

const DEFAULT_COLOR = 0x5865f2;

/** Discord's limits: titles 256, descriptions 4096, field values 1024. */
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function alterName(alter: Pick<Alter, 'displayName' | 'username' | 'alterId'>): string {
  if (alter.displayName && alter.username) return `${alter.displayName} (@${alter.username})`;
  return alter.displayName ?? (alter.username ? `@${alter.username}` : `Alter ${alter.alterId}`);
}

export function alterEmbed(alter: Alter): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setTitle(cut(alterName(alter), 256))
    .setColor(alter.color ? Number.parseInt(alter.color.slice(1), 16) : DEFAULT_COLOR)
    .setFooter({ text: `Alter ${alter.alterId}` });
  if (alter.avatarUrl) embed.setThumbnail(alter.avatarUrl);
  if (alter.banner) embed.setImage(alter.banner);
  if (alter.description) embed.setDescription(cut(alter.description, 4096));
  if (alter.pronouns) embed.addFields({ name: 'Pronouns', value: cut(alter.pronouns, 1024), inline: true });
  if (alter.messageCount !== null) embed.addFields({ name: 'Messages', value: String(alter.messageCount), inline: true });
  embed.addFields({ name: 'Created', value: `<t:${Math.floor(Date.parse(alter.created) / 1000)}:D>`, inline: true });
  return embed;
}

export function systemEmbed(system: System, front: Front | undefined): EmbedBuilder {
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
  if (front?.current) embed.addFields({ name: 'Fronting', value: cut(`${fronterNames(front.current, front.alters)} · ${since(front.current)}`, 1024) });
  embed.addFields({ name: 'Created', value: `<t:${Math.floor(Date.parse(system.createdAt) / 1000)}:D>`, inline: true });
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
export function frontHistoryEmbed(switches: Switch[], alters: readonly Alter[], title: string, page: { skip: number; hasMore: boolean }): EmbedBuilder {
  const lines = switches.map((entry) => `${since(entry)} · ${entry.alterIds.length === 0 ? '*switched out*' : fronterNames(entry, alters)}`);
  return new EmbedBuilder()
    .setTitle(cut(title, 256))
    .setColor(DEFAULT_COLOR)
    .setDescription(lines.length > 0 ? cut(lines.join('\n'), 4096) : page.skip === 0 ? 'No switches yet.' : 'No more switches.')
    .setFooter({ text: switches.length > 0 ? `Switches ${page.skip + 1}–${page.skip + switches.length}${page.hasMore ? ' · more on the next page' : ''}` : ' ' });
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
