// Front statistics (PluralKit's `frontpercent`): over a period, how long each alter fronted, its
// share of the period, how often it came into the front and when it last fronted. Pure: the route
// resolves the period (statsPeriod), the switches repository reads the switches of the period and
// the one in effect at its start, and frontStats adds them up.
import { z } from 'zod';
import { Problem } from './problems.js';
import { EntityIdString, IsoDateTime } from './values.js';

const DAY = 24 * 60 * 60 * 1000;
export const DEFAULT_STATS_DAYS = 30;
export const MAX_STATS_YEARS = 5;
/** Parts one statistics request may split its period into: a year of days, with room for a leap year and a few more. */
export const MAX_STATS_PARTS = 400;
/** The longest `boundaries` value accepted: MAX_STATS_PARTS - 1 instants with a few characters to spare each. */
const MAX_BOUNDARIES_LENGTH = (MAX_STATS_PARTS - 1) * 40;

export const FrontStatsQuery = z.strictObject({
  from: IsoDateTime.optional().describe(`The period's start (default: ${DEFAULT_STATS_DAYS} days before \`to\`). The period never starts before the system's first switch.`),
  to: IsoDateTime.optional().describe('The period\'s end (default: now; later than now counts as now).'),
  tag: EntityIdString.optional().describe('A tag id: only its members are listed, and `nobody` is the time none of them fronted.'),
  primary: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: count only the primary fronter of each switch (its first alter); default `false`: every co-fronter counts.'),
  boundaries: z
    .string()
    .max(MAX_BOUNDARIES_LENGTH)
    .optional()
    .describe(
      `Also answer the period part by part: ISO times (with an offset), comma-separated, ascending, each strictly between the period's \`from\` and the \`to\` asked for, at most ${MAX_STATS_PARTS - 1} of them. They cut the period into consecutive parts (n instants, n + 1 parts; an empty value, one part), answered in \`parts\`, each exactly what a call for that part alone would answer. The instants are yours, so parts can be days, weeks or months in any time zone. A \`to\` later than now counts as now, and so does an instant: the parts after now are empty (\`from\` = \`to\` = now), so a caller whose clock runs ahead is not refused. An unparsable, unsorted, repeated or outside instant is a 400.`,
    ),
});
export type FrontStatsQuery = z.infer<typeof FrontStatsQuery>;

export const FrontStatsRow = z.strictObject({
  alterId: z.number().int().nullable().describe('The alter; null for the one row of every alter hidden from you (the time any of them fronted).'),
  seconds: z.number().describe('Time fronting in the period, in seconds (millisecond precision). Co-fronting counts for each co-fronter.'),
  share: z.number().min(0).max(1).describe('`seconds` as a fraction of the period (0 to 1).'),
  switches: z.number().int().nullable().describe('Switches that brought the alter into the front (into the primary place with `primary=true`) within the period; null for the hidden row.'),
  lastFronted: IsoDateTime.nullable().describe('The last instant within the period when it fronted (`to` if it still fronts then); null for the hidden row.'),
});
export type FrontStatsRow = z.infer<typeof FrontStatsRow>;

const periodStats = {
  from: IsoDateTime.describe('The period counted: from the later of `from` and the system\'s first switch (`to` when there is none before `to`).'),
  to: IsoDateTime,
  alters: z.array(FrontStatsRow).describe('Only alters with time in the period, longest first.'),
  nobody: z.strictObject({ seconds: z.number(), share: z.number().min(0).max(1) }).describe('The time nobody fronted (with `tag`: none of its members).'),
};

/** One part of a period cut at `boundaries`: exactly the statistics of a call for that part alone. */
export const FrontStatsPart = z.strictObject(periodStats).meta({ id: 'FrontStatsPart' });
export type FrontStatsPart = z.infer<typeof FrontStatsPart>;

export const FrontStats = z
  .strictObject({
    ...periodStats,
    parts: z
      .array(FrontStatsPart)
      .optional()
      .describe('Only with `boundaries`: the period\'s parts in order, the first from the period\'s start to the first boundary, the last from the last boundary to its end. Each is what a call for that part alone answers (its `from` the later of the part\'s start and the first switch), and they add up to the period\'s figures.'),
  })
  .meta({ id: 'FrontStats' });
export type FrontStats = z.infer<typeof FrontStats>;

/** The last instant `years` calendar years after `at` (UTC). */
function yearsAfter(at: number, years: number): number {
  const date = new Date(at);
  date.setUTCFullYear(date.getUTCFullYear() + years);
  return date.getTime();
}

/**
 * The period asked for, before the first switch is known: `to` defaults to now and a later one
 * counts as now; `from` defaults to 30 days before `to`. Reversed or longer than five years: 400.
 */
