// Who may change a server's settings (/server): members with Manage Server (Administrator has it),
// and members holding a manager role the admins named. Decided from the interaction's own member
// (its permission bitfield and roles, as Discord sent them with this interaction), never from a
// cache: the command is registered for Manage Server, but a server may override that in its
// Integrations settings, so this re-check on every use is what protects the settings.
import { PermissionFlagsBits, type APIInteractionGuildMember, type GuildMember, type PermissionsBitField } from 'discord.js';
import type { ActorPermission } from '../../domain/guild.js';

export interface ManagingMember {
  /** The member's permissions as the interaction carries them (`member.permissions`). */
  permissions: bigint;
  roleIds: readonly string[];
}

/** Why a member may manage the server (what the bot vouches for to the service), or null when they may not. */
export type ManageGrant = ActorPermission | null;

export function manageGrant(member: ManagingMember, managerRoleIds: readonly string[]): ManageGrant {
  const permissions = member.permissions;
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n || (permissions & PermissionFlagsBits.ManageGuild) !== 0n) return 'manage-guild';
  if (managerRoleIds.length > 0 && member.roleIds.some((roleId) => managerRoleIds.includes(roleId))) return 'manager-role';
  return null;
}

export function mayManageServer(member: ManagingMember, managerRoleIds: readonly string[]): boolean {
  return manageGrant(member, managerRoleIds) !== null;
}

/**
 * The interaction's own member as `manageGrant` reads it: its permissions as Discord computed them
 * for this interaction (`memberPermissions`) and its roles (ids from the raw member, or the cached
 * member's). Undefined outside a server.
 */
export function managingMember(interaction: {
  memberPermissions: Readonly<PermissionsBitField> | null;
  member: GuildMember | APIInteractionGuildMember | null;
}): ManagingMember | undefined {
  const { member, memberPermissions } = interaction;
  if (!member || !memberPermissions) return undefined;
  return { permissions: memberPermissions.bitfield, roleIds: interactionRoleIds(interaction) };
}

/** What allows the interaction's member to manage the server, from the interaction itself, or null. */
export function managePermissionOf(
  interaction: { memberPermissions: Readonly<PermissionsBitField> | null; member: GuildMember | APIInteractionGuildMember | null },
  managerRoleIds: readonly string[],
): ManageGrant {
  const member = managingMember(interaction);
  return member ? manageGrant(member, managerRoleIds) : null;
}

/** The interaction member's role ids (none outside a server). */
export function interactionRoleIds(interaction: { member: GuildMember | APIInteractionGuildMember | null }): string[] {
  const roles = interaction.member?.roles;
  if (!roles) return [];
  return Array.isArray(roles) ? roles : [...roles.cache.keys()];
}
