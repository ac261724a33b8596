// What every source's `startAt` shares: a refusal the runner never retries, and a time read as the
// source's own clock shows it (a time without a zone) or as an instant moved onto that clock.
import { START_AT_TIME } from '../../shared/agents/common';

/** A start the source cannot give: the reason names the earliest point it holds. Never retried. */
export class StartUnavailable extends Error {}

export interface LocalTime {
  /** "YYYY-MM-DD HH:MM:SS.ffffff" on the source's clock. */
  local: string;
  /** The time as the DBA gave it, for messages. */
  said: string;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * `text` (START_AT_TIME) on a clock `utcOffsetMinutes` east of UTC: without a zone it is that clock's
 * own time; with Z or an offset, the same instant there. `clock` names it in messages.
 */
export function localTimeOf(
  text: string,
  utcOffsetMinutes: number,
  clock: string,
  field = 'startAt',
): LocalTime {
  const m = START_AT_TIME.exec(text);
  if (!m) throw new StartUnavailable(`${field} "${text}" is no time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm].`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  const fraction = (m[7] ?? '').padEnd(6, '0');
  const zone = m[8];
  const asUtc = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second);
  const check = new Date(asUtc);
  if (check.getUTCMonth() !== (month ?? 1) - 1 || check.getUTCDate() !== day || (hour ?? 0) > 23)
    throw new StartUnavailable(`${field} "${text}" is no date and time of the calendar.`);
  const zoneMinutes =
    zone === undefined || zone === 'Z'
      ? 0
      : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(
    zone === undefined ? asUtc : asUtc - zoneMinutes * 60_000 + utcOffsetMinutes * 60_000,
  );
  return {
    local:
      `${local.getUTCFullYear()}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ` +
      `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}.${fraction}`,
    said: `${text}${zone === undefined ? ` (${clock})` : ''}`,
  };
}

/** Whether `startAt` names a time rather than the source's own kind of position. */
export const isStartTime = (text: string): boolean => START_AT_TIME.test(text);

/**
 * A rewind goes back: tables already before the point (their current position earlier) would skip
 * the changes between, so the rewind is refused naming them.
 */
export function refuseForward(behind: readonly { table: string; at: string }[], said: string): void {
  if (behind.length === 0) return;
  const named = behind
    .slice(0, 5)
    .map((b) => `${b.table} (at ${b.at})`)
    .join(', ');
  throw new StartUnavailable(
    `${said} is after where ${behind.length === 1 ? 'a table stands' : `${behind.length} tables stand`}: ${named}${behind.length > 5 ? ', …' : ''}. ` +
      'A rewind goes back only: moving forward would skip the changes between.',
  );
}

/**
 * `startAt` as a configuration holds it, once it may apply: a copy reads the table as it is now, so
 * a point goes with snapshot mode "never" only. Undefined when none is set. `of` names the source.
 */
export function startAtWithoutCopy(
  configuration: { startAt?: string | undefined; snapshotMode: string },
  of: string,
): string | undefined {
  const { startAt, snapshotMode } = configuration;
  if (startAt === undefined) return undefined;
  if (snapshotMode !== 'never')
    throw new StartUnavailable(
      `startAt = "${startAt}" starts tables at a point ${of}, without a copy: it needs snapshotMode = "never" (it is "${snapshotMode}").`,
    );
  return startAt;
}
