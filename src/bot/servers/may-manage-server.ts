// Who may change a server's settings (/server): members with Manage Server (Administrator has it),
// and members holding a manager role the admins named. Decided from the interaction's own member
// (its permission bitfield and roles, as Discord sent them with this interaction), never from a
// cache: the command is registered for Manage Server, but a server may override that in its
// Integrations settings, so this re-check on every use is what protects the settings.
import { PermissionFlagsBits, type APIInteractionGuildMember, type GuildMember, type PermissionsBitField } from 'discord.js';

export interface ManagingMember {
  /** The member's permissions as the interaction carries them (`member.permissions`). */
  permissions: bigint;
  roleIds: readonly string[];
}

/** Why a member may manage the server, or null when they may not. */
export type ManageGrant = 'manage-server' | 'manager-role' | null;

export function manageGrant(member: ManagingMember, managerRoleIds: readonly string[]): ManageGrant {
  const permissions = member.permissions;
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n || (permissions & PermissionFlagsBits.ManageGuild) !== 0n) return 'manage-server';
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
  const roleIds = Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
  return { permissions: memberPermissions.bitfield, roleIds };
}
