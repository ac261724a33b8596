// Where tables without a position start when the configuration names a point (`startAt`): a version,
// read as CHANGETABLE(CHANGES …, version) reads it (the changes committed after it), or a time, moved
// to the version committed last before it (sys.dm_tran_commit_table). Change Tracking keeps no
// history: each key changed since the point is applied with its row as it is now. A point a table can
// no longer give (below its CHANGE_TRACKING_MIN_VALID_VERSION) is refused with the earliest it can.
import sql from 'mssql';
import { CT_VERSION, type ChangeTrackingConfiguration } from '../../../shared/agents/changeTracking';
import { tableKey, type TableRef } from '../source';
import { perSlice, qualified } from '../drivers/mssql/names';
import { isStartTime, localTimeOf, StartUnavailable, startAtWithoutCopy } from '../startPoint';
import type { RunQuery } from './structure';
import { COMMIT_TIME_PERMISSIONS, COMMIT_TIMES_GRANT, readsCommitTimesLive } from './commitTimeCheck';

export const CLOCK = "the server's local time";

export type CtStartPoint =
  { kind: 'version'; version: bigint; said: string } | { kind: 'time'; text: string; said: string };

/** A point as startAt, stopAt and a rewind take one: a version, or a time read for its calendar and words. */
export function parseCtPoint(text: string, field: 'startAt' | 'stopAt' | 'to'): CtStartPoint {
  if (CT_VERSION.test(text))
    return { kind: 'version', version: BigInt(text), said: `change-tracking version ${text}` };
  if (!isStartTime(text))
    throw new StartUnavailable(`${field} "${text}" is neither a change-tracking version nor a time.`);
  // Moved onto the server's clock when it is placed.
  return { kind: 'time', text, said: localTimeOf(text, 0, CLOCK, field).said };
}

/** The configuration's point, checked at Start: a copy reads the table as it is now, so none with it. */
export function ctStartPointOf(configuration: ChangeTrackingConfiguration): CtStartPoint | undefined {
  const startAt = startAtWithoutCopy(configuration, 'of Change Tracking');
  return startAt === undefined ? undefined : parseCtPoint(startAt, 'startAt');
}

/** A JavaScript Date whose UTC fields are `local`'s, to the millisecond (what mssql sends as written). */
export function asWritten(local: string): Date {
  return new Date(`${local.slice(0, 23).replace(' ', 'T')}Z`);
}

/**
 * The server clock's offset from UTC in minutes, once the login reads commit times live: without VIEW
 * SERVER STATE the view shows commits only up to the last CHECKPOINT, so a point placed by a time
 * would be a guess, and it is refused. `said` names the setting and its value.
 */
export async function commitClock(run: RunQuery, said: string): Promise<number> {
  const [perms] = await run<{ state: number | null; perf: number | null; l: Date; u: Date }>(
    `SELECT ${COMMIT_TIME_PERMISSIONS}, SYSDATETIME() AS l, SYSUTCDATETIME() AS u`,
  );
  if (!readsCommitTimesLive(perms))
    throw new StartUnavailable(
      `${said} is found through sys.dm_tran_commit_table, which this login reads only up to the last ` +
        'CHECKPOINT (it holds neither VIEW SERVER STATE nor VIEW SERVER PERFORMANCE STATE): the point would be a ' +
        `guess, so it is refused. ${COMMIT_TIMES_GRANT} Or give a change-tracking version.`,
    );
  return perms ? Math.round((perms.l.getTime() - perms.u.getTime()) / 60_000) : 0;
}

/** The version a time starts after: the last transaction committed before it. */
async function versionAt(run: RunQuery, text: string, said: string): Promise<bigint> {
  const offsetMinutes = await commitClock(run, `startAt ${said}`);
  const { local } = localTimeOf(text, offsetMinutes, CLOCK);
  const [row] = await run<{ before: string | number | null; first: string | number | null }>(
    'SELECT (SELECT MAX(commit_ts) FROM sys.dm_tran_commit_table WHERE commit_time < @t) AS before, ' +
      '(SELECT MIN(commit_ts) FROM sys.dm_tran_commit_table) AS first',
    // Cut to the millisecond, down: a commit in the cut-off part is read again, never skipped.
    (r) => r.input('t', sql.DateTime2(3), asWritten(local)),
  );
  if (row?.before !== null && row?.before !== undefined) return BigInt(row.before);
  // No commit kept before the time: all since it are kept only if none was ever cleaned up (the first
  // transaction Change Tracking numbers is version 1).
  const first = row?.first === null || row?.first === undefined ? null : BigInt(row.first);
  if (first === null) return currentIfKept(run, local, said);
  if (first <= 1n) return 0n;
  const [kept] = await run<{ at: Date | null }>(
    'SELECT commit_time AS at FROM sys.dm_tran_commit_table WHERE commit_ts = @f',
    (r) => r.input('f', sql.BigInt, first.toString()),
  );
  const at = kept?.at ? ` (${kept.at.toISOString().slice(0, 23).replace('T', ' ')}, ${CLOCK})` : '';
  throw new StartUnavailable(
    `sys.dm_tran_commit_table keeps commits from version ${first}${at} on; the ones before were removed ` +
      `by Change Tracking's cleanup, so changes at ${said} cannot be read.`,
  );
}

