// The dashboard's local times (dashboard/src/lib/local-time.ts): a datetime-local value in HTML's
// normalized form (seconds left out on the minute, as the input gives its value back), read back
// to the same instant, to the second.
import { describe, expect, it } from 'vitest';
import { fromDateTimeLocal, toDateInput, toDateTimeLocal } from '../../dashboard/src/lib/local-time.js';

describe('datetime-local values', () => {
  const local = (year: number, month: number, day: number, hours: number, minutes: number, seconds: number, ms = 0) =>
    new Date(year, month - 1, day, hours, minutes, seconds, ms);

  it.each([
    ['seconds', local(2026, 11, 27, 9, 5, 30), '2026-11-27T09:05:30'],
    ['on the minute: no seconds, as the input normalizes it', local(2026, 11, 26, 3, 48, 0), '2026-11-26T03:48'],
    ['milliseconds dropped', local(2026, 1, 2, 23, 59, 59, 999), '2026-01-02T23:59:59'],
    ['midnight', local(2026, 3, 1, 0, 0, 0), '2026-03-01T00:00'],
  ])('%s', (_name, instant, value) => {
    expect(toDateTimeLocal(instant)).toBe(value);
    expect(toDateTimeLocal(instant.toISOString())).toBe(value);
    expect(fromDateTimeLocal(value)?.getTime()).toBe(Math.floor(instant.getTime() / 1000) * 1000);
  });

  it('reads a date alone as local midnight, and refuses what is not a time', () => {
    expect(fromDateTimeLocal('2026-11-27')?.getTime()).toBe(local(2026, 11, 27, 0, 0, 0).getTime());
    expect(fromDateTimeLocal('yesterday')).toBeUndefined();
    expect(toDateInput(local(2026, 11, 27, 23, 0, 0))).toBe('2026-11-27');
  });
});
