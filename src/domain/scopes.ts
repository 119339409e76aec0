// The OAuth scopes of the service and what each lets a client do, in the words the consent page
// shows to people.
export const SCOPES = [
  'openid',
  'profile',
  'offline_access',
  'alters:read',
  'alters:write',
  'system:read',
  'system:write',
  'system:ai-ap',
  'messages:read',
  'messages:write',
  'events:manage',
  'guilds:manage',
  'apps:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  openid: 'Confirm who you are (your Discord user id)',
  profile: 'See your Discord username',
  offline_access: 'Stay connected when you are not using it (until you revoke access)',
  'alters:read': 'See your alters and tags',
  'alters:write': 'Create, edit and delete your alters and tags',
  'system:read': 'See your system profile',
  'system:write': 'Edit your system profile',
  'system:ai-ap': 'Switch who is fronting',
  'messages:read': 'Look up who sent a proxied message',
  'messages:write': 'Send messages as your alters (read your proxy settings and move your autoproxy latch; only the bot records the messages it sent)',
  // Held by a client's own client-credentials token; it concerns the app, never a user's data.
  'events:manage': 'Manage the app’s own webhook endpoints',
  // The bot's own client only (FIRST_PARTY_SCOPES): it acts for server admins who checked in Discord.
  'guilds:manage': 'Read and change Discord servers’ settings for the bot (the bot’s own client only)',
  // Powerful (it can cut off every other app), so never implied by another scope and asked for on its own.
  'apps:manage': 'See the apps you authorized and revoke their access',
};

/** Scopes only first-party clients (the bot) can be registered for, and so granted. */
export const FIRST_PARTY_SCOPES: readonly Scope[] = ['guilds:manage'];

/** The scopes of the /v1 API itself (the others are OpenID Connect's: who you are, staying connected). */
export const API_SCOPES = SCOPES.filter((scope) => scope !== 'openid' && scope !== 'profile' && scope !== 'offline_access');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
