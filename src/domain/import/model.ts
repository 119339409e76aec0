// What an import works with: the file read into one source model whatever its format, the report
// both a preview and an applied import answer, the limits, and the schema of our own namespaced
// key in exports (`switchboard`), which makes export → import lossless.
import { z } from 'zod';
import { ALTER_FIELD_ROWS, type AlterFieldValues } from '../alter.js';
import { createShapeOf } from '../fields.js';
import { SYSTEM_FIELD_INPUTS, type SystemFieldValues } from '../system.js';
import { TAG_FIELDS, type TagFieldValues } from '../tag.js';
import type { ProxyTagPair } from './normalise.js';
import { PROFILE_FIELD_INPUTS, type ProfileFieldKind, type ProfileFieldPrivacy } from '../profile-fields.js';

export const IMPORT_FORMATS = ['pluralkit', 'pluralkit-legacy', 'tupperbox', 'simplyplural'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_SOURCES = ['pluralkit', 'tupperbox', 'simplyplural'] as const;
export type ImportSourceKind = (typeof IMPORT_SOURCES)[number];
export const IMPORT_MODES = ['merge', 'add', 'replace'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/**
 * The largest import body over the API, for every format: a Simply Plural export with years of
 * front history is 10-15 MiB (one of 2,000 members, 100 custom fields and 50,000 intervals is
 * about 12 MiB), a PluralKit file of 1,000 members and 100,000 switches about 7.6 MiB. Reading and
 * planning take time and memory linear in the file (bench/import.ts measures 12 and 32 MiB), in
 * the import worker, whose heap limit leaves room for two files of this size. Larger files go
 * through the command line.
 */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;
/** The command line's cap: an administrator's tool, for the largest histories. */
export const MAX_CLI_IMPORT_BYTES = 64 * 1024 * 1024;
/** PluralKit's own cap on switches in one file (since 2025-07). */
export const MAX_IMPORT_SWITCHES = 100_000;
/** PluralKit's cap on members in one switch. */
export const MAX_SWITCH_MEMBERS = 150;
export { MAX_TAGS_PER_SYSTEM } from '../tag.js';
/** Skipped entities a report lists by name; the rest are counted in a warning. */
export const MAX_SKIPPED_LISTED = 100;
/** Entities a file may hold at all, whatever the mode: above this it cannot fit any system. */
export const MAX_FILE_ENTITIES = 10_000;

export { TagPrivacy } from '../privacy-bits.js';

// ---------------------------------------------------------------------------------------------
// The report

const SourceKind = z.enum(IMPORT_SOURCES);
const Counts = z.strictObject({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), deleted: z.number().int() });

export const ImportReport = z
  .strictObject({
    format: z.enum(IMPORT_FORMATS).describe('The format detected from the file’s keys.'),
    mode: z.enum(IMPORT_MODES),
    dryRun: z.boolean().describe('true: a preview; nothing was written.'),
    history: z.boolean().describe('Whether front history (switches) was imported.'),
    counts: z.strictObject({
      alters: Counts,
      tags: Counts,
      switches: z.strictObject({ created: z.number().int(), unchanged: z.number().int(), deleted: z.number().int() }),
      profileFields: z
        .strictObject({ created: z.number().int(), matched: z.number().int(), deleted: z.number().int() })
        .describe(
          'Custom profile field definitions: `created` (the file’s fields the system had none of that name for), `matched` (the system’s fields a file field matched by name, compared as tag names: each keeps its kind and privacy and takes the file’s values), `deleted` (replace mode: the system’s fields the file does not have, with their values; only when the file carries field definitions at all).',
        ),
    }),
    renames: z
      .array(z.strictObject({ source: SourceKind, id: z.string(), name: z.string(), to: z.string() }))
      .describe('Alters and tags whose name was taken (or not a valid username) and that got another: `"alex" (pluralkit abcdef) → alex-2`.'),
    skipped: z
      .array(z.strictObject({ source: SourceKind, id: z.string(), name: z.string(), reason: z.string() }))
      .describe('Entities left out, by their id and name in the file.'),
    warnings: z.array(z.string()).describe('Fields dropped or clamped, grouped.'),
    notImported: z
      .record(z.string(), z.number().int())
      .describe('What the file holds that was left out, by kind, with how many (empty when nothing was): for a Simply Plural file `comments`, `notes`, `boardMessages`, `polls`, `reminders`, `chatMessages`, `friends`, `customStatuses`, `customFronts` (with `customFronts=skip`), `avatarsOnSimplyPluralHost` (uploaded avatars, whose host is gone; nothing is fetched), and `frontHistoryIntervals` (intervals left out of the front history, each reason in `warnings`).'),
  })
  .meta({ id: 'ImportReport' });
export type ImportReport = z.infer<typeof ImportReport>;

// ---------------------------------------------------------------------------------------------
// The file, read

/**
 * An alter as the file describes it, normalised: the record's stored fields (AlterFieldValues), each
 * left undefined when the file does not carry it (the format has no such field, or only our own key
 * has it): a new alter gets its default, a merge leaves it as it is. Tupperbox has no privacy, so
 * its alters start private.
 */
export interface SourceAlter extends Partial<Omit<AlterFieldValues, 'proxyTags' | 'username' | 'displayName'>>, Pick<AlterFieldValues, 'username' | 'displayName'> {
  /** PluralKit short id or Tupperbox tupper id, as text. */
  id: string;
  uuid: string | null;
  /** The name in the file, for reports. */
  name: string;
  /** The username derived from the name (before collisions), or the exact one from our own key. */
  username: string;
  createdAt: number | null;
  lastMessageAt: number | null;
  messageCount: number;
  /** Without ids: the planner keeps an existing pair's id. */
  proxyTags: ProxyTagPair[];
  /** keep_proxy / show_brackets; null when the file does not say. */
  keepProxy: boolean | null;
  /** Custom profile field values: the file's field id (ImportSource.profileFields) → value. */
  profileFields?: Record<string, string>;
  /**
   * The PluralKit member id another format links this alter to (Simply Plural's `pkId`), five or
   * six lower-case letters: recorded as a PluralKit import link, so a later PluralKit import of that
   * member matches this alter.
   */
  pluralKitId?: string;
}

/**
 * A custom profile field as the file defines it: matched to the system's field of the same name
 * (names compared as tag names), created otherwise. A format with fields of kinds we have no
 * counterpart for reads them as `text`.
 */
export interface SourceProfileField {
  /** The file's id of the field, as alters' `profileFields` name it. */
  id: string;
  name: string;
  kind: ProfileFieldKind;
  privacy: ProfileFieldPrivacy;
}

/** A tag as the file describes it: the record's stored fields, undefined where the format has no such field (Tupperbox groups), so a merge leaves them. */
export interface SourceTag extends Partial<TagFieldValues> {
  id: string;
  uuid: string | null;
  name: string;
  /** When the group was made (PluralKit), or null. */
  createdAt?: number | null;
  /** Ids of alters of the same file. */
  memberIds: string[];
  /**
   * The file id of the group this one was nested in (Simply Plural), or null: tags are flat here,
   * the nesting is kept for our own export data once tags can hold it.
   */
  parentId?: string | null;
}

export interface SourceSwitch {
  /** Epoch milliseconds. */
  at: number;
  /** Ids of alters of the same file, primary first. */
  memberIds: string[];
}

/** The system fields the file sets (the record's, SystemFieldValues); absent keys leave the system as it is. */
export type SourceSystem = Partial<SystemFieldValues> & { createdAt?: number };

export interface SkippedEntity {
  source: ImportSourceKind;
  id: string;
  name: string;
  reason: string;
}

/** A whole file read into our model, with what was dropped on the way. */
export interface ImportSource {
  format: ImportFormat;
  source: ImportSourceKind;
  /** The source system's id ('' when the format has none). */
  sourceSystemId: string;
  system: SourceSystem;
  alters: SourceAlter[];
  tags: SourceTag[];
  switches: SourceSwitch[];
  /**
   * Custom profile field definitions, in the file's order. Undefined when the file cannot say (a
   * format without them, or our own key without its `profileFields`): replace mode then leaves the
   * system's fields; an empty list is a file whose system has none.
   */
  profileFields?: SourceProfileField[];
  skipped: SkippedEntity[];
  warnings: string[];
  /** What the file holds that is left out, by kind (the report's `notImported`); absent: nothing. */
  notImported?: Record<string, number>;
}

/** Choices that change how a file is read (Simply Plural's; other formats ignore them). */
export interface ImportReadOptions {
  /** Simply Plural custom fronts: imported as alters in a "Custom fronts" tag, or left out (their intervals leave gaps). */
  customFronts: 'import' | 'skip';
  /** Simply Plural documents friends could see become public (by default everything is private). */
  friendsArePublic: boolean;
  /** Epoch ms: front history after it (and a day) is out of range. */
  now: number;
}

export const DEFAULT_CUSTOM_FRONTS = 'import';

// ---------------------------------------------------------------------------------------------
// Our namespaced key in exports

export const EXTENSION_KEY = 'switchboard';
export const EXTENSION_VERSION = 1;

/**
 * Every stored field of an alter, as its owner would send it (the API's schemas); those with a
 * default may be missing, so a file written before a field existed stays valid.
 */
export const ExtensionAlter = z.strictObject({
  ...createShapeOf(ALTER_FIELD_ROWS),
  /** Custom profile field values by the file's field id (the extension's `profileFields`). */
  profileFields: z.record(z.string(), z.string()).optional(),
});

/** A custom profile field definition with the id its alters' values name it by, as its owner would send it. */
export const ExtensionProfileField = z.strictObject({
  id: z.string().min(1).max(32),
  name: PROFILE_FIELD_INPUTS.name,
  kind: PROFILE_FIELD_INPUTS.kind.optional(),
  privacy: PROFILE_FIELD_INPUTS.privacy.optional(),
});
export type ExtensionProfileField = z.infer<typeof ExtensionProfileField>;

/**
 * Every stored field of a tag, the same way: its name is a TagName, as the API's; and `parent`,
 * the id in this file of the group it was nested under (tags are flat here; the nesting of a
 * Simply Plural import is kept with the tag's import link, and comes back through this key).
 */
export const ExtensionTag = z.strictObject({ ...createShapeOf(TAG_FIELDS), parent: z.string().min(1).max(64).optional() });

/** Every stored field of a system, by its API name, as its owner would send it. */
export const ExtensionSystem = z.strictObject(SYSTEM_FIELD_INPUTS).partial();

/** Each part is checked on its own: one bad alter does not void the rest. */
export const Extension = z.object({
  version: z.literal(EXTENSION_VERSION),
  system: z.unknown().optional(),
  alters: z.record(z.string(), z.unknown()).optional(),
  tags: z.record(z.string(), z.unknown()).optional(),
  /** The system's custom profile fields, in its order. */
  profileFields: z.array(z.unknown()).optional(),
});
export type ExtensionAlter = z.infer<typeof ExtensionAlter>;
export type ExtensionTag = z.infer<typeof ExtensionTag>;
export type ExtensionSystem = z.infer<typeof ExtensionSystem>;
