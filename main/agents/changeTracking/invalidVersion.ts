// Why a change-tracking table's checkpoint fell below its minimum valid version, in words: asked of
// the catalogue inside the batch's snapshot, so the table is copied again with the right reason.
import type sql from 'mssql';
import type { TableRef } from '../source';
import { qualified } from '../drivers/mssql/names';
import type { Query } from './checkpoints';

/**
 * Why a table's minimum valid version passed the checkpoint: CHANGE_TRACKING_MIN_VALID_VERSION moves
 * when tracking is enabled, when retention cleanup runs, and when the table is truncated (Microsoft's
 * list). A table whose own cleanup version is past every retention cleanup of the database
 * (sys.change_tracking_databases.max_cleanup_version) was truncated.
 */
export async function whyInvalid(
  request: sql.Request,
  query: Query,
  table: TableRef,
  v: { key: string; from: string; min: string },
): Promise<string> {
  const after = `after version ${v.from} (its minimum valid version is now ${v.min})`;
  try {
    request.input('t', qualified(table));
    const { recordset } = await query<{ b: string; c: string; m: string | null }>(
      request,
      'SELECT ctt.begin_version AS b, ctt.cleanup_version AS c, ctd.max_cleanup_version AS m ' +
        'FROM sys.change_tracking_tables ctt CROSS JOIN sys.change_tracking_databases ctd ' +
        'WHERE ctt.object_id = OBJECT_ID(@t) AND ctd.database_id = DB_ID()',
    );
    const r = recordset[0];
    if (r && BigInt(r.b) > BigInt(v.from))
      return `Change Tracking was enabled on ${v.key} again at version ${r.b}, ${after}: changes in between were not tracked, so it is copied again.`;
    if (r && (r.m === null || BigInt(r.c) > BigInt(r.m)))
      return `${v.key} was truncated (TRUNCATE TABLE) ${after}: its rows at the target are replaced by a new snapshot.`;
    if (r)
      return `Changes to ${v.key} after version ${v.from} were removed by retention cleanup (its minimum valid version is now ${v.min}): it needs a new snapshot.`;
  } catch {
    // Without VIEW DATABASE STATE the cause cannot be told apart.
  }
  return `Changes to ${v.key} ${after} are gone (a TRUNCATE TABLE, or retention cleanup): it needs a new snapshot.`;
}
