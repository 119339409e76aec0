// A large import (issue 12): a PluralKit file of 2,000 members (3 proxy tags each), 50 groups
// and 10,000 switches (200 members and 1,000 switches with --quick), imported with its history
// into a fresh system through the whole path the API takes: bytes → JSON → source model → plan →
// one transaction of bulk writes (importSystem). Next to it, in the same run and database: a bare
// bulk insert of the same rows (alters, tags, memberships, custom fields and their values,
// switches, switch members) in one transaction, as the import writes rows in bulk, with nothing
// read, checked or planned. Then the same file again (everything
// matches: nothing but reads and the plan).
//
// With --simplyplural (issue 30), a Simply Plural export of 2,000 members, 100 custom fields and
// 50,000 front-history intervals (about 12.8 MiB; 200 members and 5,000 intervals with --quick),
// the same way; and reading plus planning (a preview) of it against a file near the 32 MiB cap
// (every member with all 100 values, 1.6 times the history), to show they stay linear.
//
// Run alone: node --import tsx bench/import.ts [--quick] [--postgres] [--simplyplural]
// (--postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL). bench/run.ts runs it too.
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { insertInBulk, type BulkColumn } from '../src/db/bulk-rows.js';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.js';
import { importStore, newProxyTagId, systemForImport } from '../src/db/repositories/imports.js';
import { importSystem } from '../src/domain/import/import-system.js';
import { importFileHere } from '../src/domain/import/import-file.js';
import { readImportFile } from '../src/domain/import/detect.js';
import { parseImportJson } from '../src/domain/import/json.js';
import { readImportBytes } from '../src/domain/import/read-bytes.js';
import { planImport, type ImportTarget } from '../src/domain/import/plan.js';
import { SYSTEM_DEFAULTS, type SystemRecord } from '../src/domain/system.js';
import { usernameKey } from '../src/domain/username-key.js';
import { createTestDatabase } from '../test/support/dialects.js';

export interface ImportBenchOptions {
  quick: boolean;
  dialect: 'sqlite' | 'postgres';
  postgresUrl?: string;
  /** The file: a PluralKit export (default) or a Simply Plural one. */
  format?: 'pluralkit' | 'simplyplural';
}

export interface ImportBenchResult {
  alters: number;
  switches: number;
  fileBytes: number;
  /** Median seconds of the whole import (parse, plan, apply with history). */
  importSeconds: number;
  /** Of which reading the file into the source model. */
  readSeconds: number;
  /** Median seconds of the bare bulk insert of the same rows. */
  bareSeconds: number;
  /** Median seconds of importing the same file again (nothing changes). */
  reimportSeconds: number;
  rounds: number;
  /** Simply Plural: its custom fields and front-history intervals. */
  fields?: number;
  intervals?: number;
  /** Simply Plural: reading and planning (a preview) of this file and of one with `scale` times its history, with their sizes. */
  linearity?: { smallBytes: number; smallSeconds: number; largeBytes: number; largeSeconds: number };
}

const ALPHABET = 'abcefghjknoprstuvwxyz';
const hid = (n: number) => Array.from({ length: 6 }, (_, i) => ALPHABET[Math.floor(n / ALPHABET.length ** i) % ALPHABET.length]).join('');
const iso = (ms: number) => new Date(ms).toISOString();

