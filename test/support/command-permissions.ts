// Who may use an application command in a server, as Discord decides before it delivers the
// interaction: the command's `default_member_permissions`, and the overrides an admin sets in Server
// Settings → Integrations (per command, or for the whole app under the application's id), which a
// bot can read but never set. The fake Discord refuses to deliver what Discord would not.
//
// Discord's rules, as its documentation states them:
// - The guild owner and members with Administrator may use every command.
// - Channel overrides (type 3; the id `guild_id - 1` means every channel) are checked first: a
//   channel denied for the command, or for the app when the command has no channel entry, hides it.
// - Member overrides: a command-level entry for the user wins; else the member's roles (an allowing
//   role wins over a denying one); else the command's @everyone entry (its id is the guild id).
//   Without any command-level entry, the app-level entries are read the same way.
// - Without a user, role or @everyone entry at either level, `default_member_permissions` decides:
//   the member needs all of its bits (null: everyone; "0": admins only).

/** One override as the API sends it: type 1 role, 2 user, 3 channel. */
export interface CommandPermission {
  id: string;
  type: 1 | 2 | 3;
  permission: boolean;
}

export interface CommandUse {
  guildId: string;
  ownerId: string;
  userId: string;
  roleIds: readonly string[];
  /** The member's server-wide permissions. */
  permissions: bigint;
  /** The channel, and its parent when it is a thread (threads follow their parent's entry). */
  channelId: string;
  parentId?: string | null;
  defaultMemberPermissions: string | null;
  commandOverrides: readonly CommandPermission[];
  appOverrides: readonly CommandPermission[];
}

const ADMINISTRATOR = 1n << 3n;

/** The id that stands for every channel of the guild in a channel override. */
export const allChannelsId = (guildId: string): string => (BigInt(guildId) - 1n).toString();

function channelVerdict(entries: readonly CommandPermission[], use: CommandUse): boolean | undefined {
  const channels = entries.filter((entry) => entry.type === 3);
  const own = channels.find((entry) => entry.id === use.channelId || (use.parentId !== undefined && use.parentId !== null && entry.id === use.parentId));
  return (own ?? channels.find((entry) => entry.id === allChannelsId(use.guildId)))?.permission;
}

function memberVerdict(entries: readonly CommandPermission[], use: CommandUse): boolean | undefined {
  const forUser = entries.find((entry) => entry.type === 2 && entry.id === use.userId);
  if (forUser) return forUser.permission;
  const forRoles = entries.filter((entry) => entry.type === 1 && use.roleIds.includes(entry.id));
  if (forRoles.length > 0) return forRoles.some((entry) => entry.permission);
  return entries.find((entry) => entry.type === 1 && entry.id === use.guildId)?.permission;
}

/** Whether Discord lets this member use the command here (and so delivers the interaction). */
export function mayUseCommand(use: CommandUse): boolean {
  if (use.userId === use.ownerId || (use.permissions & ADMINISTRATOR) !== 0n) return true;
  const channel = channelVerdict(use.commandOverrides, use) ?? channelVerdict(use.appOverrides, use);
  if (channel === false) return false;
  const member = memberVerdict(use.commandOverrides, use) ?? memberVerdict(use.appOverrides, use);
  if (member !== undefined) return member;
  if (use.defaultMemberPermissions === null) return true;
  const needed = BigInt(use.defaultMemberPermissions);
  return needed !== 0n && (use.permissions & needed) === needed;
}
