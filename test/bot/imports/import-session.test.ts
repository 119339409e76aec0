// Pending import previews (one press runs, the owner only, expiry drops the file, a bounded total)
// and the report's text within Discord's limits.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type ImportReport } from '../../../src/bot/api-client.js';
import { createImportSessions, type ImportSessions } from '../../../src/bot/imports/import-session.js';
import { altersInFile, groupWarnings, importReportEmbed, listWithin } from '../../../src/bot/imports/import-report.js';

const ALICE = '400000000000000001';
const BOB = '400000000000000002';
const file = (text = '{"switches":[]}') => Buffer.from(text);
const choice = { mode: 'merge' as const, history: false };

const report = (overrides: Partial<ImportReport> = {}): ImportReport => ({
  format: 'pluralkit',
  mode: 'merge',
  dryRun: false,
  history: false,
  counts: {
    alters: { created: 3, updated: 1, unchanged: 0, deleted: 0 },
    tags: { created: 2, updated: 0, unchanged: 0, deleted: 0 },
    switches: { created: 0, unchanged: 0, deleted: 0 },
  },
  renames: [],
  skipped: [],
  warnings: [],
  notImported: {},
  ...overrides,
});

describe('import sessions', () => {
  let now = 1_000_000;
  let sessions: ImportSessions;
  const open = (options: Parameters<typeof createImportSessions>[0] = {}) => (sessions = createImportSessions({ ttlMs: 60_000, now: () => now, ...options }));
  afterEach(() => sessions.stop());

  it('lets the owner claim once; a second press sees it running, then done with the report', () => {
    open();
    const { id } = sessions.open(ALICE, file(), choice);
    const first = sessions.claim(id, ALICE);
    expect(first).toMatchObject({ status: 'claimed', choice });
    expect(sessions.claim(id, ALICE)).toEqual({ status: 'running' });
    sessions.complete(id, report());
    expect(sessions.claim(id, ALICE)).toEqual({ status: 'done', report: report() });
    expect(sessions.waitingBytes()).toBe(0);
  });

  it('gives each preview its own random key, kept across a retry', () => {
    open();
    const a = sessions.open(ALICE, file(), choice);
    const b = sessions.open(BOB, file(), choice);
    const first = sessions.claim(a.id, ALICE);
    const other = sessions.claim(b.id, BOB);
    if (first.status !== 'claimed' || other.status !== 'claimed') throw new Error('not claimed');
    expect(first.idempotencyKey).not.toBe(other.idempotencyKey);
    expect(first.idempotencyKey.length).toBeGreaterThanOrEqual(32);
    sessions.fail(a.id, true);
    const again = sessions.claim(a.id, ALICE);
    expect(again).toMatchObject({ status: 'claimed', idempotencyKey: first.idempotencyKey });
  });

  it('refuses another user, for Confirm and Cancel', () => {
    open();
    const { id } = sessions.open(ALICE, file(), choice);
    expect(sessions.claim(id, BOB)).toEqual({ status: 'not-yours' });
    expect(sessions.cancel(id, BOB)).toEqual({ status: 'not-yours' });
    expect(sessions.claim(id, ALICE).status).toBe('claimed');
  });

  it('drops a cancelled preview and a refused import', () => {
    open();
    const { id } = sessions.open(ALICE, file(), choice);
    expect(sessions.cancel(id, ALICE)).toEqual({ status: 'cancelled' });
    expect(sessions.claim(id, ALICE)).toEqual({ status: 'expired' });
    const second = sessions.open(ALICE, file(), choice);
    sessions.claim(second.id, ALICE);
    sessions.fail(second.id, false);
    expect(sessions.claim(second.id, ALICE)).toEqual({ status: 'expired' });
  });

  it('expires a preview and its file, but not an import still running', () => {
    open();
    const waiting = sessions.open(ALICE, file(), choice);
    const running = sessions.open(BOB, file(), choice);
    sessions.claim(running.id, BOB);
    now += 60_001;
    expect(sessions.claim(waiting.id, ALICE)).toEqual({ status: 'expired' });
    expect(sessions.claim(running.id, BOB)).toEqual({ status: 'running' });
    sessions.complete(running.id, report());
    expect(sessions.claim(running.id, BOB)).toEqual({ status: 'done', report: report() });
    // Not forever: a press long after shows the preview expired, and nothing is kept.
    now += 10 * 60_000;
    expect(sessions.claim(running.id, BOB)).toEqual({ status: 'expired' });
  });

  it('lets go of an import whose press never finished (the entry cannot stay running forever)', () => {
    open();
    const { id } = sessions.open(ALICE, file(), choice);
    sessions.claim(id, ALICE);
    now += 60 * 60_000;
    expect(sessions.claim(id, ALICE)).toEqual({ status: 'expired' });
    expect(sessions.waitingBytes()).toBe(0);
  });

  it('keeps one waiting preview per user: a new /import replaces the old one', () => {
    open();
    const old = sessions.open(ALICE, file(), choice);
    sessions.open(ALICE, file(), choice);
    expect(sessions.claim(old.id, ALICE)).toEqual({ status: 'expired' });
    expect(sessions.waitingBytes()).toBe(file().length);
  });

  it('bounds the bytes waiting in memory', () => {
    open({ maxWaitingBytes: 100 });
    sessions.open(ALICE, Buffer.alloc(60), choice);
    expect(() => sessions.open(BOB, Buffer.alloc(60), choice)).toThrow(ApiError);
    now += 60_001;
    expect(() => sessions.open(BOB, Buffer.alloc(60), choice)).not.toThrow();
  });
});