/** A PluralKit v2 export as PluralKit writes it: every key present, switches newest first. */
export function largePluralKitFile(members: number, switches: number, groups = 50): string {
  const base = Date.UTC(2022, 0, 1);
  const privacy = { visibility: 'public', name_privacy: 'public', description_privacy: 'private', banner_privacy: 'public', birthday_privacy: 'private', pronoun_privacy: 'public', avatar_privacy: 'public', metadata_privacy: 'private', proxy_privacy: 'public' };
  const memberList = Array.from({ length: members }, (_, i) => ({
    id: hid(i + 1000),
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `Member ${i} of the house`,
    display_name: `Member ${i}`,
    color: (0x100000 + i * 97).toString(16).slice(-6),
    birthday: null,
    pronouns: i % 2 ? 'she/her' : 'they/them',
    avatar_url: `https://cdn.example.invalid/av/${i}.png`,
    webhook_avatar_url: null,
    banner: null,
    description: `Member number ${i}.\nA second line of description.`,
    created: iso(base + i * 60_000),
    keep_proxy: false,
    tts: false,
    autoproxy_enabled: true,
    message_count: i * 7,
    last_message_timestamp: iso(base + i * 3_600_000),
    proxy_tags: [
      { prefix: `m${i}:`, suffix: null },
      { prefix: `[${i}`, suffix: ']' },
      { prefix: null, suffix: `-m${i}` },
    ],
    privacy,
  }));
  const groupList = Array.from({ length: groups }, (_, g) => ({
    id: hid(g + 900_000), uuid: `10000000-0000-4000-8000-${String(g).padStart(12, '0')}`, name: `Group ${g}`, display_name: null, description: `Group number ${g}`,
    icon: null, banner: null, color: '2b2d42', created: iso(base), members: memberList.filter((_, i) => i % groups === g).map((member) => member.id),
    privacy: { name_privacy: 'public', description_privacy: 'public', banner_privacy: 'public', icon_privacy: 'public', list_privacy: 'public', metadata_privacy: 'public', visibility: 'public' },
  }));
  const switchList = Array.from({ length: switches }, (_, s) => ({
    timestamp: iso(base + (switches - s) * 600_000 + 123),
    members: s % 25 === 0 ? [] : Array.from({ length: 1 + (s % 3) }, (_, k) => memberList[(s * 7 + k * 13) % members]?.id),
  }));
  return JSON.stringify({
    version: 2, id: 'benchs', uuid: '20000000-0000-4000-8000-000000000000', name: 'Bench house', description: null, tag: '| bench', pronouns: null, avatar_url: null,
    banner: null, color: null, created: iso(base), webhook_url: null,
    privacy: { name_privacy: 'public', avatar_privacy: 'public', description_privacy: 'public', banner_privacy: 'public', pronoun_privacy: 'public', member_list_privacy: 'public', group_list_privacy: 'public', front_privacy: 'private', front_history_privacy: 'private' },
    config: { timezone: 'UTC', latch_timeout: null }, accounts: ['ACCOUNT'], members: memberList, groups: groupList, switches: switchList,
    // A Discord id above 2^53, bare, as PluralKit writes it.
  }).replace('"ACCOUNT"', '412345678901234567');
}

const hex24 = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;

/**
 * A Simply Plural export as its server wrote it (one line, every document with
 * `_id` and `uid`): `members` members with values for `valuesPerMember` of `fields` custom fields each, and
 * `intervals` front-history rows, one after another, every fifth with a co-fronter, the last two
 * live. Plus the collections an export holds that are never imported.
 */
