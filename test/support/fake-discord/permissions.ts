// Permissions computed the way discord.js computes them from its cache (base from roles, then
// overwrites), and the checks Discord makes before it lets the bot act.
import { ALL_PERMISSIONS, OWNER_ID, Permission, isThread } from './constants.js';
import { bits } from './objects.js';
import { missingAccess, missingPermissions, unknownChannel } from './refusals.js';
import type { FakeState } from './state.js';
import type { ApiChannel, ApiOverwrite, FakeDiscord } from './types.js';

export type Permissions = ReturnType<typeof createPermissions>;

export function createPermissions(state: FakeState) {
  const { guild, botUser, channels, roles, members } = state;

  const basePermissions = (userId: string): bigint => {
    if (userId === OWNER_ID) return ALL_PERMISSIONS;
    let permissions = bits(roles.get(guild.id)?.permissions);
    for (const roleId of members.get(userId)?.roles ?? []) permissions |= bits(roles.get(roleId)?.permissions);
    return (permissions & Permission.Administrator) !== 0n ? ALL_PERMISSIONS : permissions;
  };

  /** As discord.js's GuildChannel#permissionsFor: @everyone's overwrite, then the member's roles'
   * overwrites together, then the member's own; threads use their parent's. */
  const permissionsIn = (target: string, userId = botUser.id): bigint => {
    const base = basePermissions(userId);
    if (target === 'guild' || base === ALL_PERMISSIONS) return base;
    let channel = channels.get(target);
    if (channel && isThread(channel)) channel = channel.parent_id ? channels.get(channel.parent_id) : undefined;
    if (!channel) return base;
    const memberRoles = new Set(members.get(userId)?.roles ?? []);
    let everyone: ApiOverwrite | undefined;
    let own: ApiOverwrite | undefined;
    let roleAllow = 0n;
    let roleDeny = 0n;
    for (const overwrite of channel.permission_overwrites ?? []) {
      if (overwrite.id === guild.id) everyone = overwrite;
      else if (memberRoles.has(overwrite.id)) {
        roleAllow |= bits(overwrite.allow);
        roleDeny |= bits(overwrite.deny);
      } else if (overwrite.id === userId) own = overwrite;
    }
    let permissions = (base & ~bits(everyone?.deny)) | bits(everyone?.allow);
    permissions = (permissions & ~roleDeny) | roleAllow;
    return (permissions & ~bits(own?.deny)) | bits(own?.allow);
  };

  const requirePermission = (target: string, permission: bigint): void => {
    if ((permissionsIn(target) & permission) !== permission) throw missingPermissions();
  };

  /** A channel the bot may see, or the error Discord gives. */
  const visibleChannel = (id: string): ApiChannel => {
    const channel = channels.get(id);
    if (!channel) throw unknownChannel();
    if ((permissionsIn(id) & Permission.ViewChannel) === 0n) throw missingAccess();
    return channel;
  };

  const highestRole = (userId: string): number => Math.max(0, ...(members.get(userId)?.roles ?? []).map((id) => roles.get(id)?.position ?? 0));

  /** What Discord checks before the bot changes another member: the owner never, and only members
   * whose highest role is below the bot's highest role. */
  const requireOutranks = (userId: string): void => {
    if (userId === OWNER_ID || highestRole(botUser.id) <= highestRole(userId)) throw missingPermissions();
  };

  const api: Pick<FakeDiscord, 'permissionsIn'> = {
    permissionsIn(target, userId) {
      return permissionsIn(target, userId);
    },
  };

  return { api, permissionsIn, requirePermission, visibleChannel, highestRole, requireOutranks };
}
