// The per-day (UTC) summary of a system's front, so that front statistics of a long period read
// a few hundred summary rows for its whole days and switches only for its edges, instead of every
// switch of the period (bench/front-stats.ts: a year of 100,000 switches). Pure: the switches
// repository keeps the summary (settleFrontDays) and reads it (frontStatsOf).
//
// Per day it holds what the statistics add up, in parts that add up across days exactly as one
// pass over the switches does (front-stats.ts, addSwitches):
// - per list of alters (a switch's alters in order, `alter_list`'s form): the time it fronted that
//   day and the last instant it did. Per list, not per alter, because `nobody` under a tag and the
//   hidden alters' row are the time *any* of a set fronted, which per-alter sums cannot give;
//   every filter (primary, tag, viewer) is applied to the lists when read (addFrontTime).
// - per alter: the switches that brought it into the front that day, counting every alter and
//   counting the primary only. Whether an alter enters depends only on itself and the switch
//   before, so these counts hold under any tag and viewer.
// Only closed time is summed: the newest switch still fronts, so its time, which grows with the
// clock, is added when read.
//
// Days are also summed in aligned runs of 4, 16, 64, 256 and 1024 (FRONT_DAY_SPANS), so that a
// long period reads at most 3 runs of each size at either end and one or two of the largest
// (frontDaySpans): at most 23 runs for five years (20 for one), whatever the number of switches,
// where single days would be 1,826.
import { addEntries, addFrontTime, addSwitches, emptyTotals, type StatsFilter, type StatsSwitch, type StatsTotals } from './front-stats.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of an instant, as days since 1970-01-01. */
export const dayOf = (at: number): number => Math.floor(at / DAY_MS);

/**
 * The runs of days the summary keeps, each 4 times the one before; a run of `span` days starts at
 * a multiple of it. Four: at most 3 runs of a size at either end of a period (8 would read up to 7
 * and half as many rows again on average), for two more sizes to keep on each write.
 */
export const FRONT_DAY_SPANS = [1, 4, 16, 64, 256, 1024] as const;

/** `day` rounded down to a multiple of `span` (days before 1970 included). */
export const spanStart = (day: number, span: number): number => Math.floor(day / span) * span;

/** Summary rows of one size: `span`, starting at days in [from, to). */
export interface DaySpanRange {
  span: number;
  from: number;
  to: number;
}

/**
 * The days [firstDay, endDay) as the fewest summary rows: the runs of each size up to the first
 * and from the last multiple of the next size, then the largest in between.
 */
export function frontDaySpans(firstDay: number, endDay: number): DaySpanRange[] {
  const ranges: DaySpanRange[] = [];
  let low = firstDay;
  let high = endDay;
  for (let level = 0; level < FRONT_DAY_SPANS.length && low < high; level += 1) {
    const span = FRONT_DAY_SPANS[level] as number;
    const larger = FRONT_DAY_SPANS[level + 1];
    const lowAligned = larger === undefined ? high : Math.ceil(low / larger) * larger + 0; // + 0: never -0
    const highAligned = larger === undefined ? high : spanStart(high, larger);
    if (lowAligned >= highAligned) {
      ranges.push({ span, from: low, to: high });
      break;
    }
    if (low < lowAligned) ranges.push({ span, from: low, to: lowAligned });
    if (highAligned < high) ranges.push({ span, from: highAligned, to: high });
    low = lowAligned;
    high = highAligned;
  }
  return ranges;
}

/** A switch's alters as the summary keys them: ids in position order, comma-separated ('' for a switch-out). */
export const alterListOf = (alterIds: readonly number[]): string => alterIds.join(',');

export const alterIdsOfList = (list: string): number[] => (list === '' ? [] : list.split(',').map(Number));

export interface FrontDayTime {
  day: number;
  alterList: string;
  ms: number;
  /** The last instant of the day when the list fronted (at most the day's end). */
  last: number;
}

export interface FrontDayEntries {
  day: number;
  alterId: number;
  /** Switches that brought the alter into the front (every co-fronter counting). */
  entries: number;
  /** Switches that brought it into the primary place. */
  primaryEntries: number;
}

export interface FrontDays {
  times: FrontDayTime[];
  entries: FrontDayEntries[];
}

const everyone = () => true;

/**
 * The summary of the days [firstDay, lastDay]. `switches`, ordered by time then id: the one in
 * effect at the start of firstDay (if any), every one within those days, then the first one after
 * them, if any (it closes the last one's time; without it the last switch is the newest, still
 * fronting, and its time is not summed).
 */
