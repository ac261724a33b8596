// Figures as a person reads them at a glance.

/** "2 h 05 min", "4 min 10 s", "12 s": a time left. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600)
    return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}

/** "1,234,567": a count of rows. */
export const count = (n: number): string => n.toLocaleString('en');

/** "1 row", "12,000 rows": a count with its noun. */
export const plural = (amount: number, noun: string): string =>
  `${count(amount)} ${noun}${amount === 1 ? '' : 's'}`;

/**
 * The one date-time format of every screen: the reader's locale, 24-hour, with the time zone
 * ("Nov 27, 2026, 04:27:25 UTC"). `locale` and `timeZone` are for tests; the screens pass neither.
 */
export function dateTime(at: string | number | Date, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeStyle: 'long',
    hourCycle: 'h23',
    timeZone,
  }).format(new Date(at));
}

/** Hours and minutes, 24-hour, for a chart's time axis ("04:27"). */
export function hourMinute(at: string | number | Date, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  }).format(new Date(at));
}

/** The time of day in the same format, for lists and charts within a day ("04:27:25 UTC"). */
export function timeOfDay(at: string | number | Date, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'long', hourCycle: 'h23', timeZone }).format(
    new Date(at),
  );
}

/** Bytes in the unit a DBA reads at a glance: `512 B`, `12.5 MiB`, `1.2 GiB`. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A stream's figures in one line: its rate, the newest position it holds, and its size against its limit. */
export function streamText(s: {
  stream: string;
  eventsPerSecond: number;
  newestAcknowledged: string | null;
  messages: number;
  bytes: number;
  maxBytes: number | null;
}): string {
  const size =
    s.maxBytes === null
      ? `${bytes(s.bytes)} (no size limit)`
      : `${bytes(s.bytes)} of ${bytes(s.maxBytes)} (${Math.round((s.bytes / s.maxBytes) * 100)}%)`;
  const newest =
    s.newestAcknowledged === null ? 'nothing acknowledged yet' : `acknowledged to ${s.newestAcknowledged}`;
  return `${s.eventsPerSecond.toFixed(1)} events/s to ${s.stream}, ${newest}; it holds ${count(s.messages)} messages, ${size}`;
}

/** What takes settings stored while a pipeline was paused or stopped into effect. */
export const pendingAction = (state: string): string => (state === 'paused' ? 'Resume' : 'Start');

/** "840 ms", "1.2 s", "2 min 5 s": a latency, exact enough to compare its parts. */
export function latency(seconds: number): string {
  if (seconds < 1) return `${Math.round(Math.max(0, seconds) * 1000)} ms`;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  return duration(seconds);
}
