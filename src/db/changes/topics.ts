// The names of what a change note says changed, and so of what a cache entry depends on. One
// builder per kind, used by the writes and by the caches alike.

/** A system's row: everything SystemRecord holds, privacy settings included. */
export const systemTopic = (systemId: number) => `system:${systemId}`;

/** Which system a Discord user owns or belongs to. */
export const userSystemTopic = (userId: string) => `user:${userId}`;

/** One stored oidc-provider row, by its id or uid key (both are keyed hashes, never the value). */
export const oidcRowTopic = (key: string) => `oidc:${key}`;

/** Every row of one grant (revoking an app or a replayed code deletes them together). */
export const grantTopic = (grantId: string) => `grant:${grantId}`;

/** Everything issued to one client (deleting a client deletes it). */
export const clientTopic = (clientId: string) => `client:${clientId}`;

/** A transaction appended events: dispatchers in other processes have deliveries to claim. */
export const EVENTS_TOPIC = 'events';

/** One Discord server's settings (their revision moves with every change). */
export const guildTopic = (guildId: string) => `guild:${guildId}`;
