// Message ids deleted lately, from the gateway's delete events: the message path checks it after a
// server's proxy delay, so a message a filter bot removed meanwhile is not proxied.
const KEEP_MS = 60_000;
const MAX_IDS = 50_000;

export interface RecentDeletions {
  add(messageId: string, now?: number): void;
  has(messageId: string): boolean;
}

export function createRecentDeletions(): RecentDeletions {
  const deleted = new Map<string, number>();
  return {
    add(messageId, now = Date.now()) {
      // Insertion order is time order: the oldest go first.
      for (const [id, at] of deleted) {
        if (now - at < KEEP_MS && deleted.size < MAX_IDS) break;
        deleted.delete(id);
      }
      deleted.set(messageId, now);
    },
    has: (messageId) => deleted.has(messageId),
  };
}
