// Times as the member reads and types them: in the browser's own time zone. The API speaks ISO
// instants (UTC); a datetime-local input holds a wall-clock time with no zone, which the browser
// reads as local time.

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/**
 * An instant as a datetime-local input's value in the browser's zone, to the second:
 * `2026-11-27T09:05:30`, and `2026-11-27T09:05` on the minute. That is HTML's normalized form,
 * the one the input gives back, so a value set and read again compares equal.
 */
export function toDateTimeLocal(instant: Date | string): string {
  const date = new Date(instant);
  const seconds = date.getSeconds() === 0 ? '' : `:${pad(date.getSeconds())}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}

/** A datetime-local (or date) input's value, read in the browser's zone, as an instant; undefined when it is not a time. */
export function fromDateTimeLocal(value: string): Date | undefined {
  // `new Date('2026-11-27')` alone would be UTC midnight; with a time it is local time.
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00` : value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A date input's value for a day in the browser's zone: `2026-11-27`. */
export function toDateInput(instant: Date): string {
  return toDateTimeLocal(instant).slice(0, 10);
}

/** Local midnight at the start of the day holding `instant`. */
export function startOfDay(instant: Date): Date {
  return new Date(instant.getFullYear(), instant.getMonth(), instant.getDate());
}

/** The same wall-clock time `days` calendar days later (a local day may be 23 or 25 hours long). */
export function addDays(instant: Date, days: number): Date {
  const moved = new Date(instant);
  moved.setDate(moved.getDate() + days);
  return moved;
}

/** The key of the local day holding an instant, for grouping: `2026-11-27`. */
export function dayKey(instant: Date | string): string {
  return toDateInput(new Date(instant));
}

/** A day as a heading: "Friday 27 November 2026" in the browser's language. */
export function dayHeading(instant: Date | string): string {
  return new Date(instant).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
}

/** A time of day: "09:05". */
export function timeOfDay(instant: Date | string): string {
  return new Date(instant).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** An instant with its date: "27 Nov 2026, 09:05". */
export function dateAndTime(instant: Date | string): string {
  return new Date(instant).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A length of time in words a glance reads: "45 s", "12 min", "3 h 05 min", "2 d 4 h". Seconds
 * show only under a minute, so a switch a moment ago is not "0 min".
 */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${pad(minutes % 60)} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
