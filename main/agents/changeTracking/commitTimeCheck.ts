// Commit times come from sys.dm_tran_commit_table, which a login reads live only with VIEW SERVER
// STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022). Without it Microsoft documents that the
// view shows a commit only after a CHECKPOINT writes it out: replication goes on, but the commit time
// column, the source lag and the retention warning hold nothing for the newest changes.
import type sql from 'mssql';
import type { ChangeTrackingHostCredentials } from '../../../shared/agents/changeTracking';
import type { CheckResult } from '../../../shared/controlApi';
import { failed, passed, warning } from '../checkResults';
import { isStartTime } from '../startPoint';
import { bracket } from '../drivers/mssql/names';

export const COMMIT_TIMES_CHECK = 'commit-times';

/**
 * The select items that tell whether the login reads commit times live. Before 2022 the newer
 * permission is unknown and answers NULL: either one granted is enough.
 */
export const COMMIT_TIME_PERMISSIONS =
  "HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE') AS state, " +
  "HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') AS perf";
export const readsCommitTimesLive = (row: { state: number | null; perf: number | null } | undefined) =>
  row?.state === 1 || row?.perf === 1;

/** What gives the login commit times live, in words. */
export const COMMIT_TIMES_GRANT =
  'As a DBA, in master: on SQL Server 2022 and later grant VIEW SERVER PERFORMANCE STATE to the login; ' +
  'on earlier versions VIEW SERVER STATE.';

/** Without the permission a time-based `startAt` or `stopAt` cannot be placed: the check fails, the pipeline refuses it. */
export async function commitTimeCheck(
  pool: sql.ConnectionPool,
  c: ChangeTrackingHostCredentials,
  startAt?: string,
  stopAt?: string,
): Promise<CheckResult> {
  const { recordset } = await pool
    .request()
    .query<{ state: number | null; perf: number | null }>(`SELECT ${COMMIT_TIME_PERMISSIONS}`);
  if (readsCommitTimesLive(recordset[0]))
    return passed(COMMIT_TIMES_CHECK, 'The login reads commit times live (sys.dm_tran_commit_table).');
  const login = bracket(c.username);
  const remedy = `${COMMIT_TIMES_GRANT} Then test again.`;
  const grant = `GRANT VIEW SERVER PERFORMANCE STATE TO ${login};`;
  const timed = [
    ['startAt', startAt],
    ['stopAt', stopAt],
  ].find(([, value]) => value !== undefined && isStartTime(value));
  if (timed)
    return failed(
      COMMIT_TIMES_CHECK,
      `${timed[0]} = "${timed[1]}" is a time, found through sys.dm_tran_commit_table, which the login "${c.username}" ` +
        'reads only up to the last CHECKPOINT (it holds neither VIEW SERVER STATE nor VIEW SERVER PERFORMANCE ' +
        'STATE): the point would be a guess, so the pipeline refuses it.',
      `${remedy} Or set ${timed[0]} to a change-tracking version.`,
      grant,
    );
  return warning(
    COMMIT_TIMES_CHECK,
    `The login "${c.username}" holds neither VIEW SERVER STATE nor VIEW SERVER PERFORMANCE STATE, so ` +
      'sys.dm_tran_commit_table shows it a commit only after the next CHECKPOINT. Changes still replicate, ' +
      'but the commit time column, the source lag and the retention warning are empty (null) for the ' +
      'newest changes until then.',
    remedy,
    grant,
  );
}
