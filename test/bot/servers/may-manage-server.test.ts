// Who may manage a server's settings, as a table: Manage Server or Administrator, or a manager role.
import { PermissionFlagsBits, PermissionsBitField, type APIInteractionGuildMember } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { manageGrant, managingMember, mayManageServer, type ManageGrant } from '../../../src/bot/servers/may-manage-server.js';

const EVERYONE = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.UseApplicationCommands;
const MANAGERS = '700000000000000001';
const OTHER_ROLE = '700000000000000002';

describe('mayManageServer', () => {
  it.each<[string, bigint, string[], string[], ManageGrant]>([
    ['a plain member', EVERYONE, [], [MANAGERS], null],
    ['a member with Manage Server', EVERYONE | PermissionFlagsBits.ManageGuild, [], [], 'manage-guild'],
    ['an administrator', PermissionFlagsBits.Administrator, [], [], 'manage-guild'],
    ['a member holding a manager role', EVERYONE, [OTHER_ROLE, MANAGERS], [MANAGERS], 'manager-role'],
    ['a member holding other roles only', EVERYONE, [OTHER_ROLE], [MANAGERS], null],
    ['no manager roles named', EVERYONE, [OTHER_ROLE], [], null],
    ['Manage Channels or Manage Roles are not Manage Server', EVERYONE | PermissionFlagsBits.ManageChannels | PermissionFlagsBits.ManageRoles, [], [], null],
    ['Manage Server and a manager role: the permission is named', EVERYONE | PermissionFlagsBits.ManageGuild, [MANAGERS], [MANAGERS], 'manage-guild'],
  ])('%s', (_name, permissions, roleIds, managerRoleIds, expected) => {
    expect(manageGrant({ permissions, roleIds }, managerRoleIds)).toBe(expected);
    expect(mayManageServer({ permissions, roleIds }, managerRoleIds)).toBe(expected !== null);
  });
});

describe('managingMember', () => {
  it('reads the interaction’s own permissions and raw roles, and nothing outside a server', () => {
    const member = { roles: [MANAGERS] } as unknown as APIInteractionGuildMember;
    expect(managingMember({ memberPermissions: new PermissionsBitField(EVERYONE), member })).toEqual({ permissions: EVERYONE, roleIds: [MANAGERS] });
    expect(managingMember({ memberPermissions: null, member: null })).toBeUndefined();
  });
});