describe('the import report in Discord', () => {
  it('lists within the limit and says how many more', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line number ${i} ${'x'.repeat(20)}`);
    const text = listWithin(lines, String, 200);
    expect(text.length).toBeLessThanOrEqual(200);
    const shown = text.split('\n');
    const more = Number(/…and (\d+) more$/.exec(text)?.[1]);
    expect(shown.length - 1 + more).toBe(100);
    expect(listWithin(['a', 'b'], String, 200)).toBe('a\nb');
  });

  it('cuts a single long line rather than losing it', () => {
    const text = listWithin(['y'.repeat(5000)], String);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.endsWith('…')).toBe(true);
  });

  it('groups identical warnings', () => {
    expect(groupWarnings(['a', 'b', 'a', 'a'])).toEqual(['a (×3)', 'b']);
  });

  it('stays within 6000 characters with thousands of renames, skips and warnings, and escapes names', () => {
    const many = Array.from({ length: 3000 }, (_, i) => i);
    const embed = importReportEmbed(
      report({
        renames: many.map((i) => ({ source: 'pluralkit', id: `abc${i}`, name: `*bold* ${'n'.repeat(90)}`, to: `name-${i}` })),
        skipped: many.map((i) => ({ source: 'tupperbox', id: String(i), name: 'Nameless', reason: 'no usable name' })),
        warnings: many.map((i) => `warning ${i % 700}: ${'w'.repeat(150)}`),
        history: true,
      }),
      'preview',
    ).toJSON();
    const total = (embed.title ?? '').length + (embed.description ?? '').length + (embed.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
    for (const field of embed.fields ?? []) expect(field.value.length).toBeLessThanOrEqual(1024);
    expect(embed.fields?.map((f) => f.name)).toEqual(['Alters', 'Tags', 'Front history', 'Renamed (3,000)', 'Skipped (3,000)', 'Warnings (3,000)']);
    expect(embed.fields?.[3]?.value).toContain('\\*bold\\*');
    expect(embed.fields?.[5]?.value).toContain('(×');
  });

  it('titles a preview and a result, and counts what each kind gets', () => {
    const preview = importReportEmbed(report({ dryRun: true }), 'preview').toJSON();
    expect(preview.title).toBe('Import preview: PluralKit');
    expect(preview.fields?.[0]).toMatchObject({ name: 'Alters', value: '3 new · 1 updated · 0 unchanged' });
    expect(preview.description).toMatch(/Front history: not included/);
    const replaced = importReportEmbed(report({ format: 'tupperbox', mode: 'replace', counts: { ...report().counts, alters: { created: 0, updated: 0, unchanged: 1, deleted: 4 } } }), 'result').toJSON();
    expect(replaced.title).toBe('Imported from Tupperbox');
    expect(replaced.fields?.[0]?.value).toContain('**4 deleted**');
  });

  it('counts the alters in a file when it can', () => {
    expect(altersInFile(Buffer.from('\uFEFF{"members":[{},{}],"switches":[]}'))).toBe(2);
    expect(altersInFile(Buffer.from('{"tuppers":[{}],"groups":[]}'))).toBe(1);
    expect(altersInFile(Buffer.from('not json'))).toBeUndefined();
    expect(altersInFile(Buffer.from('[1,2]'))).toBeUndefined();
  });
});