export function largeSimplyPluralFile(members: number, fields: number, intervals: number, valuesPerMember = 30): string {
  const uid = 'BenchUid0000000000000000000A';
  const base = Date.UTC(2021, 0, 1);
  const friends = hex24('b0', 1);
  const fieldList = Array.from({ length: fields }, (_, f) => ({
    _id: hex24('f0', f), uid, name: `Field ${f}`, order: `0|${String(f).padStart(6, '0')}:`, type: f % 8, supportMarkdown: f % 3 === 0, buckets: [friends], lastOperationTime: base,
  }));
  const memberList = Array.from({ length: members }, (_, i) => {
    const info: Record<string, string> = {};
    for (let k = 0; k < Math.min(valuesPerMember, fields); k++) {
      const field = fieldList[(i + k * 3) % fields];
      if (field) info[field._id] = field.type === 1 ? '#FF2E8B57' : field.type === 0 ? `value ${k} of member ${i}` : '2001-03-14T00:00:00.000';
    }
    return {
      _id: hex24('a0', i), uid, name: `Member ${i} of the house`, desc: `Member number ${i}. Ask <###@${hex24('a0', (i + 1) % members)}###>.`, pronouns: i % 2 ? 'she/her' : 'they/them',
      color: (0x100000 + i * 97).toString(16).slice(-6), avatarUuid: i % 2 ? '' : `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, avatarUrl: i % 2 ? `https://cdn.example.invalid/av/${i}.png` : '',
      pkId: '', private: false, preventTrusted: false, preventsFrontNotifs: false, supportDescMarkdown: true, archived: false, frame: {}, buckets: [friends], info, lastOperationTime: base,
    };
  });
  const history = Array.from({ length: intervals }, (_, k) => {
    const start = base + k * 1_800_000;
    const coFront = k % 5 === 4;
    const live = k >= intervals - 2;
    return {
      _id: hex24('c0', k), uid, member: memberList[coFront ? (k * 13) % members : (k * 7) % members]?._id, custom: false, live,
      startTime: coFront ? start - 600_000 : start, ...(live ? { endTime: null } : { endTime: start + 1_800_000 }),
    };
  });
  return JSON.stringify({
    users: [{ _id: uid, uid, username: 'bench-house', desc: 'The bench system.', color: '#1ABC9C', avatarUuid: '', avatarUrl: '', isAsystem: true }],
    private: [{ _id: uid, uid, location: 'Europe/Berlin', latestVersion: 300, notificationToken: ['push-token'] }],
    members: memberList,
    // No custom fronts: they would be alters beyond the 2,000 members, past the system's cap.
    frontStatuses: [],
    groups: Array.from({ length: 50 }, (_, g) => ({
      _id: hex24('e0', g), uid, name: `Group ${g}`, desc: `Group number ${g}`, emoji: '🛡️', color: '#2b2d42', parent: g % 5 === 0 ? 'root' : hex24('e0', g - (g % 5)),
      members: memberList.filter((_, i) => i % 50 === g).map((member) => member._id), buckets: [friends],
    })),
    customFields: fieldList,
    frontHistory: history,
    privacyBuckets: [{ _id: friends, uid, name: 'Friends', icon: '🔓', rank: '0|aaaaaa:', desc: '', color: '#C99524' }],
    comments: [], notes: [], polls: [], friends: [], tokens: [{ _id: hex24('f1', 1), uid, token: 'bench-token', permission: 1 }],
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const seconds = (started: number) => (performance.now() - started) / 1000;

/**
 * The same rows the import writes, inserted as they are, in one transaction, each table's in bulk
 * as the import writes them (db/bulk-rows.ts: unnested arrays on PostgreSQL, whatever the count,
 * multi-row VALUES on SQLite): alters, tags and memberships, custom fields and their values,
 * switches with their alter lists, and their members. Nothing read, checked or planned; no links,
 * events or statistics summary (what an import adds). The database's own triggers and foreign
 * keys run, as for any writer.
 */
async function bareInsert(database: Database, systemId: number, text: string): Promise<number> {
  const source = readImportFile(parseImportJson(text));
  const now = Date.now();
  const alterRows = source.alters.map((alter) => ({
    system_id: systemId,
    username: alter.username,
    username_key: usernameKey(alter.username),
    display_name: alter.displayName,
    color: alter.color ?? null,
    description: alter.description ?? null,
    pronouns: alter.pronouns ?? null,
    avatar_url: alter.avatarUrl ?? null,
    webhook_avatar_url: alter.webhookAvatarUrl ?? null,
    banner: alter.banner ?? null,
    proxy_tags: JSON.stringify(alter.proxyTags.map((tag, i) => ({ id: `t${i}`, ...tag }))),
    public: alter.public ?? 0,
    message_count: alter.messageCount,
    last_message_at: alter.lastMessageAt,
    created_at: alter.createdAt ?? now,
  }));
  const started = performance.now();
  await database.db.transaction().execute(async (trx) => {
    const alterIds = new Map<string, number>();
    for (let i = 0; i < alterRows.length; i += 400) {
      const batch = alterRows.slice(i, i + 400);
      const rows = await trx.insertInto('alters').values(batch).returning(['id']).execute();
      rows.forEach((row, k) => alterIds.set(source.alters[i + k]?.id ?? '', Number(row.id)));
    }
    if (source.tags.length > 0) {
      const tagRows = await trx
        .insertInto('tags')
        .values(
          source.tags.map((tag) => ({
            system_id: systemId,
            name: tag.name,
            name_key: usernameKey(tag.name),
            description: tag.description ?? null,
            color: tag.color ?? null,
            public: tag.public ?? 0,
            created_at: now,
          })),
        )
        .returning(['id'])
        .execute();
      const pairs = source.tags.flatMap((tag, t) => tag.memberIds.map((member) => ({ alter_id: alterIds.get(member) ?? 0, tag_id: Number(tagRows[t]?.id) })));
      await insertInBulk(trx, 'alter_tags', ALTER_TAG_COLUMNS, pairs);
    }
    const fields = source.profileFields ?? [];
    const fieldIds = new Map<string, number>();
    if (fields.length > 0) {
      const fieldRows = await trx
        .insertInto('profile_fields')
        .values(
          fields.map((field, position) => ({
            system_id: systemId,
            name: field.name,
            name_key: usernameKey(field.name),
            kind: field.kind,
            privacy: field.privacy,
            position,
            created_at: now,
          })),
        )
        .returning(['id'])
        .execute();
      fields.forEach((field, k) => fieldIds.set(field.id, Number(fieldRows[k]?.id)));
    }
    const values = source.alters.flatMap((alter) =>
      Object.entries(alter.profileFields ?? {}).flatMap(([fieldId, value]) => {
        const field = fieldIds.get(fieldId);
        return field === undefined ? [] : [{ alter_id: alterIds.get(alter.id) ?? 0, field_id: field, system_id: systemId, value }];
      }),
    );
    await insertInBulk(trx, 'profile_field_values', PROFILE_VALUE_COLUMNS, values);
    const switches = source.switches.map((entry) => ({ at: entry.at, alterIds: entry.memberIds.map((member) => alterIds.get(member) ?? 0) }));
    const rows = await insertInBulk<{ system_id: number; client_id: string; switched_at: number; alter_list: string }, { id: number | string }>(
      trx,
      'switches',
      SWITCH_COLUMNS,
      switches.map((entry) => ({ system_id: systemId, client_id: 'bench', switched_at: entry.at, alter_list: entry.alterIds.join(',') })),
      sql`returning id`,
    );
    const members = switches.flatMap((entry, k) =>
      entry.alterIds.map((alterId, position) => ({ switch_id: Number(rows[k]?.id), alter_id: alterId, position })),
    );
    await insertInBulk(trx, 'switch_members', SWITCH_MEMBER_COLUMNS, members);
  });
  return seconds(started);
}

const ALTER_TAG_COLUMNS: ReadonlyArray<BulkColumn<{ alter_id: number; tag_id: number }>> = [
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'tag_id', pgType: 'bigint' },
];
const PROFILE_VALUE_COLUMNS: ReadonlyArray<BulkColumn<{ alter_id: number; field_id: number; system_id: number; value: string }>> = [
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'field_id', pgType: 'bigint' },
  { name: 'system_id', pgType: 'bigint' },
  { name: 'value', pgType: 'text' },
];
const SWITCH_COLUMNS: ReadonlyArray<BulkColumn<{ system_id: number; client_id: string; switched_at: number; alter_list: string }>> = [
  { name: 'system_id', pgType: 'bigint' },
  { name: 'client_id', pgType: 'text' },
  { name: 'switched_at', pgType: 'bigint' },
  { name: 'alter_list', pgType: 'text' },
];
const SWITCH_MEMBER_COLUMNS: ReadonlyArray<BulkColumn<{ switch_id: number; alter_id: number; position: number }>> = [
  { name: 'switch_id', pgType: 'bigint' },
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'position', pgType: 'integer' },
];

