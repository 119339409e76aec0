// Registers the slash commands with Discord (PUT replaces the whole set, so removed commands go
// away): in one guild when DISCORD_GUILD_ID is set (instant, for development), globally otherwise.
// REST from discord.js (its CommonJS build of @discordjs/rest), not from '@discordjs/rest': in ESM
// that is a second copy of the REST client and of its dependencies' ESM builds, loaded only for
// this one call (see also proxy/index.ts).
import { REST, Routes, type APIApplication } from 'discord.js';
import type { Command } from './command.js';

export function commandPayload(commands: readonly Command[]) {
  return commands.map((command) => command.data.toJSON());
}

export async function registerCommands(
  commands: readonly Command[],
  options: { token: string; discordApiBase: string; guildId?: string | undefined },
): Promise<{ applicationId: string; count: number; scope: string }> {
  const rest = new REST({ api: options.discordApiBase }).setToken(options.token);
  const application = (await rest.get(Routes.currentApplication())) as APIApplication;
  const body = commandPayload(commands);
  const route = options.guildId ? Routes.applicationGuildCommands(application.id, options.guildId) : Routes.applicationCommands(application.id);
  const registered = (await rest.put(route, { body })) as unknown[];
  return { applicationId: application.id, count: registered.length, scope: options.guildId ? `guild ${options.guildId}` : 'global' };
}
