// The names of what a change note says changed, and so of what a cache entry depends on. One
// builder per kind, used by the writes and by the caches alike.

/** A system's row: everything SystemRecord holds, privacy settings included (and the revision). */
export const systemTopic = (systemId: number) => `system:${systemId}`;

/**
 * A system's revision alone (touchSystem and the event numbering that moves it). A change to the
 * whole row (systemTopic) moves it too, so what holds the revision listens to both.
 */
export const revisionTopic = (systemId: number) => `revision:${systemId}`;

/** Which system a Discord user owns or belongs to. */
export const userSystemTopic = (userId: string) => `user:${userId}`;

/** One stored oidc-provider row, by its id or uid key (both are keyed hashes, never the value). */
export const oidcRowTopic = (key: string) => `oidc:${key}`;

/** Every row of one grant (revoking an app or a replayed code deletes them together). */
export const grantTopic = (grantId: string) => `grant:${grantId}`;

/** Everything issued to one client (deleting a client deletes it). */
export const clientTopic = (clientId: string) => `client:${clientId}`;

const DELIVERIES = 'deliveries:';

/**
 * Deliveries were queued for one endpoint (the outbox notes it with the event): every process's
 * dispatcher has something to claim for it.
 */
export const deliveriesTopic = (endpointId: string) => `${DELIVERIES}${endpointId}`;

/** The endpoint a deliveriesTopic names; undefined for any other topic. */
export const endpointOfTopic = (topic: string): string | undefined => (topic.startsWith(DELIVERIES) ? topic.slice(DELIVERIES.length) : undefined);

/** One Discord server's settings (their revision moves with every change). */
export const guildTopic = (guildId: string) => `guild:${guildId}`;

/**
 * A system's custom profile field values or the definitions that decide who sees them (privacy,
 * kind, a field deleted): every write of profile_field_values or of those columns notes it.
 */
export const profileValuesTopic = (systemId: number) => `profile-values:${systemId}`;
