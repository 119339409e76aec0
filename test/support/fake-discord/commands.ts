// Application commands (global and per guild) and their permissions (Server Settings →
// Integrations): what is registered, and whether Discord would deliver a command to a member.
import { OWNER_ID, isThread } from './constants.js';
import { mayUseCommand, type CommandPermission } from '../command-permissions.js';
import { HttpError } from './refusals.js';
import type { Gateway } from './gateway.js';
import type { Permissions } from './permissions.js';
import type { FakeState } from './state.js';
import type { FakeDiscord, Json } from './types.js';

export type Commands = ReturnType<typeof createCommands>;

export function createCommands(state: FakeState, gateway: Pick<Gateway, 'dispatchIf'>, permissions: Pick<Permissions, 'permissionsIn'>) {
  const { guild, applicationId, channelId, channels, members, globalCommands, guildCommands, snowflake, notify } = state;
  const { dispatchIf } = gateway;
  const { permissionsIn } = permissions;

  const storeCommands = (existing: Json[], incoming: Json[], scopeGuildId?: string): Json[] => {
    const stored = incoming.map((command) => {
      const type = command.type ?? 1;
      const previous = existing.find((c) => c.name === command.name && c.type === type);
      return {
        id: previous?.id ?? snowflake(),
        application_id: applicationId,
        version: snowflake(),
        default_member_permissions: null,
        type,
        description: '',
        dm_permission: true,
        nsfw: false,
        integration_types: [0],
        contexts: null,
        ...(scopeGuildId ? { guild_id: scopeGuildId } : {}),
        ...command,
      };
    });
    existing.splice(0, existing.length, ...stored);
    return stored;
  };

  const commandListFor = (guildId: string | undefined): Json[] => {
    if (!guildId) return globalCommands;
    if (guildId !== guild.id) throw new HttpError(403, { message: 'Missing Access', code: 50001 });
    let list = guildCommands.get(guildId);
    if (!list) guildCommands.set(guildId, (list = []));
    return list;
  };

  const commandIdFor = (name: string, type: number): string => {
    const registered = [...globalCommands, ...(guildCommands.get(guild.id) ?? [])].find((c) => c.name === name && (c.type ?? 1) === type);
    return typeof registered?.id === 'string' ? registered.id : snowflake();
  };

  /** Overrides by command id (the application id: the whole app), as an admin set them. */
  const commandPermissions = new Map<string, CommandPermission[]>();

  const registeredCommand = (name: string, type: number): Json | undefined =>
    [...(guildCommands.get(guild.id) ?? []), ...globalCommands].find((c) => c.name === name && (c.type ?? 1) === type);

  /** Whether Discord delivers the command to this member here; undefined for a command never registered. */
  const commandAllowed = (name: string, type: number, userId: string, inChannel: string, permissions?: bigint): boolean | undefined => {
    const command = registeredCommand(name, type);
    if (!command) return undefined;
    const channel = channels.get(inChannel);
    return mayUseCommand({
      guildId: guild.id,
      ownerId: OWNER_ID,
      userId,
      roleIds: members.get(userId)?.roles ?? [],
      permissions: permissions ?? permissionsIn('guild', userId),
      channelId: inChannel,
      parentId: channel && isThread(channel) ? channel.parent_id : null,
      defaultMemberPermissions: (command.default_member_permissions as string | null | undefined) ?? null,
      commandOverrides: commandPermissions.get(command.id as string) ?? [],
      appOverrides: commandPermissions.get(applicationId) ?? [],
    });
  };

  const commandPermissionsJson = (id: string): Json => ({
    id,
    application_id: applicationId,
    guild_id: guild.id,
    permissions: commandPermissions.get(id) ?? [],
  });

  const api: Pick<FakeDiscord, 'commands' | 'setCommandPermissions' | 'mayUseCommand'> = {
    commands(guildId) {
      return guildId ? (guildCommands.get(guildId) ?? []) : globalCommands;
    },

    setCommandPermissions(commandId, permissions) {
      const known = commandId === applicationId || [...(guildCommands.get(guild.id) ?? []), ...globalCommands].some((c) => c.id === commandId);
      if (!known) throw new Error(`fake Discord: no command ${commandId} (nor the application id) to set permissions on`);
      if (permissions.length > 100) throw new Error('fake Discord: at most 100 permission overrides per command');
      commandPermissions.set(commandId, structuredClone(permissions));
      dispatchIf(0, 'APPLICATION_COMMAND_PERMISSIONS_UPDATE', commandPermissionsJson(commandId));
      notify();
    },

    mayUseCommand(name, userId, inChannel = channelId, type = 1) {
      return commandAllowed(name, type, userId, inChannel) ?? false;
    },
  };

  return { api, storeCommands, commandListFor, commandIdFor, commandAllowed, commandPermissions, commandPermissionsJson };
}