export function summarizeDays(switches: readonly StatsSwitch[], firstDay: number, lastDay: number): FrontDays {
  const rangeStart = firstDay * DAY_MS;
  const rangeEnd = (lastDay + 1) * DAY_MS;
  const times = new Map<string, FrontDayTime>();
  const count = switches.length;
  for (let index = 0; index + 1 < count; index += 1) {
    const current = switches[index] as StatsSwitch;
    const next = switches[index + 1] as StatsSwitch;
    const start = Math.max(current.at, rangeStart);
    const stop = Math.min(next.at, rangeEnd);
    if (stop <= start) continue;
    const alterList = alterListOf(current.alterIds);
    for (let day = dayOf(start); day * DAY_MS < stop; day += 1) {
      const pieceStart = Math.max(start, day * DAY_MS);
      const pieceStop = Math.min(stop, (day + 1) * DAY_MS);
      if (pieceStop <= pieceStart) continue;
      const key = `${day} ${alterList}`;
      const found = times.get(key);
      if (found) {
        found.ms += pieceStop - pieceStart;
        if (pieceStop > found.last) found.last = pieceStop;
      } else {
        times.set(key, { day, alterList, ms: pieceStop - pieceStart, last: pieceStop });
      }
    }
  }

  // Entries, day by day, counted by the statistics' own pass over the day's switches (with the one
  // in effect at the day's start ahead of them), so that they mean exactly what it counts.
  const entries: FrontDayEntries[] = [];
  let index = 0;
  while (index < count && (switches[index] as StatsSwitch).at < rangeStart) index += 1;
  while (index < count && (switches[index] as StatsSwitch).at < rangeEnd) {
    const day = dayOf((switches[index] as StatsSwitch).at);
    const dayEnd = (day + 1) * DAY_MS;
    let end = index;
    while (end < count && (switches[end] as StatsSwitch).at < dayEnd) end += 1;
    const slice = switches.slice(index > 0 ? index - 1 : 0, end);
    const all = emptyTotals();
    const primary = emptyTotals();
    addSwitches(all, day * DAY_MS, dayEnd, slice, { primary: false, shown: everyone });
    addSwitches(primary, day * DAY_MS, dayEnd, slice, { primary: true, shown: everyone });
    const alterIds = new Set([...all.tallies.keys(), ...primary.tallies.keys()]);
    for (const alterId of alterIds) {
      const counted = all.tallies.get(alterId)?.switches ?? 0;
      const primaryCounted = primary.tallies.get(alterId)?.switches ?? 0;
      if (counted > 0 || primaryCounted > 0) entries.push({ day, alterId, entries: counted, primaryEntries: primaryCounted });
    }
    index = end;
  }
  return { times: [...times.values()], entries };
}

/** Periods shorter than this many whole (UTC) days are read from the switches alone (a day or two of them). */
export const MIN_SUMMARY_DAYS = 1;

/** The whole (UTC) days of [from, to) the summary serves, or undefined when there are too few. */
export function summaryDaysOf(from: number, to: number): { firstDay: number; endDay: number } | undefined {
  const firstDay = Math.ceil(from / DAY_MS);
  const endDay = Math.floor(to / DAY_MS);
  return endDay - firstDay < MIN_SUMMARY_DAYS ? undefined : { firstDay, endDay };
}

/** A span of time [lo, hi). */
export interface TimeRange {
  lo: number;
  hi: number;
}

/** One part of a period cut at boundaries, as frontStatsOf would read it alone. */
export interface StatsPartPlan {
  from: number;
  to: number;
  /** Its whole days, from the summary (as frontStatsOf reads them), if it has enough. */
  middle?: { firstDay: number; endDay: number };
  /** What comes from the switches: the partial days at either end, or the whole part. */
  edges: TimeRange[];
}

/**
 * How to read the statistics of [bounds[0], bounds[n]) cut at bounds[1..n-1], each part as a call
 * for it alone reads it: its whole days from the summary, its edges from the switches. All parts
 * at once, in one statement: the summary's runs of every part, merged where they touch (a year of
 * UTC days is one range of single days), and the switches' ranges likewise (a part's tail and the
 * next one's head are one range; a year of local days, which the summary cannot serve, is one).
 */
