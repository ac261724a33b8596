// The change-tracking agent's heartbeat, `[SYNC].[CT_HEARTBEAT]`: one row per agent key, written every
// heartbeatSeconds. The table is change-tracked, so each write commits a new database version: a quiet
// database's version moves, every table's position follows it, and the row's time, read in the
// batch's snapshot, is what the target's commit is measured against.
import sql from 'mssql';
import type { CheckResult } from '../../../shared/controlApi';
import { passed, warning } from '../checkResults';
import { HeartbeatRefused, type SourceHeartbeat } from '../source';
import { sqlServerErrorNumber } from '../drivers/mssql/errors';
import { bracket } from '../drivers/mssql/names';
import type { Query } from './checkpoints';
import { SYNC_SCHEMA } from './names';
import { createSyncTable } from './syncTable';

export const HEARTBEAT_TABLE = 'CT_HEARTBEAT';
export const HEARTBEAT = `${bracket(SYNC_SCHEMA)}.${bracket(HEARTBEAT_TABLE)}`;

const CREATE_TABLE = `CREATE TABLE ${HEARTBEAT} (agent_key NVARCHAR(200) NOT NULL CONSTRAINT PK_CT_HEARTBEAT PRIMARY KEY, beat_at DATETIME2(3) NOT NULL)`;
const ENABLE = `ALTER TABLE ${HEARTBEAT} ENABLE CHANGE_TRACKING`;

/** What Start runs when the table is absent: shown to the DBA before it is confirmed. */
export const HEARTBEAT_CREATE = `${CREATE_TABLE}; ${ENABLE};`;

/** The statements that give a login what the heartbeat needs beyond the agent's own permissions. */
export const heartbeatGrant = (login: string) =>
  `GRANT CREATE TABLE TO ${bracket(login)}; GRANT ALTER ON SCHEMA::${bracket(SYNC_SCHEMA)} TO ${bracket(login)};`;

/** 208: invalid object name (the table is not there yet). */
const missing = (error: unknown) => sqlServerErrorNumber(error) === 208;
/** 262: CREATE TABLE denied; 4902: the login may not alter the table (SQL Server says "cannot find"). */
const refused = (error: unknown) => [262, 4902].includes(sqlServerErrorNumber(error) ?? 0);

/**
 * Whether the heartbeat table is made and change-tracked, and whether the login may alter the SYNC
 * schema (null where the schema is not there), in one statement.
 */
async function tableState(
  request: sql.Request,
  query: Query,
): Promise<{ made: boolean; tracked: boolean; canAlter: number | null }> {
  request.input('t', `${SYNC_SCHEMA}.${HEARTBEAT_TABLE}`);
  request.input('s', SYNC_SCHEMA);
  const { recordset } = await query<{ id: number | null; tracked: number; can_alter: number | null }>(
    request,
    `SELECT OBJECT_ID(@t) AS id, (SELECT COUNT(*) FROM sys.change_tracking_tables WHERE object_id = OBJECT_ID(@t)) AS tracked, HAS_PERMS_BY_NAME(@s, 'SCHEMA', 'ALTER') AS can_alter`,
  );
  const r = recordset[0];
  return { made: r?.id != null, tracked: (r?.tracked ?? 0) > 0, canAlter: r?.can_alter ?? null };
}

export class ChangeTrackingHeartbeat implements SourceHeartbeat {
  /**
   * When the table was found made and tracked, once a run (a table left untracked by a refused enable
   * would move no version); null before. A snapshot begun earlier may not read a table made since.
   */
  readyAt: number | null = null;

  constructor(
    private readonly pool: sql.ConnectionPool,
    private readonly query: Query,
    private readonly agentKey: string,
    private readonly login: string,
    readonly everyMs: number,
  ) {}

  async beat(): Promise<void> {
    if (this.readyAt === null) await this.ensureTracked();
    const request = this.pool.request();
    request.input('agent', sql.NVarChar(200), this.agentKey);
    const updated = await this.query(
      request,
      `UPDATE ${HEARTBEAT} SET beat_at = SYSUTCDATETIME() WHERE agent_key = @agent`,
    );
    if ((updated.rowsAffected[0] ?? 0) > 0) return;
    const insert = this.pool.request();
    insert.input('agent', sql.NVarChar(200), this.agentKey);
    await this.query(
      insert,
      `INSERT INTO ${HEARTBEAT} (agent_key, beat_at) VALUES (@agent, SYSUTCDATETIME())`,
    );
  }

  /** The table made (the first time) and its Change Tracking on; a refusal says what grants it. */
  private async ensureTracked(): Promise<void> {
    const run = (statement: string) => this.query(this.pool.request(), statement);
    try {
      const table = await tableState(this.pool.request(), this.query);
      if (!table.made) await createSyncTable(run, CREATE_TABLE);
      if (!table.tracked) await run(ENABLE);
    } catch (error) {
      if (!refused(error)) throw error;
      const said = error instanceof Error ? error.message : String(error);
      throw new HeartbeatRefused(
        `The heartbeat is off: the login "${this.login}" may not create ${HEARTBEAT} or enable Change Tracking on it (SQL Server answered: ${said}). Grant it: ${heartbeatGrant(this.login)}`,
      );
    }
    this.readyAt = Date.now();
  }
}

/**
 * The heartbeat's time as the batch's snapshot sees it (the newest write committed before the batch's
 * version was read); null before the first beat.
 */
export async function heartbeatTimeIn(
  request: sql.Request,
  query: Query,
  agentKey: string,
): Promise<Date | null> {
  request.input('agent', sql.NVarChar(200), agentKey);
  try {
    const { recordset } = await query<{ at: Date }>(
      request,
      `SELECT beat_at AS at FROM ${HEARTBEAT} WHERE agent_key = @agent`,
    );
    return recordset[0]?.at ?? null;
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/**
 * With the heartbeat on: whether the agent can make and track its table. Without the authority the
 * agent runs without a heartbeat (a warning naming the grant); making it is a write shown at Start.
 */
export async function heartbeatCheck(
  pool: sql.ConnectionPool,
  login: string,
  schemaExists: boolean,
): Promise<CheckResult> {
  const id = 'heartbeat';
  const r = await tableState(pool.request(), (request, statement) => request.query(statement));
  if (r.made && r.tracked)
    return passed(id, `The heartbeat table ${HEARTBEAT} exists and is change-tracked.`);
  // A schema the agent creates at Start is the login's own: it may alter it.
  if (r.canAlter === 1 || (!schemaExists && r.canAlter === null)) {
    const atStart = r.made ? `${ENABLE};` : HEARTBEAT_CREATE;
    return {
      ...passed(
        id,
        `The agent will make its heartbeat table ${HEARTBEAT} change-tracked at Start (${atStart}).`,
      ),
      atStart,
    };
  }
  return warning(
    id,
    `The heartbeat is on, but the login "${login}" may not enable Change Tracking on ${HEARTBEAT} (no ALTER on the ${SYNC_SCHEMA} schema): the agent runs without a heartbeat, and a quiet source shows "idle since" instead of how fresh it is.`,
    `Grant the login what the heartbeat needs (${heartbeatGrant(login)}), or set the heartbeat to 0.`,
    heartbeatGrant(login),
  );
}
