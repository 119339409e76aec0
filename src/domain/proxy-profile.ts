// The proxy profile: everything the bot needs to decide and send proxied messages for one user in
// one server, in one read it can cache (revalidated by ETag). Per-server names, avatars and the
// display tag are already resolved for that server, as proxy-rules.md's mapping describes.
import { z } from 'zod';
import type { AlterFieldName, AlterRecord } from './alter.js';
import { ALTER_MODES } from './alter.js';
import { Autoproxy, type AutoproxyRecord, toAutoproxy } from './autoproxy.js';
import { SystemFlags } from './privacy-bits.js';
import type { SystemRecord } from './system.js';
import { GuildId } from './values.js';

export const ProxyProfileQuery = z.strictObject({
  guild: GuildId.describe('The server the profile is for: its per-server names, avatars, display tag and autoproxy entries.'),
});

export const ProxyAlter = z
  .strictObject({
    alterId: z.number().int(),
    username: z.string(),
    name: z.string().describe('The name for this server: its nameMap entry, else displayName.'),
    avatarUrl: z.string().nullable().describe('The avatar for this server: avatarUrlMap, else webhookAvatarUrl, else avatarUrl.'),
    pronouns: z.string().nullable(),
    color: z.string().nullable(),
    alterMode: z.enum(ALTER_MODES),
    proxyTags: z.array(z.strictObject({ prefix: z.string(), suffix: z.string() })).describe('In stored order; an absent prefix or suffix is "".'),
    autoproxyEnabled: z.boolean().describe('false: `front` and `latch` autoproxy never send as this alter; its tags and `alter` mode entries still do.'),
  })
  .meta({ id: 'ProxyAlter' });
export type ProxyAlter = z.infer<typeof ProxyAlter>;

export const ProxyProfile = z
  .strictObject({
    revision: z.number().int().describe('Changes with every write that changes this profile; the ETag carries it.'),
    systemId: z.string(),
    guildId: z.string(),
    disabled: z.boolean().describe('The system proxies nowhere.'),
    guildDisabled: z.boolean().describe('The owner turned proxying off in this server (disabledGuilds).'),
    caseSensitive: z.boolean().describe('Whether proxy tags match case (system flag 4 off).'),
    keepProxy: z.boolean().describe('System flag 1: the sent text keeps the proxy tags.'),
    showPronouns: z.boolean().describe('System flag 2: pronouns are appended to the proxied name.'),
    displayTag: z.string().nullable().describe('The display tag for this server: displayTagMap, else systemDisplayTag.'),
    latchExpirationMs: z.number().int().describe('0: the latch never expires.'),
    autoproxy: z.array(Autoproxy).describe('The global entry, this server’s, and its channels’.'),
    front: z
      .strictObject({
        latest: z.number().int().nullable().describe('The primary fronter of the newest switch, whichever app made it: what `front` mode speaks as. Null when nobody fronts (no switch yet, or a switch-out).'),
        byClient: z.record(z.string(), z.number().int()).describe('For entries whose mode is an integration’s client id: the primary fronter of that client’s newest switch (absent when it switched out or never switched).'),
      })
      .describe('The switches (POST /front) that `front` autoproxy follows: only the primary fronter speaks.'),
    alters: z.array(ProxyAlter).describe('Every alter of the system, in id order.'),
  })
  .meta({ id: 'ProxyProfile' });
export type ProxyProfile = z.infer<typeof ProxyProfile>;

/** The alter fields the profile shows: an edit of any other field leaves its revision (and ETag). */
export const ALTER_FIELDS_IN_PROFILE = ['username', 'displayName', 'nameMap', 'avatarUrl', 'avatarUrlMap', 'webhookAvatarUrl', 'pronouns', 'color', 'alterMode', 'proxyTags', 'autoproxyEnabled'] as const satisfies readonly AlterFieldName[];

/** The ETag of a profile: the system and its revision (the guild is part of the URL). */
export function profileETag(systemId: number, revision: number): string {
  return `"p1-${systemId}-${revision}"`;
}

function proxyAlter(alter: AlterRecord, guildId: string): ProxyAlter {
  return {
    alterId: alter.id,
    username: alter.username,
    name: alter.nameMap.find((entry) => entry.server === guildId)?.name ?? alter.displayName,
    avatarUrl: alter.avatarUrlMap[guildId] ?? alter.webhookAvatarUrl ?? alter.avatarUrl,
    pronouns: alter.pronouns,
    color: alter.color,
    alterMode: alter.alterMode,
    proxyTags: alter.proxyTags.map((tag) => ({ prefix: tag.prefix ?? '', suffix: tag.suffix ?? '' })),
    autoproxyEnabled: alter.autoproxyEnabled,
  };
}

export function buildProxyProfile(
  system: SystemRecord,
  revision: number,
  guildId: string,
  alters: AlterRecord[],
  autoproxy: AutoproxyRecord[],
  front: ProxyProfile['front'],
): ProxyProfile {
  const flag = (bit: number) => (system.flags & bit) === bit;
  return {
    revision,
    systemId: String(system.id),
    guildId,
    disabled: system.disabled,
    guildDisabled: system.disabledGuilds.includes(guildId),
    caseSensitive: !flag(SystemFlags.tagsIgnoreCase),
    keepProxy: flag(SystemFlags.keepProxy),
    showPronouns: flag(SystemFlags.showPronouns),
    displayTag: system.displayTagMap[guildId] ?? system.displayTag,
    latchExpirationMs: system.latchExpiration,
    autoproxy: autoproxy.map(toAutoproxy),
    front,
    alters: alters.map((alter) => proxyAlter(alter, guildId)),
  };
}
