// How far a change-tracking reader is behind: the changes still to read per table (bounded
// statements, a slice of tables each) and the versions between its oldest checkpoint and the current
// one, with a warning before retention cleanup removes changes it still needs.
import sql from 'mssql';
import { tableKey, type Checkpoint, type SourceBacklog, type TableRef } from '../source';
import { perSlice, qualified } from '../drivers/mssql/names';
import type { Query } from './checkpoints';

export async function readBacklog(
  pool: sql.ConnectionPool,
  query: Query,
  tables: readonly TableRef[],
  checkpoint: Checkpoint,
  retentionWarningPercent: number,
): Promise<SourceBacklog> {
  const known = tables.filter((t) => checkpoint[tableKey(t)] !== undefined);
  const head = await query<{ v: string | null }>(
    pool.request(),
    'SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v',
  );
  const current = head.recordset[0]?.v ?? null;
  // Bounded statements: a slice of tables each (names.ts), however many entities.
  const pairs = await perSlice(known, async (slice) => {
    const request = pool.request();
    const counts = slice.map((t, i) => {
      request.input(`c${i}`, sql.BigInt, checkpoint[tableKey(t)]);
      return `SELECT ${i} AS i, COUNT(*) AS n FROM CHANGETABLE(CHANGES ${qualified(t)}, @c${i}) AS ct`;
    });
    const { recordset } = await query<{ i: number; n: number }>(request, counts.join(' UNION ALL '));
    return recordset.map((r): [string, number] => [tableKey(slice[Number(r.i)] as TableRef), Number(r.n)]);
  });
  const counted = new Map(pairs);
  const perTable = tables.map((t) => ({
    table: tableKey(t),
    rowsToRead: counted.get(tableKey(t)) ?? null,
  }));
  const versions = known.map((t) => BigInt(checkpoint[tableKey(t)] ?? '0'));
  const oldest = versions.length ? versions.reduce((a, b) => (a < b ? a : b)) : null;
  const behind = known.filter((t) => oldest !== null && BigInt(checkpoint[tableKey(t)] ?? '0') === oldest);
  return {
    rowsToRead: perTable.every((p) => p.rowsToRead !== null)
      ? perTable.reduce((s, p) => s + (p.rowsToRead ?? 0), 0)
      : null,
    versionsBehind: current !== null && oldest !== null ? Number(BigInt(current) - oldest) : null,
    perTable,
    warnings:
      oldest !== null && oldest !== BigInt(current ?? '0')
        ? await retentionWarnings(pool, query, oldest, behind, retentionWarningPercent)
        : [],
  };
}

/**
 * Warnings before loss: the oldest position still needed, when less than retentionWarningPercent of
 * Change Tracking's retention is left before auto cleanup removes its changes. None when cleanup is
 * off or the commit time cannot be read (VIEW SERVER STATE).
 */
async function retentionWarnings(
  pool: sql.ConnectionPool,
  query: Query,
  oldest: bigint,
  tables: readonly TableRef[],
  retentionWarningPercent: number,
): Promise<string[]> {
  const { recordset: db } = await query<{ p: number; u: string; a: boolean | number }>(
    pool.request(),
    'SELECT retention_period AS p, retention_period_units_desc AS u, is_auto_cleanup_on AS a FROM sys.change_tracking_databases WHERE database_id = DB_ID()',
  );
  const retention = db[0];
  if (!retention || !retention.a) return [];
  let committed: { t: Date | null; now: Date } | undefined;
  try {
    const request = pool.request();
    request.input('v', sql.BigInt, oldest.toString());
    const { recordset } = await query<{ t: Date | null; now: Date }>(
      request,
      'SELECT (SELECT commit_time FROM sys.dm_tran_commit_table WHERE commit_ts = @v) AS t, SYSDATETIME() AS now',
    );
    committed = recordset[0];
  } catch {
    return [];
  }
  if (!committed?.t) return [];
  const unit =
    { MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 }[String(retention.u).toUpperCase()] ?? 86_400_000;
  const periodMs = Number(retention.p) * unit;
  const leftMs = periodMs - (committed.now.getTime() - committed.t.getTime());
  const share = retentionWarningPercent / 100;
  if (leftMs > periodMs * share) return [];
  const names = tables.map(tableKey);
  const which =
    names.length === 1
      ? names[0]
      : `${names.length} tables (${names.slice(0, 3).join(', ')}${names.length > 3 ? '…' : ''})`;
  const hours = Math.max(0, leftMs / 3_600_000);
  return [
    `${which} still ${names.length === 1 ? 'needs' : 'need'} changes from version ${oldest}, which Change Tracking's auto cleanup ` +
      `removes in about ${hours < 1 ? `${Math.round(hours * 60)} min` : `${hours.toFixed(1)} h`} (retention ${retention.p} ${String(retention.u).toLowerCase()}): ` +
      'the tables are then copied again. Let the pipeline catch up, or raise the retention: ' +
      'ALTER DATABASE CURRENT SET CHANGE_TRACKING (CHANGE_RETENTION = <more> DAYS).',
  ];
}
