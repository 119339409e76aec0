// Discord objects as the API sends them (users, members, roles, resolved data, 429s) and small
// helpers over their fields.
import { createHash } from 'node:crypto';
import { EVERYONE_PERMISSIONS } from './constants.js';
import type { ApiRole, ApiUser, FakeDiscordUser, Json, ReactionState, RestFailure } from './types.js';

/** An API user object; `extra` overrides any field. */
export function user(id: string, username: string, extra: Partial<ApiUser> = {}): ApiUser {
  return {
    id,
    username,
    global_name: null,
    avatar: null,
    discriminator: '0',
    bot: false,
    system: false,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    ...extra,
  };
}

export function toApiUser(value: FakeDiscordUser | ApiUser): ApiUser {
  return 'discriminator' in value ? value : user(value.id, value.username);
}

export const JOINED_AT = new Date(Date.UTC(2024, 0, 1)).toISOString();

/** A guild member object without `user`, as in `resolved.members` (which carry permissions). */
export function partialMember(permissions?: string, roles: string[] = [], nick: string | null = null, joinedAt = JOINED_AT): Json {
  return {
    roles,
    nick,
    avatar: null,
    banner: null,
    premium_since: null,
    joined_at: joinedAt,
    pending: false,
    communication_disabled_until: null,
    flags: 0,
    deaf: false,
    mute: false,
    ...(permissions === undefined ? {} : { permissions }),
  };
}

/** `data.resolved` for user options or targets: users and their guild members. */
export function resolvedUsers(users: (FakeDiscordUser | ApiUser)[], permissions = EVERYONE_PERMISSIONS): Json {
  const resolved: { users: Record<string, ApiUser>; members: Record<string, Json> } = { users: {}, members: {} };
  for (const u of users) {
    resolved.users[u.id] = toApiUser(u);
    resolved.members[u.id] = partialMember(permissions);
  }
  return resolved;
}

/** `data.resolved` for attachment options: the objects uploadAttachment() returned. */
export function resolvedAttachments(attachments: Json[]): Json {
  return { attachments: Object.fromEntries(attachments.map((attachment) => [String(attachment.id), attachment])) };
}

/** The headers and body of a Discord 429 that @discordjs/rest honours. */
export function rateLimited(retryAfterSeconds: number, times = 1): RestFailure {
  return {
    status: 429,
    times,
    headers: {
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.now() / 1000 + retryAfterSeconds),
      'x-ratelimit-reset-after': String(retryAfterSeconds),
      'x-ratelimit-bucket': 'fakebucket',
      'x-ratelimit-scope': 'user',
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: false },
  };
}

export function role(id: string, name: string, position: number, permissions: string, extra: Json = {}): ApiRole {
  const colors = { primary_color: 0, secondary_color: null, tertiary_color: null };
  return {
    id,
    name,
    color: 0,
    colors,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions,
    managed: false,
    mentionable: false,
    flags: 0,
    ...extra,
  };
}

export function waitWithTimeout(what: string, timeoutMs: number, register: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let unregister = (): void => undefined;
    const timer = setTimeout(() => {
      unregister();
      reject(new Error(`fake Discord: timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    unregister = register(() => {
      clearTimeout(timer);
      unregister();
      resolve();
    });
  });
}

export const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
};

export function contentTypeFor(filename: string): string {
  const extension = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/** '❓' → { id: null, name: '❓' }; 'name:id', 'a:name:id', '<:name:id>' → a custom emoji. */
export function parseEmoji(value: string): ReactionState['emoji'] {
  const custom = /^<?(a)?:?([\w~-]+):(\d{15,21})>?$/.exec(value);
  if (custom?.[2] && custom[3]) return { id: custom[3], name: custom[2], ...(custom[1] ? { animated: true } : {}) };
  return { id: null, name: value };
}

export const emojiKey = (emoji: ReactionState['emoji']): string => emoji.id ?? emoji.name;
export const shortHash = (value: string | Buffer): string => createHash('md5').update(value).digest('hex');
export const bits = (value: bigint | string | undefined): bigint => (value === undefined ? 0n : BigInt(value));
