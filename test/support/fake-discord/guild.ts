// The guild model: channels (with permission overwrites, categories kept in sync, threads), roles
// and members, as GUILD_CREATE describes them; changes after READY are dispatched so discord.js's
// cache follows.
import { ALL_PERMISSIONS, DEFAULT_BOT_PERMISSIONS, EVERYONE_PERMISSIONS, Intent, OWNER_ID, THREAD_ONLY_TYPES, THREAD_TYPES, isThread } from './constants.js';
import { JOINED_AT, bits, partialMember, role, toApiUser } from './objects.js';
import type { Gateway } from './gateway.js';
import type { FakeState } from './state.js';
import type { ApiChannel, ApiMember, ApiOverwrite, ApiRole, ApiUser, ChannelInput, FakeDiscord, Json, MemberInput, OverwriteInput, RoleInput } from './types.js';

export type GuildModel = ReturnType<typeof createGuildModel>;

export function createGuildModel(state: FakeState, gateway: Pick<Gateway, 'dispatchIf'>) {
  const { guild, botUser, botRoleId, channelId, channelName, channels, roles, members, snowflake, snowflakeTime, notify } = state;
  const { dispatchIf } = gateway;

  const overwriteKey = (o: ApiOverwrite): string => `${o.id}:${o.type}:${o.allow}:${o.deny}`;
  const sameOverwrites = (a: ApiOverwrite[] | undefined, b: ApiOverwrite[] | undefined): boolean => {
    const left = (a ?? []).map(overwriteKey).sort();
    const right = (b ?? []).map(overwriteKey).sort();
    return left.length === right.length && left.every((key, index) => key === right[index]);
  };

  const toOverwrite = (input: OverwriteInput): ApiOverwrite => {
    const type = input.type ? (input.type === 'role' ? 0 : 1) : roles.has(input.id) ? 0 : 1;
    return { id: input.id, type, allow: bits(input.allow).toString(), deny: bits(input.deny).toString() };
  };

  const channelJson = (input: ChannelInput, id: string, previous?: ApiChannel): ApiChannel => {
    const type = input.type ?? previous?.type ?? 0;
    if (THREAD_TYPES.has(type)) {
      const parentId = input.parentId ?? previous?.parent_id ?? undefined;
      const parent = parentId === undefined ? undefined : channels.get(parentId);
      if (!parent || isThread(parent) || parent.type === 4) throw new Error(`fake Discord: thread "${input.name}" needs a parentId naming a text or forum channel`);
      if (input.overwrites?.length) throw new Error('fake Discord: threads have no permission overwrites; set them on the parent channel');
      const created = ((previous?.thread_metadata as Json | undefined)?.create_timestamp as string | undefined) ?? snowflakeTime(id);
      return {
        id,
        type,
        guild_id: guild.id,
        name: input.name,
        parent_id: parent.id,
        owner_id: OWNER_ID,
        last_message_id: (previous?.last_message_id as string | null | undefined) ?? null,
        message_count: (previous?.message_count as number | undefined) ?? 0,
        member_count: 1,
        total_message_sent: (previous?.total_message_sent as number | undefined) ?? 0,
        rate_limit_per_user: 0,
        flags: 0,
        applied_tags: [],
        thread_metadata: {
          archived: input.archived ?? false,
          auto_archive_duration: 1440,
          archive_timestamp: created,
          locked: input.locked ?? false,
          create_timestamp: created,
          ...(type === 12 ? { invitable: true } : {}),
        },
      };
    }
    const parentId = input.parentId ?? previous?.parent_id ?? null;
    const category = parentId === null ? undefined : channels.get(parentId);
    // Discord: categories do not nest, and a channel's parent is a category (50035 otherwise).
    if (parentId !== null && type === 4) throw new Error(`fake Discord: category "${input.name}" cannot be in a category`);
    if (parentId !== null && category?.type !== 4) throw new Error(`fake Discord: channel "${input.name}" needs a parentId naming a category (type 4)`);
    const base: ApiChannel = {
      id,
      type,
      guild_id: guild.id,
      name: input.name,
      position: (previous?.position as number | undefined) ?? channels.size,
      // A channel made in a category starts synced to it: a copy of the category's overwrites.
      permission_overwrites: input.overwrites
        ? input.overwrites.map(toOverwrite)
        : structuredClone(previous?.permission_overwrites ?? (previous ? [] : (category?.permission_overwrites ?? []))),
      parent_id: parentId,
      nsfw: false,
      flags: 0,
    };
    if (type === 4) return base;
    const textLike = {
      topic: null,
      last_message_id: (previous?.last_message_id as string | null | undefined) ?? null,
      rate_limit_per_user: 0,
      default_auto_archive_duration: 1440,
    };
    if (THREAD_ONLY_TYPES.has(type)) {
      return {
        ...base,
        ...textLike,
        available_tags: [],
        default_reaction_emoji: null,
        default_thread_rate_limit_per_user: 0,
        default_sort_order: null,
        default_forum_layout: 0,
        template: '',
      };
    }
    return { ...base, ...textLike };
  };

  const publishChannel = (channel: ApiChannel, existed: boolean): void => {
    if (isThread(channel)) dispatchIf(Intent.Guilds, existed ? 'THREAD_UPDATE' : 'THREAD_CREATE', existed ? channel : { ...channel, newly_created: true });
    else dispatchIf(Intent.Guilds, existed ? 'CHANNEL_UPDATE' : 'CHANNEL_CREATE', channel);
  };

  const putChannel = (input: ChannelInput): ApiChannel => {
    const id = input.id ?? snowflake();
    const previous = channels.get(id);
    const channel = channelJson(input, id, previous);
    channels.set(id, channel);
    publishChannel(channel, previous !== undefined);
    notify();
    return channel;
  };

  const memberJson = (memberUser: ApiUser, memberRoles: string[], nick: string | null = null): ApiMember =>
    ({ ...partialMember(undefined, memberRoles, nick), user: memberUser }) as ApiMember;

  const memberPartial = (userId: string): Json | undefined => {
    const member = members.get(userId);
    return member && partialMember(undefined, member.roles, member.nick, member.joined_at);
  };

  const putMember = (input: MemberInput, silently = false): ApiMember => {
    const memberUser = toApiUser(input.user);
    const previous = members.get(memberUser.id);
    const member = memberJson(memberUser, input.roles ?? previous?.roles ?? [], input.nick === undefined ? (previous?.nick ?? null) : input.nick);
    members.set(memberUser.id, member);
    if (!silently) {
      const own = memberUser.id === botUser.id;
      if (previous) dispatchIf(own ? 0 : Intent.GuildMembers, 'GUILD_MEMBER_UPDATE', { ...member, guild_id: guild.id });
      else dispatchIf(Intent.GuildMembers, 'GUILD_MEMBER_ADD', { ...member, guild_id: guild.id });
      notify();
    }
    return member;
  };

  const putRole = (input: RoleInput): ApiRole => {
    const id = input.id ?? snowflake();
    const previous = roles.get(id);
    const next = previous
      ? {
          ...previous,
          name: input.name,
          permissions: bits(input.permissions).toString(),
          position: input.position ?? previous.position,
          mentionable: input.mentionable ?? previous.mentionable,
        }
      : role(id, input.name, input.position ?? roles.size, bits(input.permissions).toString(), { mentionable: input.mentionable ?? false });
    roles.set(id, next);
    dispatchIf(Intent.Guilds, previous ? 'GUILD_ROLE_UPDATE' : 'GUILD_ROLE_CREATE', { guild_id: guild.id, role: next });
    notify();
    return next;
  };

  roles.set(guild.id, role(guild.id, '@everyone', 0, EVERYONE_PERMISSIONS));
  roles.set(botRoleId, role(botRoleId, botUser.username, 1, DEFAULT_BOT_PERMISSIONS.toString(), { managed: true, tags: { bot_id: botUser.id } }));
  members.set(botUser.id, memberJson(botUser, [botRoleId]));
  channels.set(channelId, channelJson({ name: channelName }, channelId));

  const textChannel = (id: string, name: string): Json => ({
    id,
    type: 0,
    guild_id: guild.id,
    name,
    position: 0,
    permission_overwrites: [],
    parent_id: null,
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  });

  const guildObject = (): Json => ({
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: OWNER_ID,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: state.premiumTier,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    features: [],
    application_id: null,
    system_channel_id: channelId,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    max_members: 500000,
    max_video_channel_users: 25,
    roles: [...roles.values()],
    emojis: [],
    stickers: [],
  });

  const guildCreate = (intents: number): Json => ({
    ...guildObject(),
    joined_at: JOINED_AT,
    large: false,
    unavailable: false,
    lazy: true,
    member_count: members.size,
    // Discord always includes the bot's own member, which guild.members.me relies on; other
    // members only come with the GuildMembers intent in this fake.
    members: [...members.values()].filter((m) => m.user.id === botUser.id || (intents & Intent.GuildMembers) !== 0),
    channels: [...channels.values()].filter((c) => !isThread(c)),
    threads: [...channels.values()].filter((c) => isThread(c)),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    embedded_activities: [],
  });

  /** Another guild's GUILD_CREATE: the bot alone in it, with the channels and roles it was given. */
  const otherGuildCreate = (id: string): Json => {
    const other = state.otherGuilds.get(id);
    if (!other) throw new Error(`fake Discord: no guild ${id}`);
    const everyone = role(id, '@everyone', 0, EVERYONE_PERMISSIONS);
    const otherRoles = other.roleIds.map((roleId, n) => role(roleId, `role ${n + 1}`, n + 1, '0'));
    const otherChannels = other.channelIds.map((channelId, n) => {
      const overwriteRole = other.roleIds[n % Math.max(other.roleIds.length, 1)];
      return {
        ...channelJson({ name: `channel-${n + 1}` }, channelId),
        guild_id: id,
        position: n,
        topic: `What channel ${n + 1} is for`,
        permission_overwrites: overwriteRole ? [{ id: overwriteRole, type: 0, allow: '0', deny: '2048' }] : [],
      };
    });
    return {
      ...guildObject(),
      id,
      name: other.name,
      system_channel_id: null,
      roles: [everyone, ...otherRoles],
      emojis: [],
      stickers: [],
      joined_at: JOINED_AT,
      large: false,
      unavailable: false,
      lazy: true,
      member_count: 1,
      members: [{ ...structuredClone(members.get(botUser.id)), roles: [] }],
      channels: otherChannels,
      threads: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      embedded_activities: [],
    };
  };

  const api: Pick<
    FakeDiscord,
    'setUploadLimit' | 'setPremiumTier' | 'addChannel' | 'setChannelOverwrites' | 'syncWithCategory' | 'addRole' | 'addMember' | 'setBotPermissions' | 'channel' | 'member'
  > = {
    setUploadLimit(bytes) {
      state.uploadLimit = bytes;
    },

    setPremiumTier(tier) {
      state.premiumTier = tier;
      state.uploadLimit = [10, 10, 50, 100][tier] ?? 10;
      state.uploadLimit *= 1024 * 1024;
      dispatchIf(Intent.Guilds, 'GUILD_UPDATE', guildObject());
      notify();
    },

    addChannel(input) {
      return structuredClone(putChannel(input));
    },

    setChannelOverwrites(id, overwrites) {
      const channel = channels.get(id);
      if (!channel) throw new Error(`fake Discord: no channel ${id}`);
      // Channels synced to a category (the same overwrites) follow its changes, as on Discord.
      const synced =
        channel.type === 4
          ? [...channels.values()].filter(
              (child) => child.parent_id === id && !isThread(child) && sameOverwrites(child.permission_overwrites, channel.permission_overwrites),
            )
          : [];
      const updated = putChannel({ id, name: channel.name, type: channel.type, overwrites });
      for (const child of synced) putChannel({ id: child.id, name: child.name, type: child.type, overwrites });
      return structuredClone(updated);
    },

    syncWithCategory(id) {
      const channel = channels.get(id);
      const category = channel?.parent_id ? channels.get(channel.parent_id) : undefined;
      if (!channel || isThread(channel) || category?.type !== 4) throw new Error(`fake Discord: ${id} is not a channel of a category`);
      const overwrites = (category.permission_overwrites ?? []).map((o): OverwriteInput => ({ id: o.id, type: o.type === 0 ? 'role' : 'member', allow: BigInt(o.allow), deny: BigInt(o.deny) }));
      return structuredClone(putChannel({ id, name: channel.name, type: channel.type, overwrites }));
    },

    addRole(input) {
      return structuredClone(putRole(input));
    },

    addMember(input) {
      return structuredClone(putMember(input));
    },

    setBotPermissions(target, permissions) {
      if (target === 'guild') {
        putRole({ id: botRoleId, name: botUser.username, permissions: permissions ?? DEFAULT_BOT_PERMISSIONS });
        return;
      }
      const channel = channels.get(target);
      if (!channel) throw new Error(`fake Discord: no channel ${target}`);
      if (isThread(channel)) throw new Error('fake Discord: threads take their permissions from the parent channel; set them there');
      const others = (channel.permission_overwrites ?? []).filter((o) => o.id !== botUser.id);
      const overwrites: OverwriteInput[] = others.map((o) => ({ id: o.id, type: o.type === 0 ? 'role' : 'member', allow: BigInt(o.allow), deny: BigInt(o.deny) }));
      if (permissions !== null) overwrites.push({ id: botUser.id, type: 'member', allow: permissions, deny: ALL_PERMISSIONS & ~permissions });
      putChannel({ id: target, name: channel.name, type: channel.type, overwrites });
    },

    channel(id) {
      const channel = channels.get(id);
      return channel && structuredClone(channel);
    },

    member(userId) {
      const member = members.get(userId);
      return member && structuredClone(member);
    },
  };

  return { api, channelJson, publishChannel, putChannel, putMember, putRole, memberPartial, textChannel, guildObject, guildCreate, otherGuildCreate };
}