export async function benchImport(opts: ImportBenchOptions): Promise<ImportBenchResult> {
  const simplyPlural = opts.format === 'simplyplural';
  const members = opts.quick ? 200 : 2000;
  const fields = 100;
  const intervals = opts.quick ? 5000 : 50_000;
  const rounds = opts.quick ? 1 : 3;
  const text = simplyPlural ? largeSimplyPluralFile(members, fields, intervals) : largePluralKitFile(members, opts.quick ? 1000 : 10_000);
  const bytes = new TextEncoder().encode(text);
  // The switches the file makes (Simply Plural: the sweep's).
  const read = readImportBytes(bytes);
  const switchCount = read.switches.length;
  const alterCount = read.alters.length;
  // Near the cap: every member with a value for every field, and 1.6 times the history (more
  // would make over 100,000 switches, which an import refuses).
  const linearity = simplyPlural && opts.dialect === 'sqlite' ? measureLinearity(bytes, largeSimplyPluralFile(members, fields, Math.round(intervals * 1.6), fields)) : undefined;
  const target = await createTestDatabase(opts.dialect, opts.postgresUrl ?? process.env.TEST_DATABASE_URL);
  const database = openDatabase(target.url);
  try {
    await migrateToLatest(database.db);
    const imports: number[] = [];
    const reads: number[] = [];
    const bare: number[] = [];
    const again: number[] = [];
    let user = 600_000_000_000_000_000n;
    for (let round = 0; round < rounds; round++) {
      // The baseline and the import alternate, each into a fresh system of the same database.
      const bareSystem = await systemForImport(database.db, String(user++), Date.now());
      bare.push(await bareInsert(database, bareSystem.systemId, text));

      const { systemId } = await systemForImport(database.db, String(user++), Date.now());
      const started = performance.now();
      const source = readImportBytes(bytes);
      reads.push(seconds(started));
      const { report } = await importSystem(importStore(database.db, systemId), { file: importFileHere(source, newProxyTagId), options: { mode: 'merge', dryRun: false, history: true }, clientId: 'bench', now: Date.now() });
      imports.push(seconds(started));
      if (report.counts.alters.created !== alterCount || report.counts.switches.created !== switchCount) throw new Error(`the import created ${JSON.stringify(report.counts)}`);

      const second = performance.now();
      const repeated = await importSystem(importStore(database.db, systemId), { file: importFileHere(readImportBytes(bytes), newProxyTagId), options: { mode: 'merge', dryRun: false, history: true }, clientId: 'bench', now: Date.now() });
      again.push(seconds(second));
      if (repeated.report.counts.alters.unchanged !== alterCount || repeated.report.counts.switches.unchanged !== switchCount) throw new Error(`the re-import changed ${JSON.stringify(repeated.report.counts)}`);
    }
    return {
      alters: alterCount,
      switches: switchCount,
      ...(simplyPlural ? { fields, intervals, ...(linearity ? { linearity } : {}) } : {}),
      fileBytes: bytes.length,
      importSeconds: median(imports),
      readSeconds: median(reads),
      bareSeconds: median(bare),
      reimportSeconds: median(again),
      rounds,
    };
  } finally {
    await database.close();
    await target.drop();
  }
}

