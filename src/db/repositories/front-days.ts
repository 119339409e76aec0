// Front statistics from storage: the per-day summary (domain/front-days.ts) kept up to date with
// the switches (settleFrontDays, in each writer's transaction) and read for a period's whole days,
// with the period's partial edge days read from the switches themselves (frontStatsOf). The
// answer is the one frontStats gives over every switch of the period, to the millisecond.
import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import {
  alterIdsOfList,
  DAY_MS,
  dayOf,
  FRONT_DAY_SPANS,
  frontDaySpans,
  planStatsParts,
  spanStart,
  summarizeDays,
  summaryDaysOf,
  sumStatsParts,
  type StatsPartsRead,
} from '../../domain/front-days.js';
import {
  addEntries,
  addFrontTime,
  addSwitches,
  addTotals,
  countedFrom,
  emptyTotals,
  frontStats,
  statsOfTotals,
  type FrontStats,
  type StatsFilter,
  type StatsSwitch,
} from '../../domain/front-stats.js';
import type { Schema } from '../tables.js';
import { insertInBulk, type BulkColumn } from '../bulk-rows.js';

type Executor = Kysely<Schema> | Transaction<Schema>;

type FrontDayRow = { system_id: number; span: number; day: number; alter_list: string; ms: number; last_at: number };
const FRONT_DAY_COLUMNS: ReadonlyArray<BulkColumn<FrontDayRow>> = [
  { name: 'system_id', pgType: 'bigint' },
  { name: 'span', pgType: 'integer' },
  { name: 'day', pgType: 'integer' },
  { name: 'alter_list', pgType: 'text' },
  { name: 'ms', pgType: 'bigint' },
  { name: 'last_at', pgType: 'bigint' },
];
type FrontDayEntryRow = { system_id: number; span: number; day: number; alter_id: number; entries: number; primary_entries: number };
const FRONT_DAY_ENTRY_COLUMNS: ReadonlyArray<BulkColumn<FrontDayEntryRow>> = [
  { name: 'system_id', pgType: 'bigint' },
  { name: 'span', pgType: 'integer' },
  { name: 'day', pgType: 'integer' },
  { name: 'alter_id', pgType: 'bigint' },
  { name: 'entries', pgType: 'integer' },
  { name: 'primary_entries', pgType: 'integer' },
];

/**
 * What front statistics read (domain/front-stats.ts): the switches in [from, to) and the one in
 * effect at `from`, oldest first, with their alters (primary first). Each switch's alters come from
 * its own row (`alter_list`, which triggers keep), and the period comes back as one string, so a
 * year of 100,000 switches is one range of the (system, time) index and one value, not 100,000
 * member lookups and rows.
 */
