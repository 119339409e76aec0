// Front statistics as a table: the period's rules (defaults, now, five years, reversed), and what
// frontStats adds up from switches (co-fronting, primary, tag members, hidden alters, entries,
// last fronted, the first switch bounding the period).
import { describe, expect, it } from 'vitest';
import { frontStats, statsPeriod, type StatsInput, type StatsSwitch } from '../../src/domain/front-stats.js';
import { Problem } from '../../src/domain/problems.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const at = (hours: number) => T0 + hours * H;
const iso = (hours: number) => new Date(at(hours)).toISOString();
const sw = (hours: number, ...alterIds: number[]): StatsSwitch => ({ at: at(hours), alterIds });
const everyone = () => true;

type Row = [alterId: number | null, hours: number, switches: number | null, lastFrontedHours: number | null];

function stats(input: Partial<StatsInput> & { switches: StatsSwitch[] }, fromHours = 0, toHours = 10) {
  const result = frontStats({ from: at(fromHours), to: at(toHours), primary: false, shown: everyone, ...input });
  return {
    period: [result.from, result.to],
    rows: result.alters.map((row): Row => [
      row.alterId,
      row.seconds / 3600,
      row.switches,
      row.lastFronted === null ? null : (Date.parse(row.lastFronted) - T0) / H,
    ]),
    shares: result.alters.map((row) => row.share),
    nobody: result.nobody.seconds / 3600,
  };
}

describe('frontStats', () => {
  it.each<[string, Partial<StatsInput> & { switches: StatsSwitch[] }, Row[], number]>([
    ['nothing recorded: an empty period', { switches: [] }, [], 0],
    ['one alter all along', { switches: [sw(-5, 1)] }, [[1, 10, 0, 10]], 0],
    ['co-fronting counts for each co-fronter', { switches: [sw(0, 1, 2), sw(4, 2)] }, [[2, 10, 1, 10], [1, 4, 1, 4]], 0],
    ['primary=true: only the first alter of each switch', { switches: [sw(0, 1, 2), sw(4, 2, 1)], primary: true }, [[2, 6, 1, 10], [1, 4, 1, 4]], 0],
    ['a switch-out is nobody', { switches: [sw(0, 1), sw(3), sw(5, 1)] }, [[1, 8, 2, 10]], 2],
    ['an alter staying through a switch enters once', { switches: [sw(0, 1, 2), sw(2, 1, 3), sw(4, 1)] }, [[1, 10, 1, 10], [2, 2, 1, 2], [3, 2, 1, 4]], 0],
    ['the switch in effect at from counts time, not an entry', { switches: [sw(-3, 1), sw(6, 2)] }, [[1, 6, 0, 6], [2, 4, 1, 10]], 0],
    ['switches after to are ignored', { switches: [sw(2, 1), sw(12, 2)] }, [[1, 8, 1, 10]], 0],
    ['tag members only; nobody is none of them', { switches: [sw(0, 1, 2), sw(4, 3), sw(6, 2)], members: new Set([2]) }, [[2, 8, 2, 10]], 2],
    ['hidden alters merge into one row (the time any of them fronted)', { switches: [sw(0, 1, 8), sw(2, 8, 9), sw(4, 9), sw(6, 1)], shown: (id) => id < 5 }, [[1, 6, 2, 10], [null, 6, null, null]], 0],
    ['ties: by alter id, the hidden row last', { switches: [sw(0, 2), sw(5, 9)], shown: (id) => id !== 9 }, [[2, 5, 1, 5], [null, 5, null, null]], 0],
    ['primary with a tag: the primary must be a member', { switches: [sw(0, 1, 2), sw(5, 2, 1)], primary: true, members: new Set([2]) }, [[2, 5, 1, 10]], 5],
    ['two switches at one time: the first lasts nothing', { switches: [sw(1, 1), sw(1, 2)] }, [[2, 9, 1, 10]], 0],
  ])('%s', (_name, input, rows, nobody) => {
    const result = stats(input);
    expect(result.rows).toEqual(rows);
    expect(result.nobody).toBeCloseTo(nobody);
    for (const share of result.shares) expect(share).toBeGreaterThanOrEqual(0);
    for (const share of result.shares) expect(share).toBeLessThanOrEqual(1);
  });

  it('starts the period at the first switch, and its shares are of that period', () => {
    const result = stats({ switches: [sw(5, 1), sw(7)] });
    expect(result.period).toEqual([iso(5), iso(10)]);
    expect(result.rows).toEqual([[1, 2, 1, 7]]);
    expect(result.shares).toEqual([0.4]);
    expect(result.nobody).toBe(3);
  });

  it('has an empty period when the first switch comes after to', () => {
    const result = stats({ switches: [sw(12, 1)] });
    expect(result.period).toEqual([iso(10), iso(10)]);
    expect(result.rows).toEqual([]);
  });
});

describe('statsPeriod', () => {
  const now = Date.UTC(2026, 5, 15, 12);
  const DAY = 24 * H;
  it.each<[string, { from?: string; to?: string }, [number, number] | string]>([
    ['defaults: the last 30 days', {}, [now - 30 * DAY, now]],
    ['to only: the 30 days before it', { to: new Date(now - DAY).toISOString() }, [now - 31 * DAY, now - DAY]],
    ['from only: until now', { from: new Date(now - 2 * DAY).toISOString() }, [now - 2 * DAY, now]],
    ['a to later than now counts as now', { from: new Date(now - DAY).toISOString(), to: new Date(now + 5 * DAY).toISOString() }, [now - DAY, now]],
    ['exactly five years', { from: '2021-06-15T12:00:00Z', to: '2026-06-15T12:00:00Z' }, [Date.UTC(2021, 5, 15, 12), now]],
    ['longer than five years', { from: '2021-06-15T11:59:59Z', to: '2026-06-15T12:00:00Z' }, 'at most 5 years'],
    ['reversed', { from: '2026-06-10T00:00:00Z', to: '2026-06-01T00:00:00Z' }, 'from: must be before to'],
    ['from in the future, to omitted', { from: new Date(now + DAY).toISOString() }, 'from: must be before to'],
    ['both in the future: to counts as now', { from: new Date(now + DAY).toISOString(), to: new Date(now + 2 * DAY).toISOString() }, 'a to later than now counts as now'],
  ])('%s', (_name, query, expected) => {
    if (typeof expected === 'string') {
      expect(() => statsPeriod(query, now)).toThrow(Problem);
      expect(() => statsPeriod(query, now)).toThrow(expected);
    } else {
      expect(statsPeriod(query, now)).toEqual({ from: expected[0], to: expected[1] });
    }
  });
});