/** Reading and planning (a preview against an empty system) of two files, median of three each. */
function measureLinearity(small: Uint8Array, largeText: string): NonNullable<ImportBenchResult['linearity']> {
  const large = new TextEncoder().encode(largeText);
  const time = (bytes: Uint8Array) => {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const source = readImportBytes(bytes);
      planImport(source, EMPTY_TARGET, { mode: 'merge', dryRun: true, history: true, now: Date.now(), newProxyTagId });
      runs.push(seconds(started));
    }
    return median(runs);
  };
  return { smallBytes: small.length, smallSeconds: time(small), largeBytes: large.length, largeSeconds: time(large) };
}

const EMPTY_TARGET: ImportTarget = {
  system: { ...SYSTEM_DEFAULTS, id: 1, userId: '1', createdAt: 0 } as unknown as SystemRecord,
  alters: [],
  tags: [],
  alterLinks: new Map(),
  tagLinks: new Map(),
  switchTimes: new Set(),
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (dialect === 'postgres' && !postgresUrl) {
    console.error('--postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
    process.exit(2);
  }
  const format = args.includes('--simplyplural') ? 'simplyplural' : 'pluralkit';
  benchImport({ quick, dialect, format, ...(postgresUrl ? { postgresUrl } : {}) }).then(
    (r) => {
      const f = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
      console.log(`${dialect}, ${format}: ${r.alters} alters, ${r.switches} switches${r.intervals ? ` (from ${r.intervals} intervals, ${r.fields} custom fields)` : ''}, ${f(r.fileBytes / 2 ** 20)} MiB, median of ${r.rounds}`);
      if (r.linearity) {
        const l = r.linearity;
        console.log(`  read+plan: ${f(l.smallSeconds)} s at ${f(l.smallBytes / 2 ** 20)} MiB, ${f(l.largeSeconds)} s at ${f(l.largeBytes / 2 ** 20)} MiB (${f(l.largeSeconds / l.smallSeconds)}x the time for ${f(l.largeBytes / l.smallBytes)}x the bytes)`);
      }
      console.log(`  import:    ${f(r.importSeconds)} s (reading the file ${f(r.readSeconds)} s)`);
      console.log(`  bare:      ${f(r.bareSeconds)} s (the same rows, bulk INSERTs in one transaction)`);
      console.log(`  re-import: ${f(r.reimportSeconds)} s (nothing changes)`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
