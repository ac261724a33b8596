// The change-tracking agent's checkpoint at the source, `[SYNC].[CT_CHECKPOINT]`: one row per agent
// key and table. Written in slices of tables (names.ts): SQL Server takes 2,100 parameters per
// request and 1,000 rows per VALUES list, and a pipeline may hold 10,000 tables.
import sql from 'mssql';
import type { Checkpoint } from '../source';
import { sqlServerErrorNumber } from '../drivers/mssql/errors';
import { bracket, TABLES_PER_STATEMENT } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';
import { createSyncTable } from './syncTable';

export const CHECKPOINT_TABLE = 'CT_CHECKPOINT';
const TABLE = `${bracket(SYNC_SCHEMA)}.${bracket(CHECKPOINT_TABLE)}`;

/** Runs a statement on a request (the source's traced query). */
export type Query = <T>(request: sql.Request, statement: string) => Promise<sql.IResult<T>>;

/** SQL Server's "Invalid object name": the checkpoint table is not there (yet). */
const missing = (error: unknown) => sqlServerErrorNumber(error) === 208;

export async function loadCheckpoint(
  pool: sql.ConnectionPool,
  query: Query,
  agentKey: string,
): Promise<Checkpoint> {
  const request = pool.request();
  request.input('agent', agentKey);
  // Asked outright rather than after an OBJECT_ID lookup: one round trip, and a server 30 ms away.
  const answer = await query<{ table_name: string; version: string }>(
    request,
    `SELECT table_name, version FROM ${TABLE} WHERE agent_key = @agent`,
  ).catch((error: unknown) => {
    if (missing(error)) return null;
    throw error;
  });
  return Object.fromEntries((answer?.recordset ?? []).map((r) => [r.table_name, String(r.version)]));
}

/**
 * The agent's rows replaced, a slice of tables per request, each in a transaction of its own inside
 * that one request, so no lock is held while the network waits. A pipeline of up to 250 tables is
 * one atomic request; beyond, a failure half way leaves some tables' rows older, which only delays
 * the backlog shown for them (the target's checkpoint is the one the runner resumes from). Each
 * request first reads the table empty: where it is missing, SQL Server's 208 ends the batch before
 * its transaction begins, and the table is made and the slice sent again; a save is one round trip.
 */
export async function saveCheckpoint(
  pool: sql.ConnectionPool,
  query: Query,
  agentKey: string,
  checkpoint: Checkpoint,
): Promise<void> {
  const entries = Object.entries(checkpoint);
  for (let at = 0; at < entries.length; at += TABLES_PER_STATEMENT) {
    const slice = entries.slice(at, at + TABLES_PER_STATEMENT);
    const save = () => {
      const request = pool.request();
      request.input('agent', agentKey);
      const values = slice.map(([name, version], i) => {
        request.input(`n${i}`, name);
        request.input(`v${i}`, sql.BigInt, version);
        return `(@agent, @n${i}, @v${i}, SYSUTCDATETIME())`;
      });
      return query(
        request,
        `SELECT TOP (0) 1 AS present FROM ${TABLE};
      SET XACT_ABORT ON;
      BEGIN TRANSACTION;
      DELETE FROM ${TABLE} WHERE agent_key = @agent AND table_name IN (${slice.map((_, i) => `@n${i}`).join(', ')});
      INSERT INTO ${TABLE} (agent_key, table_name, version, saved_at) VALUES ${values.join(', ')};
      COMMIT TRANSACTION;`,
      );
    };
    await save().catch(async (error: unknown) => {
      if (!missing(error)) throw error;
      await createCheckpointTable(pool, query);
      await save();
    });
  }
}

function createCheckpointTable(pool: sql.ConnectionPool, query: Query): Promise<void> {
  return createSyncTable(
    (statement) => query(pool.request(), statement),
    `CREATE TABLE ${TABLE} (agent_key NVARCHAR(200) NOT NULL, table_name NVARCHAR(300) NOT NULL,
        version BIGINT NOT NULL, saved_at DATETIME2(3) NOT NULL, CONSTRAINT PK_CT_CHECKPOINT PRIMARY KEY (agent_key, table_name))`,
  );
}
