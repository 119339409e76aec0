// Which format a file is, by its keys, in PluralKit's order (§4.2): `tuppers` is Tupperbox,
// `switches` is PluralKit. We also take a PluralKit file whose `switches` key went missing when
// it plainly is one (members and a version or id), which PluralKit itself refuses.
import { Problem } from '../problems.js';
import { MAX_FILE_ENTITIES, MAX_IMPORT_SWITCHES, MAX_SKIPPED_LISTED, type ImportFormat, type ImportReadOptions, type ImportSource } from './model.js';
import { clampGraphemes } from '../proxy/text.js';
import { plural } from './normalise.js';
import { isObject, type Json } from './entities.js';
import { readPluralKit } from './pluralkit.js';
import { readTupperbox } from './tupperbox.js';
import { isSimplyPluralArray, isSimplyPluralObject, readSimplyPlural } from './simplyplural.js';

/** How a file is read when the request says nothing (Simply Plural's choices). */
export const DEFAULT_READ_OPTIONS: Omit<ImportReadOptions, 'now'> = { customFronts: 'import', friendsArePublic: false };

export function detectFormat(file: unknown): ImportFormat | undefined {
  // Simply Plural's exports of May-June 2022 were one flat array of documents (spec P1).
  if (isSimplyPluralArray(file)) return 'simplyplural';
  if (!isObject(file)) return undefined;
  if ('tuppers' in file) return 'tupperbox';
  if (isSimplyPluralObject(file)) return 'simplyplural';
  if ('switches' in file || ('members' in file && ('version' in file || 'id' in file))) {
    return file.version === 2 ? 'pluralkit' : 'pluralkit-legacy';
  }
  return undefined;
}

const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/**
 * Reads a parsed file into the source model, or refuses the whole file: not an object, of no
 * known format, more entities than any system can hold, or nothing usable in it.
 */
export function readImportFile(file: unknown, options: Partial<ImportReadOptions> = {}): ImportSource {
  const readOptions: ImportReadOptions = { ...DEFAULT_READ_OPTIONS, now: Date.now(), ...options };
  if (isSimplyPluralArray(file)) return boundSkipped(readSimplyPlural(file, readOptions));
  if (!isObject(file)) throw new Problem('invalid-import', 'the file is JSON but not an export: it must be a JSON object');
  // Simply Plural's exports of June 2022 were `{}` (a server bug, spec P1).
  if (Object.keys(file).length === 0) throw new Problem('invalid-import', 'the file is empty ({}): Simply Plural wrote such files for a few days in June 2022; export again');
  const format = detectFormat(file);
  if (format === undefined) {
    throw new Problem(
      'invalid-import',
      'this is not a file we can import: a PluralKit export has a "switches" key, a Tupperbox export a "tuppers" key and a Simply Plural export "members" with "_id"s (export again with pk;export, tul!export or from Simply Plural\'s settings)',
    );
  }
  if (format === 'simplyplural') return boundSkipped(readSimplyPlural(file, readOptions));
  const json = file as Json;
  const lists = format === 'tupperbox' ? ['tuppers', 'groups'] : ['members', 'groups', 'switches'];
  for (const key of lists) {
    if (key in json && json[key] !== null && !Array.isArray(json[key])) throw new Problem('invalid-import', `"${key}" must be a list`);
    if (key !== 'switches' && count(json[key]) > MAX_FILE_ENTITIES) {
      throw new Problem(key === 'groups' ? 'too-many-entries' : 'too-many-alters', `the file has ${count(json[key])} ${key}; no system can hold more than ${MAX_FILE_ENTITIES}`);
    }
  }
  if (count(json.switches) > MAX_IMPORT_SWITCHES) {
    throw new Problem('too-many-entries', `the file has ${count(json.switches)} switches; at most ${MAX_IMPORT_SWITCHES.toLocaleString('en-US')} can be imported`);
  }
  const source = boundSkipped(format === 'tupperbox' ? readTupperbox(json) : readPluralKit(json, format));
  const entities = count(json[format === 'tupperbox' ? 'tuppers' : 'members']) + count(json.groups);
  if (source.alters.length === 0 && source.tags.length === 0 && entities > 0) {
    throw new Problem('invalid-import', `nothing in the file can be imported: ${source.skipped.slice(0, 3).map((s) => `${s.id || '(no id)'}${s.name.trim() ? ` ${JSON.stringify(s.name)}` : ''}: ${s.reason}`).join('; ')}`);
  }
  return source;
}

/** What a skipped entity's id and name are cut to in a report: they are the file's, unchecked. */
const SKIPPED_TEXT_MAX = 100;

/**
 * A report echoes skipped entities as the file named them, and a file can name thousands, each
 * with megabytes of "name": the report (kept for Idempotency-Key replays) lists the first
 * MAX_SKIPPED_LISTED, ids and names shortened, and counts the rest in a warning.
 */
function boundSkipped(source: ImportSource): ImportSource {
  const cut = (text: string) => (text.length > SKIPPED_TEXT_MAX ? `${clampGraphemes(text, SKIPPED_TEXT_MAX - 1)}…` : text);
  const skipped = source.skipped.slice(0, MAX_SKIPPED_LISTED).map((entry) => ({ ...entry, id: cut(entry.id), name: cut(entry.name) }));
  const unlisted = source.skipped.length - skipped.length;
  const warnings = unlisted > 0 ? [...source.warnings, `${plural(unlisted, 'more entry', 'more entries')} ${unlisted === 1 ? 'was' : 'were'} skipped and ${unlisted === 1 ? 'is' : 'are'} not listed`] : source.warnings;
  return { ...source, skipped, warnings };
}
