// Who may change a server's settings, checked on every use of /server from the interaction itself:
// Manage Server (Administrator implies it) in the member's own permissions, or a manager role the
// admins named. (A minimal gate for /server; helper C's pure gate may replace it at the merge.)
import { PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import type { ActorPermission } from '../../domain/guild.js';

/** The member's role ids as the interaction carries them (a cached member or the raw payload). */
export function interactionRoleIds(interaction: ChatInputCommandInteraction): string[] {
  const member = interaction.member;
  if (!member) return [];
  const roles = member.roles;
  return Array.isArray(roles) ? roles : [...roles.cache.keys()];
}

/** What allows this member to manage the server, or null: Manage Server first, then a manager role. */
export function managePermissionOf(interaction: ChatInputCommandInteraction, managerRoleIds: readonly string[]): ActorPermission | null {
  if (interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) return 'manage-guild';
  const held = new Set(interactionRoleIds(interaction));
  return managerRoleIds.some((id) => held.has(id)) ? 'manager-role' : null;
}