export async function switchesForStats(db: Executor, systemId: number, from: number, to: number): Promise<StatsSwitch[]> {
  const [before, within] = await Promise.all([
    db
      .selectFrom('switches')
      .select(['switched_at', 'alter_list'])
      .where('system_id', '=', systemId)
      .where('switched_at', '<', from)
      .orderBy('switched_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    // The switches as `<time> <id> <list>` entries in one string. Ordered in the subquery (the
    // index's order); the aggregate keeps it in practice on both databases, and the order is
    // checked below all the same.
    db
      .selectFrom((eb) =>
        eb
          .selectFrom('switches')
          .select(sql<string>`cast(switched_at as text) || ' ' || cast(id as text) || ' ' || alter_list`.as('entry'))
          .where('system_id', '=', systemId)
          .where('switched_at', '>=', from)
          .where('switched_at', '<', to)
          .orderBy('switched_at')
          .orderBy('id')
          .as('period'),
      )
      .select(sql<string | null>`string_agg(period.entry, ';')`.as('list'))
      .executeTakeFirst(),
  ]);
  const period = parseStatsList(within?.list ?? '');
  if (!period.ordered) period.entries.sort((a, b) => a.at - b.at || a.id - b.id);
  const switches: StatsSwitch[] = period.entries;
  if (before) switches.unshift({ at: Number(before.switched_at), alterIds: alterIdsOfList(before.alter_list) });
  return switches;
}

/**
 * `<time> <id> <a,b,c>;…` as entries, read character by character: a year is some 2 MB of it, and
 * splitting it into substrings first cost several times the query. Also tells whether the entries
 * came in (time, id) order.
 */
export function parseStatsList(list: string): { entries: Array<StatsSwitch & { id: number; alterIds: number[] }>; ordered: boolean } {
  const entries: Array<StatsSwitch & { id: number; alterIds: number[] }> = [];
  let ordered = true;
  const end = list.length;
  let i = 0;
  let lastAt = -Infinity;
  let lastId = -Infinity;
  const SPACE = 32;
  const COMMA = 44;
  const SEMICOLON = 59;
  const MINUS = 45;
  const number = (stop: number): number => {
    let negative = false;
    if (list.charCodeAt(i) === MINUS) {
      negative = true;
      i += 1;
    }
    let value = 0;
    for (let c = list.charCodeAt(i); i < end && c !== stop && c !== COMMA && c !== SEMICOLON; c = list.charCodeAt(++i)) value = value * 10 + (c - 48);
    return negative ? -value : value;
  };
  while (i < end) {
    const at = number(SPACE);
    i += 1;
    const id = number(SPACE);
    i += 1;
    const alterIds: number[] = [];
    while (i < end && list.charCodeAt(i) !== SEMICOLON) {
      alterIds.push(number(COMMA));
      if (list.charCodeAt(i) === COMMA) i += 1;
    }
    i += 1;
    if (at < lastAt || (at === lastAt && id < lastId)) ordered = false;
    lastAt = at;
    lastId = id;
    entries.push({ at, id, alterIds });
  }
  return { entries, ordered };
}

/**
 * Brings the system's per-day summary up to date with its switches, when the triggers marked it
 * behind (`front_days_stale`): every writer of switches calls it in its transaction, after its
 * writes, holding the system's lock. A change of the switches between times lo and hi changes the
 * days from the one of the switch before lo (whose time a switch at lo ends, or no longer ends)
 * to the one of the switch after hi (whose entries depend on the switch before it); those days are
 * summed again from the switches, and the mark goes.
 */
export async function settleFrontDays(db: Executor, systemId: number): Promise<void> {
  // The mark, with the switches just outside it, in one round trip (a settle runs in every switch write).
  const marked = await sql<{ lo: number | string; hi: number | string; before: number | string | null; after: number | string | null }>`
    select m.lo, m.hi,
      (select max(switched_at) from switches where system_id = ${systemId} and switched_at < m.lo) as before,
      (select min(switched_at) from switches where system_id = ${systemId} and switched_at > m.hi) as after
    from front_days_stale m where m.system_id = ${systemId}`.execute(db);
  const stale = marked.rows[0];
  if (!stale) return;
  const lo = Number(stale.lo);
  const hi = Number(stale.hi);
  const firstDay = dayOf(stale.before === null ? lo : Number(stale.before));
  const lastDay = dayOf(stale.after === null ? hi : Number(stale.after));
  const rangeStart = firstDay * DAY_MS;
  const rangeEnd = (lastDay + 1) * DAY_MS;
  const [switches, closing] = await Promise.all([
    switchesForStats(db, systemId, rangeStart, rangeEnd),
    db
      .selectFrom('switches')
      .select(['switched_at', 'alter_list'])
      .where('system_id', '=', systemId)
      .where('switched_at', '>=', rangeEnd)
      .orderBy('switched_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst(),
  ]);
  if (closing) switches.push({ at: Number(closing.switched_at), alterIds: alterIdsOfList(closing.alter_list) });
  const summary = summarizeDays(switches, firstDay, lastDay);

  // Every row holding those days, of each span, goes; then the days, then each longer span in turn.
  // One delete per span and table: SQLite without statistics plans a delete of several ranges
  // joined by OR as a scan of the system's whole summary.
  const runsOf = (span: number) => ({ low: spanStart(firstDay, span), high: spanStart(lastDay, span) + span });
  for (const span of FRONT_DAY_SPANS) {
    const { low, high } = runsOf(span);
    for (const table of ['front_days', 'front_day_entries'] as const) {
      await db.deleteFrom(table).where('system_id', '=', systemId).where('span', '=', span).where('day', '>=', low).where('day', '<', high).execute();
    }
  }
  // In bulk (db/bulk-rows.ts): an import's years of days are a few statements.
  await insertInBulk(
    db,
    'front_days',
    FRONT_DAY_COLUMNS,
    summary.times.map((row) => ({ system_id: systemId, span: 1, day: row.day, alter_list: row.alterList, ms: row.ms, last_at: row.last })),
  );
  await insertInBulk(
    db,
    'front_day_entries',
    FRONT_DAY_ENTRY_COLUMNS,
    summary.entries.map((row) => ({
      system_id: systemId,
      span: 1,
      day: row.day,
      alter_id: row.alterId,
      entries: row.entries,
      primary_entries: row.primaryEntries,
    })),
  );
  // The longer runs holding those days, each summed from the 4 runs of the size below it. A run
  // starts at a multiple of its span: `day - mod(day, span)`, with a modulo that is never negative
  // (SQL's % keeps the dividend's sign, and days before 1970 are negative).
  for (let level = 1; level < FRONT_DAY_SPANS.length; level += 1) {
    const span = FRONT_DAY_SPANS[level] as number;
    const below = FRONT_DAY_SPANS[level - 1] as number;
    const { low, high } = runsOf(span);
    const runStart = sql<number>`day - ((day % ${sql.lit(span)}) + ${sql.lit(span)}) % ${sql.lit(span)}`;
    await sql`insert into front_days (system_id, span, day, alter_list, ms, last_at)
      select system_id, ${sql.lit(span)}, ${runStart}, alter_list, sum(ms), max(last_at) from front_days
      where system_id = ${systemId} and span = ${sql.lit(below)} and day >= ${low} and day < ${high}
      group by system_id, ${runStart}, alter_list`.execute(db);
    await sql`insert into front_day_entries (system_id, span, day, alter_id, entries, primary_entries)
      select system_id, ${sql.lit(span)}, ${runStart}, alter_id, sum(entries), sum(primary_entries) from front_day_entries
      where system_id = ${systemId} and span = ${sql.lit(below)} and day >= ${low} and day < ${high}
      group by system_id, ${runStart}, alter_id`.execute(db);
  }
  await db.deleteFrom('front_days_stale').where('system_id', '=', systemId).execute();
}


interface StatsPartRow {
  kind: number;
  at: number | string | null;
  list: string | null;
  a: number | string | null;
  b: number | string | null;
}

const FIRST = 0;
const NEWEST = 1;
const TIMES = 2;
const ENTRIES = 3;
const HEAD = 4;
const TAIL = 5;

/**
 * The statistics of [from, to) (as statsPeriod resolved it) for `filter`: the whole days between
 * from the summary, the partial days at either edge from the switches, all read by one statement
 * (one snapshot on either database). Exactly frontStats over the period's switches; a system whose
 * summary is behind (`front_days_stale`: a writer that did not settle) is read that way.
 */
export async function frontStatsOf(db: Executor, systemId: number, from: number, to: number, filter: StatsFilter): Promise<FrontStats> {
  const days = summaryDaysOf(from, to);
  if (!days) return frontStatsFromSwitches(db, systemId, from, to, filter);
  const { firstDay, endDay } = days;
  const middleStart = firstDay * DAY_MS;
  const middleEnd = endDay * DAY_MS;
  // The whole days as the fewest summary rows (a few dozen runs of days for five years).
  const runs = sql.join(
    frontDaySpans(firstDay, endDay).map((range) => sql`(system_id = ${systemId} and span = ${range.span} and day >= ${range.from} and day < ${range.to})`),
    sql` or `,
  );
  // Each part is tagged by `kind`; `at`, `list`, `a` and `b` mean what the part needs (see below).
  const edge = (kind: number, start: number, end: number) => sql`
    select ${sql.lit(kind)} as kind, e.switched_at as at, e.alter_list as list, cast(e.id as bigint) as a, cast(null as bigint) as b
    from (select switched_at, alter_list, id from switches where system_id = ${systemId} and switched_at < ${start} order by switched_at desc, id desc limit 1) e
    union all
    select ${sql.lit(kind)}, switched_at, alter_list, cast(id as bigint), cast(null as bigint)
    from switches where system_id = ${systemId} and switched_at >= ${start} and switched_at < ${end}`;
  const result = await sql<StatsPartRow>`
    select ${sql.lit(FIRST)} as kind, (select min(switched_at) from switches where system_id = ${systemId}) as at, cast(null as text) as list,
      (select count(*) from front_days_stale where system_id = ${systemId}) as a, cast(null as bigint) as b
    union all
    select ${sql.lit(NEWEST)}, n.switched_at, n.alter_list, cast(null as bigint), cast(null as bigint)
    from (select switched_at, alter_list from switches where system_id = ${systemId} order by switched_at desc, id desc limit 1) n
    union all
    select ${sql.lit(TIMES)}, cast(max(last_at) as bigint), alter_list, cast(sum(ms) as bigint), cast(null as bigint)
    from front_days where ${runs} group by alter_list
    union all
    select ${sql.lit(ENTRIES)}, cast(alter_id as bigint), cast(null as text), cast(sum(entries) as bigint), cast(sum(primary_entries) as bigint)
    from front_day_entries where ${runs} group by alter_id
    union all
    ${edge(HEAD, from, middleStart)}
    union all
    ${edge(TAIL, middleEnd, to)}`.execute(db);

  let firstAt: number | undefined;
  let stale = false;
  let newest: StatsSwitch | undefined;
  const head: Array<StatsSwitch & { id: number }> = [];
  const tail: Array<StatsSwitch & { id: number }> = [];
  const totals = emptyTotals();
  for (const row of result.rows) {
    switch (Number(row.kind)) {
      case FIRST:
        firstAt = row.at === null ? undefined : Number(row.at);
        stale = Number(row.a) > 0;
        break;
      case NEWEST:
        newest = { at: Number(row.at), alterIds: alterIdsOfList(row.list ?? '') };
        break;
      case TIMES:
        addFrontTime(totals, alterIdsOfList(row.list ?? ''), Number(row.a), Number(row.at), filter);
        break;
      case ENTRIES:
        addEntries(totals, Number(row.at), Number(filter.primary ? row.b : row.a), filter);
        break;
      case HEAD:
      case TAIL:
        (Number(row.kind) === HEAD ? head : tail).push({ at: Number(row.at), id: Number(row.a), alterIds: alterIdsOfList(row.list ?? '') });
        break;
    }
  }
  if (stale) return frontStatsFromSwitches(db, systemId, from, to, filter);
  // The newest switch still fronts: the summary holds none of its time.
  if (newest && newest.at < middleEnd) addFrontTime(totals, newest.alterIds, middleEnd - Math.max(newest.at, middleStart), middleEnd, filter);
  const byTime = (a: StatsSwitch & { id: number }, b: StatsSwitch & { id: number }) => a.at - b.at || a.id - b.id;
  addSwitches(totals, from, middleStart, head.sort(byTime), filter);
  addSwitches(totals, middleEnd, to, tail.sort(byTime), filter);
  return statsOfTotals(totals, countedFrom(from, to, firstAt), to);
}

/** The statistics of a period from its switches alone (short periods; a summary behind). */
async function frontStatsFromSwitches(db: Executor, systemId: number, from: number, to: number, filter: StatsFilter): Promise<FrontStats> {
  const switches = await switchesForStats(db, systemId, from, to);
  return frontStats({ from, to, switches, ...filter });
}

const BEFORE = 6;
const WITHIN = 7;

interface StatsPartsRow {
  kind: number;
  at: number | string | null;
  list: string | null;
  a: number | string | null;
  b: number | string | null;
  c: number | string | null;
}

/**
 * The statistics of [from, to) cut at `boundaries` (statsBoundaries: ascending, after `from`; those
 * not before `to`, which is now at the latest, cut nothing but add an empty part each at `to`):
 * the period's figures with `parts`, each part exactly what frontStatsOf answers for it alone, and
 * the period's the sum of its parts' (front-stats.ts: they add up exactly). One statement reads
 * every part (domain/front-days.ts, planStatsParts): the summary's runs of all their whole days and
 * the switches of all their edges, so a year of daily parts costs about what the year costs alone.
 */
export async function frontStatsInParts(
  db: Executor,
  systemId: number,
  from: number,
  to: number,
  boundaries: readonly number[],
  filter: StatsFilter,
): Promise<FrontStats> {
  const inside = boundaries.filter((at) => at < to);
  const bounds = [from, ...inside, to];
  let plan = planStatsParts(bounds, true);
  let read = await readStatsParts(db, systemId, plan);
  // A summary behind (a writer that did not settle): every part from the switches, as frontStatsOf does.
  if (read.stale) read = await readStatsParts(db, systemId, (plan = planStatsParts(bounds, false)));
  const totals = sumStatsParts(plan.parts, read, filter);
  const whole = emptyTotals();
  const parts = plan.parts.map((part, index) => {
    const sums = totals[index] as ReturnType<typeof emptyTotals>;
    addTotals(whole, sums);
    return statsOfTotals(sums, countedFrom(part.from, part.to, read.firstAt), part.to);
  });
  // Parts after now: nothing has happened in them yet.
  for (let i = inside.length; i < boundaries.length; i++) parts.push(statsOfTotals(emptyTotals(), to, to));
  return { ...statsOfTotals(whole, countedFrom(from, to, read.firstAt), to), parts };
}

/** planStatsParts's reads, in one statement (one snapshot on either database). */
async function readStatsParts(db: Executor, systemId: number, plan: ReturnType<typeof planStatsParts>): Promise<StatsPartsRead & { stale: boolean }> {
  const { runs, switchRanges } = plan;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // The ranges as VALUES lists of literal integers (never parameters: a year of parts would be
  // thousands of them; columns column1, column2… on both databases), joined to the tables: no OR
  // chain, whose depth SQLite bounds.
  const runList = sql.join(runs.map((run) => sql`(${sql.lit(run.span)}, ${sql.lit(run.from)}, ${sql.lit(run.to)})`));
  const rangeList = sql.join(switchRanges.map((range) => sql`(${sql.lit(range.lo)}, ${sql.lit(range.hi)})`));
  const branches = [
    sql`select ${sql.lit(FIRST)} as kind, (select min(switched_at) from switches where system_id = ${systemId}) as at, cast(null as text) as list,
      (select count(*) from front_days_stale where system_id = ${systemId}) as a, cast(null as bigint) as b, cast(null as bigint) as c`,
    sql`select ${sql.lit(NEWEST)}, n.switched_at, n.alter_list, cast(null as bigint), cast(null as bigint), cast(null as bigint)
      from (select switched_at, alter_list from switches where system_id = ${systemId} order by switched_at desc, id desc limit 1) n`,
  ];
  if (runs.length > 0) {
    branches.push(
      sql`select ${sql.lit(TIMES)}, cast(f.last_at as bigint), f.alter_list, cast(f.ms as bigint), cast(f.day as bigint), cast(null as bigint)
        from (values ${runList}) r join front_days f on f.system_id = ${systemId} and f.span = r.column1 and f.day >= r.column2 and f.day < r.column3`,
      sql`select ${sql.lit(ENTRIES)}, cast(e.alter_id as bigint), cast(null as text), cast(e.entries as bigint), cast(e.primary_entries as bigint), cast(e.day as bigint)
        from (values ${runList}) r join front_day_entries e on e.system_id = ${systemId} and e.span = r.column1 and e.day >= r.column2 and e.day < r.column3`,
    );
  }
  if (switchRanges.length > 0) {
    branches.push(
      // The switch in effect at each range's start.
      sql`select ${sql.lit(BEFORE)}, s.switched_at, s.alter_list, cast(s.id as bigint), cast(null as bigint), cast(null as bigint)
        from (select (select id from switches where system_id = ${systemId} and switched_at < q.column1 order by switched_at desc, id desc limit 1) as id
          from (values ${rangeList}) q) p
        join switches s on s.id = p.id`,
      // Those within the ranges as one string, as switchesForStats reads them. SQLite reads the
      // ranges in the order given, each along the (system, time, id) index, so they come ordered
      // without sorting a year of them in a temporary tree (parseStatsList checks, and they are
      // sorted if not); PostgreSQL is asked for the order.
      sql`select ${sql.lit(WITHIN)}, cast(null as bigint), string_agg(w.entry, ';'), cast(null as bigint), cast(null as bigint), cast(null as bigint)
        from (select cast(s.switched_at as text) || ' ' || cast(s.id as text) || ' ' || s.alter_list as entry
          from (values ${rangeList}) q join switches s on s.system_id = ${systemId} and s.switched_at >= q.column1 and s.switched_at < q.column2
          ${postgres ? sql`order by s.switched_at, s.id` : sql``}) w`,
    );
  }
  const result = await sql<StatsPartsRow>`${sql.join(branches, sql` union all `)}`.execute(db);

  let firstAt: number | undefined;
  let stale = false;
  let newest: StatsPartsRead['newest'];
  const times: Array<StatsPartsRead['times'][number]> = [];
  const entries: Array<StatsPartsRead['entries'][number]> = [];
  const befores: Array<StatsSwitch & { id: number }> = [];
  let within: Array<StatsSwitch & { id: number }> = [];
  for (const row of result.rows) {
    switch (Number(row.kind)) {
      case FIRST:
        firstAt = row.at === null ? undefined : Number(row.at);
        stale = Number(row.a) > 0;
        break;
      case NEWEST:
        newest = { at: Number(row.at), alterIds: alterIdsOfList(row.list ?? '') };
        break;
      case TIMES:
        times.push({ day: Number(row.b), alterList: row.list ?? '', ms: Number(row.a), last: Number(row.at) });
        break;
      case ENTRIES:
        entries.push({ day: Number(row.c), alterId: Number(row.at), entries: Number(row.a), primaryEntries: Number(row.b) });
        break;
      case BEFORE:
        befores.push({ at: Number(row.at), id: Number(row.a), alterIds: alterIdsOfList(row.list ?? '') });
        break;
      case WITHIN: {
        const parsed = parseStatsList(row.list ?? '');
        within = parsed.entries;
        if (!parsed.ordered) within.sort(byTimeAndId);
        break;
      }
    }
  }
  // The few switches in effect at the ranges' starts merged into the (many, ordered) ones within
  // them, once each: a year's 100,000 are not sorted again.
  befores.sort(byTimeAndId);
  const switches: Array<StatsSwitch & { id: number }> = [];
  let next = 0;
  for (const entry of within) {
    while (next < befores.length && byTimeAndId(befores[next] as StatsSwitch & { id: number }, entry) < 0) {
      pushOnce(switches, befores[next++] as StatsSwitch & { id: number });
    }
    pushOnce(switches, entry);
  }
  while (next < befores.length) pushOnce(switches, befores[next++] as StatsSwitch & { id: number });
  return { firstAt, stale, newest, times, entries, switches };
}

const byTimeAndId = (a: StatsSwitch & { id: number }, b: StatsSwitch & { id: number }): number => a.at - b.at || a.id - b.id;

/** Appends `entry` to the ordered `list` unless it is its last one already (a switch both in effect at a range's start and within an earlier range). */
function pushOnce(list: Array<StatsSwitch & { id: number }>, entry: StatsSwitch & { id: number }): void {
  if (list.at(-1)?.id !== entry.id) list.push(entry);
}
