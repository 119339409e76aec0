// The times people type for a switch, as a table: relative, a time of day (today or yesterday),
// dates in the owner's zone, absolute forms, Discord timestamps, and the refusals.
import { describe, expect, it } from 'vitest';
import { formatWallClock, parseWhen, zoneOf } from '../../src/bot/when.js';

// Friday 2026-11-27 18:40:00 UTC (19:40 in Berlin, 13:40 in New York).
const NOW = Date.UTC(2026, 10, 27, 18, 40);
const utc = (text: string) => Date.parse(text);

describe('parseWhen', () => {
  it.each<[string, string, string, number | RegExp]>([
    ['now', 'now', 'UTC', NOW],
    ['minutes ago', '15m ago', 'UTC', NOW - 15 * 60_000],
    ['spelled out, mixed units', '1 hour 30 minutes ago', 'UTC', NOW - 90 * 60_000],
    ['compact mixed units', '1h30m ago', 'Europe/Berlin', NOW - 90 * 60_000],
    ['an hour ago', 'an hour ago', 'UTC', NOW - 3_600_000],
    ['days ago', '2 days ago', 'UTC', NOW - 2 * 86_400_000],
    ['yesterday at a time, in UTC', 'yesterday 21:00', 'UTC', utc('2026-11-26T21:00:00Z')],
    ['yesterday at a time, in Berlin', 'yesterday 21:00', 'Europe/Berlin', utc('2026-11-26T20:00:00Z')],
    ['yesterday at a time, in New York', 'Yesterday at 9pm', 'America/New_York', utc('2026-11-27T02:00:00Z')],
    ['a bare time earlier today', '18:00', 'UTC', utc('2026-11-27T18:00:00Z')],
    ['a bare time later than now: yesterday', '21:00', 'UTC', utc('2026-11-26T21:00:00Z')],
    ['a bare time in the zone (already 19:40 in Berlin)', '19:30', 'Europe/Berlin', utc('2026-11-27T18:30:00Z')],
    ['today, still to come', 'today 23:00', 'UTC', /in the future/],
    ['a date and time in the zone', '2026-11-27 08:15', 'Asia/Tokyo', utc('2026-11-26T23:15:00Z')],
    ['a date alone: its midnight in the zone', '2026-07-01', 'Europe/Berlin', utc('2026-06-30T22:00:00Z')],
    ['ISO with Z ignores the zone', '2026-11-27T10:00:00Z', 'Asia/Tokyo', utc('2026-11-27T10:00:00Z')],
    ['ISO with an offset', '2026-11-27T10:00:00+05:30', 'UTC', utc('2026-11-27T04:30:00Z')],
    ['a Discord timestamp', '<t:1764000000:R>', 'Europe/Berlin', 1_764_000_000_000],
    ['a Discord timestamp without style', '<t:1764000000>', 'UTC', 1_764_000_000_000],
    ['an unknown zone counts as UTC', 'yesterday 21:00', 'Mars/Olympus', utc('2026-11-26T21:00:00Z')],
    ['the future', 'in 5 minutes', 'UTC', /could not read/],
    ['a future ISO time', '2027-01-01T00:00:00Z', 'UTC', /in the future/],
    ['a future Discord timestamp', '<t:1900000000:R>', 'UTC', /in the future/],
    ['an unknown unit', '3 fortnights ago', 'UTC', /unit “fortnights”/],
    ['no such hour', '25:00', 'UTC', /not a time of day/],
    ['no such date', '2026-02-30 10:00', 'UTC', /not a date/],
    ['words', 'last tuesday', 'UTC', /could not read/],
    ['nothing', '   ', 'UTC', /No time given/],
  ])('%s: %s (%s)', (_name, input, zone, expected) => {
    const result = parseWhen(input, { now: NOW, zone });
    if (expected instanceof RegExp) {
      expect(result).toEqual({ error: expect.stringMatching(expected) });
    } else {
      expect(result).toEqual({ at: expected });
    }
  });

  it('reads a wall-clock time across a DST change in the zone it was in then', () => {
    // Berlin was on summer time (UTC+2) on 2026-07-01 and on winter time (UTC+1) in November.
    expect(parseWhen('2026-07-01 12:00', { now: NOW, zone: 'Europe/Berlin' })).toEqual({ at: utc('2026-07-01T10:00:00Z') });
    expect(parseWhen('2026-11-01 12:00', { now: NOW, zone: 'Europe/Berlin' })).toEqual({ at: utc('2026-11-01T11:00:00Z') });
  });

  it('formats an instant back as the owner reads it', () => {
    expect(formatWallClock(utc('2026-11-26T20:00:00Z'), 'Europe/Berlin')).toBe('2026-11-26 21:00');
    expect(formatWallClock(utc('2026-11-26T20:00:00Z'), 'Nowhere/Else')).toBe('2026-11-26 20:00');
  });

  it.each<[string, object, string]>([
    ['the system’s zone', { systemTimezone: 'Europe/Berlin' }, 'Europe/Berlin'],
    ['unset', { systemTimezone: null }, 'UTC'],
    ['a service without the field', { systemName: 'x' }, 'UTC'],
    ['a zone this runtime does not know', { systemTimezone: 'Mars/Olympus' }, 'UTC'],
  ])('reads the owner’s zone: %s', (_name, system, zone) => {
    expect(zoneOf(system)).toBe(zone);
  });
});
