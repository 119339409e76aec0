// The times people type into the bot (`/front set when:`, a switch's edit, `/front stats` periods):
// `15m ago`, `2 hours ago`, `yesterday 21:00`, `21:00`, `2026-11-27 18:30`, an ISO time, a Discord
// timestamp `<t:1700000000:R>`, `now`. Wall-clock forms are read in the owner's time zone (an IANA
// name; an unknown one counts as UTC); forms with their own offset or absolute ones ignore it.
// Pure: the clock and the zone are arguments.

export type ParsedTime = { at: number } | { error: string };

const UNIT_MS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const HINT = 'Write a time like `15m ago`, `yesterday 21:00`, `21:00`, `2026-11-27 18:30`, an ISO time or a Discord timestamp (`<t:1700000000:R>`).';

/** Whether the zone is one this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at an instant, in ms (east positive). */
export function zoneOffset(at: number, zone: string): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour) % 24, Number(parts.minute), Number(parts.second));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The instant a wall-clock time in the zone names (where a DST change makes it ambiguous, the earlier reading). */
export function fromWallClock(wall: { year: number; month: number; day: number; hour: number; minute: number; second?: number }, zone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  const first = asUtc - zoneOffset(asUtc, zone);
  const second = asUtc - zoneOffset(first, zone);
  return Math.min(first, second);
}

/** The wall-clock date of an instant in the zone. */
export function wallDate(at: number, zone: string): { year: number; month: number; day: number } {
  const local = new Date(at + zoneOffset(at, zone));
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

function validClock(hour: number, minute: number): boolean {
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59;
}

/**
 * Reads a past (or present) time. `now` and `zone` come from the caller: the owner's
 * `systemTimezone`, or UTC.
 */
export function parseWhen(input: string, options: { now: number; zone: string }): ParsedTime {
  const { now } = options;
  const zone = isTimeZone(options.zone) ? options.zone : 'UTC';
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '') return { error: `No time given. ${HINT}` };
  const past = (at: number): ParsedTime => (Number.isNaN(at) ? { error: `I could not read “${input.trim()}” as a time. ${HINT}` } : at > now + 1000 ? { error: `That time is in the future: a switch can only be recorded for the past. ${HINT}` } : { at });

  if (text === 'now') return { at: now };

  const discord = /^<t:(-?\d{1,13})(?::[tTdDfFR])?>$/.exec(input.trim());
  if (discord) return past(Number(discord[1]) * 1000);

  // "15m ago", "1h 30m ago", "2 hours ago", "an hour ago"
  const relative = /^((?:(?:\d+(?:\.\d+)?|an?) ?[a-z]+ ?)+) ago$/.exec(text);
  if (relative) {
    let total = 0;
    for (const [, amount, unit] of (relative[1] as string).matchAll(/(\d+(?:\.\d+)?|an?) ?([a-z]+)/g)) {
      const ms = UNIT_MS[unit as string];
      if (ms === undefined) return { error: `I do not know the unit “${unit}”. ${HINT}` };
      total += (amount === 'a' || amount === 'an' ? 1 : Number(amount)) * ms;
    }
    return past(now - Math.round(total));
  }

  // "yesterday 21:00", "today 9:30", "21:00", "9:30 yesterday"
  const clock = /^(?:(today|yesterday) (?:at )?)?(\d{1,2})(?::(\d{2}))? ?(am|pm)?(?: (today|yesterday))?$/.exec(text);
  if (clock && (clock[3] !== undefined || clock[4] !== undefined)) {
    const day = clock[1] ?? clock[5];
    let hour = Number(clock[2]);
    const minute = Number(clock[3] ?? 0);
    if (clock[4]) {
      if (hour < 1 || hour > 12) return { error: `“${input.trim()}” is not a time of day. ${HINT}` };
      hour = (hour % 12) + (clock[4] === 'pm' ? 12 : 0);
    }
    if (!validClock(hour, minute)) return { error: `“${input.trim()}” is not a time of day. ${HINT}` };
    const today = wallDate(now, zone);
    const onDay = (offsetDays: number) => {
      const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offsetDays));
      return fromWallClock({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour, minute }, zone);
    };
    if (day === 'yesterday') return past(onDay(-1));
    if (day === 'today') return past(onDay(0));
    // A bare time of day: its latest occurrence, today or else yesterday.
    const todayAt = onDay(0);
    return { at: todayAt <= now ? todayAt : onDay(-1) };
  }

  // "2026-11-27", "2026-11-27 18:30", "2026-11-27T18:30:15" in the zone; with Z or an offset: as given.
  const date = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(z|[+-]\d{2}:?\d{2})?$/.exec(text);
  if (date) {
    const [, year, month, day, hour = '0', minute = '0', second = '0', offset] = date;
    if (offset !== undefined) return past(Date.parse(input.trim().toUpperCase().replace(' ', 'T')));
    const wall = { year: Number(year), month: Number(month), day: Number(day), hour: Number(hour), minute: Number(minute), second: Number(second) };
    const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day));
    if (check.getUTCMonth() !== wall.month - 1 || check.getUTCDate() !== wall.day || !validClock(wall.hour, wall.minute) || wall.second > 59) {
      return { error: `“${input.trim()}” is not a date and time. ${HINT}` };
    }
    return past(fromWallClock(wall, zone));
  }

  return { error: `I could not read “${input.trim()}” as a time. ${HINT}` };
}

/** An instant as the owner reads it: `2026-11-27 18:30` in their zone. */
export function formatWallClock(at: number, zone: string): string {
  const safe = isTimeZone(zone) ? zone : 'UTC';
  const local = new Date(at + zoneOffset(at, safe));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
}

/**
 * The zone the owner's times mean: their system's `systemTimezone` (an IANA name) when the service
 * answers one, else UTC. Read by name, so it works whether or not this build's System has the field.
 */
export function zoneOf(system: object): string {
  if ('systemTimezone' in system && typeof system.systemTimezone === 'string' && isTimeZone(system.systemTimezone)) return system.systemTimezone;
  return 'UTC';
}
