// Each alter's custom profile field values, held in memory for the lists of alters (issue 30). Read
// from their table, a page of 250 alters with 20 values each cost its query more than twice the
// page's own work (bench/ANALYSIS.md); held here, the page's query reads the alters alone.
//
// An entry is what the page's query would have read: every value with its field's privacy (the
// owner's reads), or those another viewer may see on an alter with these privacy bits (the query
// filters them in SQL by profileFieldShownCondition). So the bits are part of the key: an alter
// edit that changes them finds no entry, and needs no note. What an entry holds otherwise changes
// only with the values themselves or with their fields' privacy or kind, and every such write notes
// profileValuesTopic (setProfileFieldValuesIn, editProfileField, deleteProfileField, deleteAlter, a
// system's deletion), which drops the system's entries in this process and, through the change
// watch, in every other (db/changes/). The privacy module still applies its own filter to what
// comes from here (viewAlter), as it does to what a query reads.
import type { AlterRecord } from '../../domain/alter.js';
import type { AlterLoadPolicy } from '../../domain/privacy.js';
import type { ProfileFieldValueRecord } from '../../domain/profile-fields.js';
import { ExactCache } from '../changes/exact-cache.js';
import type { ChangeWatch } from '../changes/remote.js';
import { profileValuesTopic } from '../changes/topics.js';
import { loadProfileValues, type ProfileValueSource } from './alters.js';

/** Alters held: twenty pages of 250, each for the owner and for others. */
const MAX_ENTRIES = 5_000;
/**
 * An alter whose values are longer than this in all is not held (its values are read each time):
 * with MAX_ENTRIES, memory stays within about 20 million characters whatever the values are.
 */
const MAX_ENTRY_CHARS = 4_096;

export interface ProfileValueCache extends ProfileValueSource {
  /** Entries held (for tests). */
  readonly size: number;
  close(): void;
}

interface Entry {
  systemId: number;
  values: readonly ProfileFieldValueRecord[];
}

/** The owner's entry (`all`) or another viewer's, whose values depend on the alter's bits. */
const keyOf = (alterId: number, allFields: boolean, alterPublic: number) => (allFields ? `${alterId}` : `${alterId}/${alterPublic}`);

function frozen(values: ProfileFieldValueRecord[]): readonly ProfileFieldValueRecord[] {
  for (const value of values) Object.freeze(value);
  return Object.freeze(values);
}

export function createProfileValueCache(changes: ChangeWatch): ProfileValueCache {
  const entries = new ExactCache<string, Entry>(changes, { maxEntries: MAX_ENTRIES, topicsOf: (_key, entry) => [profileValuesTopic(entry.systemId)] });

  return {
    get size() {
      return entries.size;
    },
    async attach(db, systemId, records: AlterRecord[], policy: AlterLoadPolicy) {
      const missing: AlterRecord[] = [];
      for (const record of records) {
        const entry = entries.get(keyOf(record.id, policy.allFields, record.public));
        // Shared by every answer that reads it: the records' values are only read (viewAlter).
        if (entry !== undefined) record.profileFields = entry.values as ProfileFieldValueRecord[];
        else missing.push(record);
      }
      if (missing.length === 0) return;
      const ticket = entries.ticket();
      const loaded = await loadProfileValues(
        db,
        systemId,
        missing.map((record) => record.id),
        !policy.allFields,
      );
      const byAlter = new Map(loaded.map((row) => [row.alterId, row]));
      for (const record of missing) {
        const row = byAlter.get(record.id);
        if (row === undefined) continue; // deleted since the page was read: no values
        const values = frozen(row.values);
        // The values as filtered for the bits read with them; a write between the two reads that
        // changed the bits leaves the record's own bits to the privacy module's filter.
        record.profileFields = values as ProfileFieldValueRecord[];
        const chars = row.values.reduce((sum, value) => sum + value.value.length, 0);
        if (chars <= MAX_ENTRY_CHARS) entries.fill(keyOf(record.id, policy.allFields, row.public), { systemId, values }, ticket);
      }
    },
    close() {
      entries.close();
    },
  };
}