const UNIT_MS: Record<string, number> = { MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };

/**
 * No commit kept at all: every one was older than the retention and cleaned up. A time inside the
 * retention saw nothing commit since, so the current version; one before it may have missed some.
 */
async function currentIfKept(run: RunQuery, local: string, said: string): Promise<bigint> {
  const [row] = await run<{ v: string | number | null; p: number | null; u: string | null; now: Date }>(
    'SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v, d.retention_period AS p, d.retention_period_units_desc AS u, ' +
      'SYSDATETIME() AS now FROM sys.change_tracking_databases AS d WHERE d.database_id = DB_ID()',
  );
  const current = row?.v === null || row?.v === undefined ? 0n : BigInt(row.v);
  if (current === 0n || !row) return current;
  const kept =
    row.now.getTime() - Number(row.p) * (UNIT_MS[String(row.u).toUpperCase()] ?? UNIT_MS.DAYS ?? 0);
  if (asWritten(local).getTime() >= kept) return current;
  throw new StartUnavailable(
    `sys.dm_tran_commit_table keeps no commit (all were older than the retention of ${row.p} ${String(row.u).toLowerCase()} ` +
      `and cleaned up), so changes at ${said} cannot be read; the earliest time to start from is ` +
      `${new Date(kept).toISOString().slice(0, 19).replace('T', ' ')} (${CLOCK}).`,
  );
}

async function currentVersion(run: RunQuery): Promise<bigint> {
  const [db] = await run<{ v: string | number | null }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v');
  if (db?.v === null || db?.v === undefined)
    throw new Error('Change Tracking is off for the database: there is no version to start from.');
  return BigInt(db.v);
}

/**
 * `version` for every table, by table key, once each can give its changes from there (its minimum
 * valid version is not above it): one statement per 250 tables. `said` names a configured point.
 */
async function fromVersion(
  run: RunQuery,
  tables: readonly TableRef[],
  version: bigint,
  said?: string,
): Promise<Map<string, string>> {
  const minimums = await perSlice(tables, async (slice) => {
    const [row] = await run<Record<string, string | number | null>>(
      `SELECT ${slice.map((_, i) => `CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(@t${i})) AS m${i}`).join(', ')}`,
      (r) => slice.forEach((t, i) => r.input(`t${i}`, qualified(t))),
    );
    return slice.map((_, i) => {
      const m = row?.[`m${i}`];
      return m === null || m === undefined ? null : BigInt(m);
    });
  });
  const off = tables.filter((_, i) => minimums[i] === null || minimums[i] === undefined);
  if (off.length > 0)
    throw new Error(
      `Change Tracking is off for ${off.map(tableKey).join(', ')}, or the login lacks VIEW CHANGE TRACKING on it.`,
    );
  const late = tables.flatMap((t, i) => {
    const min = minimums[i] ?? 0n;
    return min > version ? [{ table: tableKey(t), min }] : [];
  });
  if (said !== undefined && late.length > 0) {
    const earliest = late.reduce((a, b) => (b.min > a ? b.min : a), 0n);
    const named = late
      .slice(0, 5)
      .map((l) => `${l.table} (${l.min})`)
      .join(', ');
    throw new StartUnavailable(
      `${said} (version ${version}) is older than what Change Tracking still holds for ` +
        `${late.length === 1 ? '' : `${late.length} tables: `}${named}${late.length > 5 ? ', …' : ''} ` +
        '(the minimum valid version: tracking began later, or cleanup removed older changes); the earliest ' +
        `version every table can start from is ${earliest}.`,
    );
  }
  return new Map(tables.map((t) => [tableKey(t), String(version)]));
}

/** Where tables without a copy and without a point start: the current version. */
export async function currentVersions(
  run: RunQuery,
  tables: readonly TableRef[],
): Promise<Map<string, string>> {
  return fromVersion(run, tables, await currentVersion(run));
}

/** Where tables without a copy start at the configuration's point; refused as StartUnavailable. */
export async function startVersions(
  run: RunQuery,
  tables: readonly TableRef[],
  point: CtStartPoint,
): Promise<Map<string, string>> {
  const version = point.kind === 'version' ? point.version : await versionAt(run, point.text, point.said);
  const current = await currentVersion(run);
  if (version > current)
    throw new StartUnavailable(
      `${point.said} is ahead of the database, which is at change-tracking version ${current}.`,
    );
  return fromVersion(run, tables, version, point.said);
}

export { StartUnavailable };
