// Reading command options that name things the service knows.
import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import type { Alter } from '../domain/alter.js';
import { clampGraphemes } from '../domain/proxy/text.js';
import { ApiError } from './api-client.js';
import type { AlterDirectory } from './lists/alter-directory.js';
import type { Tag } from '../domain/tag.js';
import type { TagDirectory } from './lists/tag-directory.js';
import type { FieldDirectory } from './lists/field-directory.js';
import type { ProfileField } from '../domain/profile-fields.js';
import { targetFor } from './target.js';

/** Typing this in a text option clears the field it sets. */
export const CLEAR = '-';

/** The alter an option names (autocomplete id, username or display name), or a friendly error. */
export async function requireAlter(interaction: ChatInputCommandInteraction, alters: AlterDirectory, option: string, target = '@me'): Promise<Alter> {
  const typed = interaction.options.getString(option, true);
  const alter = await alters.resolve(interaction.user.id, typed, target);
  if (!alter) throw new ApiError('problem', 404, 'unknown-alter', `No alter called “${clampGraphemes(typed, 100)}” here. Pick one from the list as you type.`, option);
  return alter;
}

/** The tag an option names (autocomplete id, name or display name), or a friendly error. */
export async function requireTag(interaction: ChatInputCommandInteraction, tags: TagDirectory, option: string, target = '@me'): Promise<Tag> {
  const typed = interaction.options.getString(option, true);
  const tag = await tags.resolve(interaction.user.id, typed, target);
  if (!tag) throw new ApiError('problem', 404, 'unknown-tag', `No tag called “${clampGraphemes(typed, 100)}” here. Pick one from the list as you type.`, option);
  return tag;
}

/** The profile field an option names (autocomplete id or name), or a friendly error. */
export async function requireField(interaction: ChatInputCommandInteraction, fields: FieldDirectory, option: string, target = '@me'): Promise<ProfileField> {
  const typed = interaction.options.getString(option, true);
  const field = await fields.resolve(interaction.user.id, typed, target);
  if (!field) throw new ApiError('problem', 404, 'unknown-profile-field', `No profile field called “${clampGraphemes(typed, 100)}” here. Pick one from the list as you type.`, option);
  return field;
}

/**
 * `{user}` for the API from a user option: the chosen user's id, or @me when none (or oneself) was
 * chosen. Autocomplete sees the option as the id typed so far, a command as the resolved user:
 * both carry the id as the option's value.
 */
export function targetOf(interaction: ChatInputCommandInteraction | AutocompleteInteraction, option = 'user'): string {
  const chosen = interaction.options.get(option)?.value;
  return targetFor(interaction.user.id, typeof chosen === 'string' ? chosen : undefined);
}
