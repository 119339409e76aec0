// The periods the statistics screen reads: the presets (the last 7 days, 30 days, a year) or the
// member's own dates, and the parts its per-day view splits a period into (sent as the statistics
// request's `boundaries`, so the API counts each part). The parts are days in the browser's time
// zone for a month or less; longer periods would be hundreds of bars, so they go by week up to
// half a year and by calendar month beyond.
import { addDays, startOfDay } from './local-time';

export type Preset = '7d' | '30d' | '1y' | 'custom';

export const PRESETS: ReadonlyArray<{ value: Preset; label: string }> = [
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: '1y', label: 'Last year' },
  { value: 'custom', label: 'Dates of my choosing' },
];

export interface Period {
  from: Date;
  to: Date;
}

/**
 * A preset's period ending now: the last 7 days are today and the six days before it (from
 * local midnight), so each day of the per-day view is a whole day.
 */
export function presetPeriod(preset: Exclude<Preset, 'custom'>, now: Date): Period {
  const today = startOfDay(now);
  if (preset === '7d') return { from: addDays(today, -6), to: now };
  if (preset === '30d') return { from: addDays(today, -29), to: now };
  return { from: new Date(today.getFullYear() - 1, today.getMonth(), today.getDate() + 1), to: now };
}

/** Chosen dates, both days included: from the first's midnight to the end of the last (or now, if sooner). */
export function customPeriod(fromDay: Date, toDay: Date, now: Date): Period {
  const end = addDays(startOfDay(toDay), 1);
  return { from: startOfDay(fromDay), to: end > now ? now : end };
}

export type Unit = 'day' | 'week' | 'month';

export interface Part extends Period {
  /** The part as a row's heading: "Fri 27 Nov", "23 Nov – 29 Nov", "November 2026". */
  label: string;
}

const DAY_MS = 86_400_000;

/** The unit a period's per-part view uses (see the file's comment). */
export function unitFor(period: Period): Unit {
  const days = (period.to.getTime() - period.from.getTime()) / DAY_MS;
  if (days <= 31.5) return 'day';
  if (days <= 190) return 'week';
  return 'month';
}

/** The period cut into consecutive parts of `unit` (the last one ends at the period's end). */
export function partsOf(period: Period, unit: Unit): Part[] {
  const parts: Part[] = [];
  let start = period.from;
  while (start < period.to) {
    const next = unit === 'day' ? addDays(startOfDay(start), 1) : unit === 'week' ? addDays(startOfDay(start), 7) : new Date(start.getFullYear(), start.getMonth() + 1, 1);
    const end = next < period.to ? next : period.to;
    parts.push({ from: start, to: end, label: labelOf(start, end, unit) });
    start = end;
  }
  return parts;
}

function labelOf(from: Date, to: Date, unit: Unit): string {
  if (unit === 'day') return from.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  const wholeMonth = from.getDate() === 1 && to.getTime() === new Date(from.getFullYear(), from.getMonth() + 1, 1).getTime();
  if (unit === 'month' && wholeMonth) return from.toLocaleDateString(undefined, { month: 'long', year: 'numeric' });
  const last = new Date(to.getTime() - 1);
  const short = { day: 'numeric', month: 'short' } as const;
  return `${from.toLocaleDateString(undefined, short)} – ${last.toLocaleDateString(undefined, short)}`;
}