export function planStatsParts(bounds: readonly number[], useSummary: boolean): { parts: StatsPartPlan[]; runs: DaySpanRange[]; switchRanges: TimeRange[] } {
  const parts: StatsPartPlan[] = [];
  const runs: DaySpanRange[] = [];
  for (let index = 0; index + 1 < bounds.length; index += 1) {
    const from = bounds[index] as number;
    const to = bounds[index + 1] as number;
    const middle = useSummary ? summaryDaysOf(from, to) : undefined;
    if (!middle) {
      parts.push({ from, to, edges: [{ lo: from, hi: to }] });
      continue;
    }
    const edges = [
      { lo: from, hi: middle.firstDay * DAY_MS },
      { lo: middle.endDay * DAY_MS, hi: to },
    ].filter((edge) => edge.hi > edge.lo);
    parts.push({ from, to, middle, edges });
    runs.push(...frontDaySpans(middle.firstDay, middle.endDay));
  }
  // Runs of one size that touch become one range (parts never overlap, so neither do their runs).
  runs.sort((a, b) => a.span - b.span || a.from - b.from);
  const mergedRuns: DaySpanRange[] = [];
  for (const run of runs) {
    const last = mergedRuns.at(-1);
    if (last && last.span === run.span && last.to === run.from) last.to = run.to;
    else mergedRuns.push({ ...run });
  }
  const switchRanges: TimeRange[] = [];
  for (const edge of parts.flatMap((part) => part.edges)) {
    const last = switchRanges.at(-1);
    if (last && last.hi === edge.lo) last.hi = edge.hi;
    else switchRanges.push({ ...edge });
  }
  return { parts, runs: mergedRuns, switchRanges };
}

/** What planStatsParts's statement reads, for sumStatsParts. */
export interface StatsPartsRead {
  /** The system's first switch. */
  firstAt: number | undefined;
  /** The system's newest switch (the summary holds none of its time). */
  newest: StatsSwitch | undefined;
  /** The summary rows of the runs, each with the day it starts. */
  times: ReadonlyArray<{ day: number; alterList: string; ms: number; last: number }>;
  entries: ReadonlyArray<{ day: number; alterId: number; entries: number; primaryEntries: number }>;
  /**
   * Ordered by time then id, without repeats: every switch within the switch ranges, and for each
   * range the one in effect at its start.
   */
  switches: ReadonlyArray<StatsSwitch>;
}

/** The first index of `switches` (ordered by time) at or after `at`. */
function firstAtOrAfter(switches: ReadonlyArray<StatsSwitch>, at: number): number {
  let low = 0;
  let high = switches.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((switches[mid] as StatsSwitch).at < at) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Each part's totals (planStatsParts's parts, in order) from what was read: the summary's rows
 * of its whole days, the newest switch's open time within them, and its edges' switches, exactly
 * as frontStatsOf adds up a period alone.
 */
export function sumStatsParts(parts: readonly StatsPartPlan[], read: StatsPartsRead, filter: StatsFilter): StatsTotals[] {
  const totals = parts.map(() => emptyTotals());
  // The part whose whole days hold a run starting at `day` (runs never straddle parts).
  const withDays = parts.flatMap((part, index) => (part.middle ? [{ ...part.middle, index }] : []));
  const partOfDay = (day: number): number => {
    let low = 0;
    let high = withDays.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const candidate = withDays[mid] as { firstDay: number; endDay: number; index: number };
      if (day < candidate.firstDay) high = mid - 1;
      else if (day >= candidate.endDay) low = mid + 1;
      else return candidate.index;
    }
    throw new Error(`a summary row of day ${day} belongs to no part`);
  };
  // A year of days repeats the same lists of alters thousands of times: each is parsed once.
  const lists = new Map<string, number[]>();
  const idsOf = (list: string): number[] => {
    let ids = lists.get(list);
    if (!ids) lists.set(list, (ids = alterIdsOfList(list)));
    return ids;
  };
  for (const row of read.times) addFrontTime(totals[partOfDay(row.day)] as StatsTotals, idsOf(row.alterList), row.ms, row.last, filter);
  for (const row of read.entries) addEntries(totals[partOfDay(row.day)] as StatsTotals, row.alterId, filter.primary ? row.primaryEntries : row.entries, filter);
  const { newest, switches } = read;
  for (const [index, part] of parts.entries()) {
    const sums = totals[index] as StatsTotals;
    if (part.middle && newest) {
      const middleStart = part.middle.firstDay * DAY_MS;
      const middleEnd = part.middle.endDay * DAY_MS;
      if (newest.at < middleEnd) addFrontTime(sums, newest.alterIds, middleEnd - Math.max(newest.at, middleStart), middleEnd, filter);
    }
    for (const edge of part.edges) {
      const start = firstAtOrAfter(switches, edge.lo);
      const end = firstAtOrAfter(switches, edge.hi);
      addSwitches(sums, edge.lo, edge.hi, switches.slice(start > 0 ? start - 1 : 0, end), filter);
    }
  }
  return totals;
}