export function statsPeriod(query: { from?: string | undefined; to?: string | undefined }, now: number): { from: number; to: number } {
  const to = Math.min(query.to === undefined ? now : Date.parse(query.to), now);
  const from = query.from === undefined ? to - DEFAULT_STATS_DAYS * DAY : Date.parse(query.from);
  if (from > to) {
    throw new Problem('validation', query.to !== undefined && Date.parse(query.to) > now ? 'from: must be before to (a to later than now counts as now)' : 'from: must be before to', 'from');
  }
  if (to > yearsAfter(from, MAX_STATS_YEARS)) throw new Problem('validation', `from: the period may be at most ${MAX_STATS_YEARS} years long`, 'from');
  return { from, to };
}

/**
 * The instants of `boundaries` (FrontStatsQuery) that cut the period [from, to) (as statsPeriod
 * resolved it) into parts: ascending, each after `from` and before the `to` asked for (`askedTo`,
 * which may be later than now: the parts after now are empty), at most MAX_STATS_PARTS - 1. An
 * empty value cuts nothing (one part). Anything else is a 400 naming the instant at fault.
 */
export function statsBoundaries(value: string, period: { from: number; to: number }, askedTo = period.to): number[] {
  if (value === '') return [];
  const items = value.split(',');
  if (items.length > MAX_STATS_PARTS - 1) {
    throw new Problem('validation', `boundaries: at most ${MAX_STATS_PARTS - 1} instants (${MAX_STATS_PARTS} parts); ${items.length} were given`, 'boundaries');
  }
  const instants: number[] = [];
  for (const [index, item] of items.entries()) {
    const which = `boundaries: instant ${index + 1} (${JSON.stringify(item.slice(0, 40))})`;
    if (!IsoDateTime.safeParse(item).success) throw new Problem('validation', `${which} is not an ISO date-time with an offset`, 'boundaries');
    const at = Date.parse(item);
    if (at <= period.from || at >= Math.max(period.to, askedTo)) {
      throw new Problem('validation', `${which} is not strictly between the period's from and to`, 'boundaries');
    }
    const previous = instants.at(-1);
    if (previous !== undefined && at <= previous) throw new Problem('validation', `${which} is not after the one before it: the list must be ascending, without repeats`, 'boundaries');
    instants.push(at);
  }
  return instants;
}

/** A switch as the statistics need it: its time and alters, primary first. */
export interface StatsSwitch {
  at: number;
  alterIds: readonly number[];
}

export interface StatsInput {
  from: number;
  to: number;
  /**
   * Ordered by time (then id): the switch in effect at `from`, if any, then those in [from, to).
   * Later ones are ignored.
   */
  switches: readonly StatsSwitch[];
  /** Only the primary fronter of each switch counts. */
  primary: boolean;
  /** A tag's members: only they count (undefined: every alter). */
  members?: ReadonlySet<number>;
  /** Whether the viewer may see the alter; the others are counted together in one row (alterId null). */
  shown(alterId: number): boolean;
}

/** What one alter adds up to over (part of) a period. */
export interface StatsTally {
  ms: number;
  switches: number;
  /** The last instant it fronted (0: none yet). */
  last: number;
}

/**
 * The statistics of a period before they are shaped into rows: kept apart so that a period can be
 * added up in parts (front-days.ts: whole days from the per-day summary, the edges from switches)
 * with exactly the sums one pass over its switches gives.
 */
export interface StatsTotals {
  tallies: Map<number, StatsTally>;
  /** Time any hidden alter fronted. */
  hiddenMs: number;
  /** Time no counted alter fronted. */
  nobodyMs: number;
}

/** Who counts, and for whom: the parts of StatsInput that are not the switches or the period. */
export type StatsFilter = Pick<StatsInput, 'primary' | 'members' | 'shown'>;

export function emptyTotals(): StatsTotals {
  return { tallies: new Map(), hiddenMs: 0, nobodyMs: 0 };
}

function tallyOf(totals: StatsTotals, alterId: number): StatsTally {
  let tally = totals.tallies.get(alterId);
  if (!tally) {
    tally = { ms: 0, switches: 0, last: 0 };
    totals.tallies.set(alterId, tally);
  }
  return tally;
}

/** The period's start once the first switch is known: nothing is known before it. */
export function countedFrom(from: number, to: number, firstAt: number | undefined): number {
  if (firstAt === undefined || firstAt >= to) return to;
  return firstAt > from ? firstAt : from;
}

/**
 * Adds the switches of [from, to) to `totals`: `switches` as StatsInput has them (the one in effect
 * at `from`, if any, then those in [from, to), ordered by time then id).
 */
