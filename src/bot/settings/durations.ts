// Durations as people type and read them in the bot: the latch timeout (`6h`, `90m`, `1h 30m`,
// `never`), stored by the service in milliseconds.

const NEVER = /^(never|off|none|0)$/i;
/** Hours, then minutes, then seconds, each optional: `6h`, `1h 30m`, `90 minutes`, `1 hour, 5 min`. */
const PARTS = /^(?:(\d{1,5})\s*h(?:ours?)?)?[\s,]*(?:(\d{1,5})\s*m(?:in(?:ute)?s?)?)?[\s,]*(?:(\d{1,5})\s*s(?:ec(?:ond)?s?)?)?$/i;

/**
 * Milliseconds from `6h`, `45m`, `1h 30m`, `90 minutes` or `never` (0); undefined when the text is
 * none of these. Whole hours, minutes and seconds only: a latch is not timed more finely.
 */
export function parseDuration(typed: string): number | undefined {
  const text = typed.trim();
  if (NEVER.test(text)) return 0;
  const parts = PARTS.exec(text);
  if (!parts || text === '' || parts.slice(1).every((part) => part === undefined)) return undefined;
  const [hours, minutes, seconds] = parts.slice(1).map((part) => Number(part ?? 0)) as [number, number, number];
  return ((hours * 60 + minutes) * 60 + seconds) * 1000;
}

/** `6 hours`, `1 hour 30 minutes`, `45 seconds`; 0 is `never`. */
export function formatDuration(ms: number): string {
  if (ms <= 0) return 'never';
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, seconds] of [
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    const count = Math.floor(rest / seconds);
    rest -= count * seconds;
    if (count > 0) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  }
  return parts.join(' ');
}
