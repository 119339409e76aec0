// Options that name a Discord server (per-server names, avatars, tags and proxying): autocomplete
// offers the servers the bot shares with the member, and the ones their settings already name;
// the value is the server's id, and without a value the command means the server it was run in.
import type { AutocompleteInteraction, ChatInputCommandInteraction, Client } from 'discord.js';
import { clampGraphemes, shortenGraphemes } from '../../domain/proxy/text.js';
import { ApiError } from '../api-client.js';

export const SERVER_OPTION = 'server';
const SNOWFLAKE = /^\d{17,20}$/;
/** Discord's limits: 25 choices, names of 1 to 100 characters. */
const MAX_CHOICES = 25;

/** The server's name as the bot knows it, else its id. */
export function serverName(client: Client, id: string): string {
  return client.guilds.cache.get(id)?.name ?? `server ${id}`;
}

/**
 * Choices for a server option: the server the command is typed in first, then the servers the bot
 * shares with the member (from its cache: no request per server), then `known` (servers the
 * member's settings name, which the bot may have left), filtered by what was typed.
 */
export function serverChoices(interaction: AutocompleteInteraction, known: Iterable<string>): Array<{ name: string; value: string }> {
  const typed = String(interaction.options.getFocused()).trim().toLowerCase();
  const ids = new Set<string>();
  if (interaction.guildId) ids.add(interaction.guildId);
  for (const guild of interaction.client.guilds.cache.values()) {
    if (guild.members.cache.has(interaction.user.id)) ids.add(guild.id);
  }
  for (const id of known) ids.add(id);
  const choices: Array<{ name: string; value: string }> = [];
  for (const id of ids) {
    const name = serverName(interaction.client, id);
    if (typed && !name.toLowerCase().includes(typed) && !id.startsWith(typed)) continue;
    const here = id === interaction.guildId ? ' (this server)' : '';
    choices.push({ name: `${shortenGraphemes(name, 100 - here.length)}${here}`, value: id });
    if (choices.length === MAX_CHOICES) break;
  }
  return choices;
}

/** The server an option names (an id from autocomplete, or typed), else the one the command runs in. */
export function chosenServer(interaction: ChatInputCommandInteraction, option = SERVER_OPTION): string {
  const typed = interaction.options.getString(option)?.trim();
  if (typed) {
    if (SNOWFLAKE.test(typed)) return typed;
    const byName = interaction.client.guilds.cache.find((guild) => guild.name.toLowerCase() === typed.toLowerCase());
    if (byName) return byName.id;
    throw new ApiError('problem', 400, 'unknown-server', `No server called “${clampGraphemes(typed, 100)}” that I know of. Pick one from the list as you type.`, option);
  }
  if (interaction.guildId) return interaction.guildId;
  throw new ApiError('problem', 400, 'server-needed', 'Say which server: pick one in the `server` option (or run this in the server).', option);
}