export function addSwitches(totals: StatsTotals, from: number, to: number, switches: readonly StatsSwitch[], filter: StatsFilter): void {
  const { primary, members, shown } = filter;
  const first = switches[0];
  from = countedFrom(from, to, first?.at);
  // A year holds some 100,000 switches: one pass, no allocation per switch. An alter enters the
  // front at a switch when the switch before did not count it (`seen` holds the last switch that did).
  const seen = new Map<number, number>();
  const count = switches.length;
  for (let index = 0; index < count; index += 1) {
    const current = switches[index] as StatsSwitch;
    if (current.at >= to) break;
    const next = switches[index + 1];
    const start = current.at > from ? current.at : from;
    const stop = next === undefined || next.at > to ? to : next.at;
    const ms = stop > start ? stop - start : 0;
    // Entries count only for switches within the period (the one in effect at `from` came earlier).
    const entered = current.at >= from;
    const alterIds = current.alterIds;
    const limit = primary ? Math.min(1, alterIds.length) : alterIds.length;
    let counted = 0;
    let anyHidden = false;
    for (let position = 0; position < limit; position += 1) {
      const alterId = alterIds[position] as number;
      if (members && !members.has(alterId)) continue;
      counted += 1;
      const wasIn = seen.get(alterId) === index - 1;
      seen.set(alterId, index);
      if (!shown(alterId)) {
        anyHidden = true;
        continue;
      }
      const tally = tallyOf(totals, alterId);
      tally.ms += ms;
      if (entered && !wasIn) tally.switches += 1;
      if (ms > 0 && stop > tally.last) tally.last = stop;
    }
    if (anyHidden) totals.hiddenMs += ms;
    if (counted === 0) totals.nobodyMs += ms;
  }
}

/**
 * Adds `ms` of fronting by `alterIds` (a switch's alters, primary first) ending at `last` at the
 * latest, as addSwitches adds a switch's time: the per-day summary's totals per list of alters.
 */
export function addFrontTime(totals: StatsTotals, alterIds: readonly number[], ms: number, last: number, filter: StatsFilter): void {
  if (ms <= 0) return;
  const { primary, members, shown } = filter;
  const limit = primary ? Math.min(1, alterIds.length) : alterIds.length;
  let counted = 0;
  let anyHidden = false;
  for (let position = 0; position < limit; position += 1) {
    const alterId = alterIds[position] as number;
    if (members && !members.has(alterId)) continue;
    counted += 1;
    if (!shown(alterId)) {
      anyHidden = true;
      continue;
    }
    const tally = tallyOf(totals, alterId);
    tally.ms += ms;
    if (last > tally.last) tally.last = last;
  }
  if (anyHidden) totals.hiddenMs += ms;
  if (counted === 0) totals.nobodyMs += ms;
}

/** Adds an alter's entries into the front (the per-day summary's counts), as addSwitches counts them. */
export function addEntries(totals: StatsTotals, alterId: number, entries: number, filter: StatsFilter): void {
  if (filter.members && !filter.members.has(alterId)) return;
  if (!filter.shown(alterId)) return;
  tallyOf(totals, alterId).switches += entries;
}

/** Adds the totals of a later part of a period to those of the parts before it: the sums of one pass over the whole. */
export function addTotals(totals: StatsTotals, part: StatsTotals): void {
  for (const [alterId, tally] of part.tallies) {
    const sum = tallyOf(totals, alterId);
    sum.ms += tally.ms;
    sum.switches += tally.switches;
    if (tally.last > sum.last) sum.last = tally.last;
  }
  totals.hiddenMs += part.hiddenMs;
  totals.nobodyMs += part.nobodyMs;
}

/** The answer for the period [from, to) (`from` as countedFrom gives it) from its totals. */
export function statsOfTotals(totals: StatsTotals, from: number, to: number): FrontStats {
  const span = to - from;
  const share = (ms: number) => (span > 0 ? Math.min(1, ms / span) : 0);
  const rows: FrontStatsRow[] = [];
  for (const [alterId, tally] of totals.tallies) {
    if (tally.ms <= 0) continue;
    rows.push({ alterId, seconds: tally.ms / 1000, share: share(tally.ms), switches: tally.switches, lastFronted: new Date(tally.last).toISOString() });
  }
  const { hiddenMs, nobodyMs } = totals;
  if (hiddenMs > 0) rows.push({ alterId: null, seconds: hiddenMs / 1000, share: share(hiddenMs), switches: null, lastFronted: null });
  rows.sort((a, b) => b.seconds - a.seconds || (a.alterId ?? Number.MAX_SAFE_INTEGER) - (b.alterId ?? Number.MAX_SAFE_INTEGER));
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    alters: rows,
    nobody: { seconds: nobodyMs / 1000, share: share(nobodyMs) },
  };
}

/** The statistics of a period (see FrontStats for what each number means), in one pass over its switches. */
export function frontStats(input: StatsInput): FrontStats {
  const totals = emptyTotals();
  addSwitches(totals, input.from, input.to, input.switches, input);
  return statsOfTotals(totals, countedFrom(input.from, input.to, input.switches[0]?.at), input.to);
}
