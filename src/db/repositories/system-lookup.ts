// `{user}` → system on the request path, held in memory. Two exact caches (db/changes/): which
// system each Discord user owns or belongs to, and each system's record (its privacy settings and
// revision included). Every write that changes a systems row notes `system:<id>` (editSystem,
// touchSystem, an import); creating a system notes `user:<id>`. Users without a system are not
// remembered, so a first sign-in needs no note to be seen.
import type { Kysely } from 'kysely';
import type { SystemRecord } from '../../domain/system.js';
import { ExactCache } from '../changes/exact-cache.js';
import type { ChangeWatch } from '../changes/remote.js';
import { revisionTopic, systemTopic, userSystemTopic } from '../changes/topics.js';
import type { Schema } from '../tables.js';
import { findSystemForReader, findSystemIdOfUser, findSystemRevision } from './systems.js';

export interface SystemForReader {
  /** Frozen: shared by every request that reads it. */
  system: Readonly<SystemRecord>;
  readerOwns: boolean;
}

export interface SystemLookup {
  /**
   * The system `userId` owns or belongs to, and whether it is also the reader's (null for a client
   * acting as itself): what findSystemForReader answers, from memory when it can.
   */
  forReader(userId: string, readerUserId: string | null): Promise<SystemForReader | undefined>;
  /** The same answer from memory alone, or undefined when memory cannot give it (then call forReader). */
  known(userId: string, readerUserId: string | null): SystemForReader | undefined;
  /**
   * The system's revision (the proxy profile's version), held apart from its record: the writes
   * that move it (each alter, tag or front change) leave the record cached.
   */
  revisionOf(systemId: number): Promise<number | undefined>;
  close(): void;
}

const MAX_SYSTEMS = 20_000;

function freeze(system: SystemRecord): Readonly<SystemRecord> {
  // Its lists and maps too (displayTagMap, disabledGuilds, whatever SYSTEM_FIELDS adds).
  for (const value of Object.values(system)) if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(system);
}

export function createSystemLookup(db: Kysely<Schema>, changes: ChangeWatch): SystemLookup {
  const systemIdOf = new ExactCache<string, number>(changes, {
    maxEntries: MAX_SYSTEMS,
    topicsOf: (userId, systemId) => [userSystemTopic(userId), systemTopic(systemId)],
  });
  const systems = new ExactCache<number, Readonly<SystemRecord>>(changes, { maxEntries: MAX_SYSTEMS, topicsOf: (id) => [systemTopic(id)] });
  const revisions = new ExactCache<number, number>(changes, { maxEntries: MAX_SYSTEMS, topicsOf: (id) => [systemTopic(id), revisionTopic(id)] });

  async function idOf(userId: string): Promise<number | undefined> {
    const known = systemIdOf.get(userId);
    if (known !== undefined) return known;
    const ticket = systemIdOf.ticket();
    const found = await findSystemIdOfUser(db, userId);
    if (found !== undefined) systemIdOf.fill(userId, found, ticket);
    return found;
  }

  function known(userId: string, readerUserId: string | null): SystemForReader | undefined {
    const targetId = systemIdOf.get(userId);
    const system = targetId === undefined ? undefined : systems.get(targetId);
    if (targetId === undefined || system === undefined) return undefined;
    if (readerUserId === null || readerUserId === userId) return { system, readerOwns: readerUserId !== null };
    const readerSystem = systemIdOf.get(readerUserId);
    return readerSystem === undefined ? undefined : { system, readerOwns: readerSystem === targetId };
  }

  return {
    known,
    async forReader(userId, readerUserId) {
      const remembered = known(userId, readerUserId);
      if (remembered) return remembered;
      const targetId = systemIdOf.get(userId);
      const system = targetId === undefined ? undefined : systems.get(targetId);
      if (targetId === undefined || system === undefined) {
        // A miss: the one query of the uncached path, and what it found is remembered.
        const tickets = { system: systems.ticket(), ids: systemIdOf.ticket() };
        const found = await findSystemForReader(db, userId, readerUserId);
        if (!found) return undefined;
        const record = freeze(found.system);
        systems.fill(record.id, record, tickets.system);
        systemIdOf.fill(userId, record.id, tickets.ids);
        if (found.readerOwns && readerUserId !== null) systemIdOf.fill(readerUserId, record.id, tickets.ids);
        return { system: record, readerOwns: found.readerOwns };
      }
      const readerOwns = readerUserId !== null && (readerUserId === userId || (await idOf(readerUserId)) === targetId);
      return { system, readerOwns };
    },
    async revisionOf(systemId) {
      const known = revisions.get(systemId);
      if (known !== undefined) return known;
      const ticket = revisions.ticket();
      const revision = await findSystemRevision(db, systemId);
      if (revision !== undefined) revisions.fill(systemId, revision, ticket);
      return revision;
    },
    close() {
      systemIdOf.close();
      systems.close();
      revisions.close();
    },
  };
}
