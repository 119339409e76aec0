// Reading command options that name things the service knows.
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Alter } from '../domain/alter.js';
import { ApiError } from './api-client.js';
import type { AlterDirectory } from './alter-directory.js';
import type { Tag } from '../domain/tag.js';
import type { TagDirectory } from './tag-directory.js';

/** The alter an option names (autocomplete id, username or display name), or a friendly error. */
export async function requireAlter(interaction: ChatInputCommandInteraction, alters: AlterDirectory, option: string, target = '@me'): Promise<Alter> {
  const typed = interaction.options.getString(option, true);
  const alter = await alters.resolve(interaction.user.id, typed, target);
  if (!alter) throw new ApiError('problem', 404, 'unknown-alter', `No alter called “${typed.slice(0, 100)}” here. Pick one from the list as you type.`, option);
  return alter;
}

/** The tag an option names (autocomplete id, name or display name), or a friendly error. */
export async function requireTag(interaction: ChatInputCommandInteraction, tags: TagDirectory, option: string, target = '@me'): Promise<Tag> {
  const typed = interaction.options.getString(option, true);
  const tag = await tags.resolve(interaction.user.id, typed, target);
  if (!tag) throw new ApiError('problem', 404, 'unknown-tag', `No tag called “${typed.slice(0, 100)}” here. Pick one from the list as you type.`, option);
  return tag;
}

/** `{user}` for the API: the chosen user's id, or @me when none (or oneself) was chosen. */
export function targetOf(interaction: ChatInputCommandInteraction, option = 'user'): string {
  const user = interaction.options.getUser(option);
  return user && user.id !== interaction.user.id ? user.id : '@me';
}
