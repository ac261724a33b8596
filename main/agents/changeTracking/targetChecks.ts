// Checks of SQL Server as a target (the two-way case): the login, and the right to create tables.
import type { CheckResult } from '../../../shared/controlApi';
import { connectionFailed, failed, passed } from '../checkResults';
import type { ChangeTrackingAgent } from './agent';
import { AgentConnectionError, openPool, sqlServerLoggedIn } from '../drivers/mssql/connection';

export async function checkSqlServerTarget(agent: ChangeTrackingAgent): Promise<CheckResult[]> {
  const c = agent.hostCredentials;
  let pool;
  try {
    pool = await openPool(c);
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return [connectionFailed(error)];
  }
  try {
    const { recordset } = await pool
      .request()
      .query<{ can_create: number }>(
        "SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'CREATE TABLE') AS can_create",
      );
    return [
      passed('connection', sqlServerLoggedIn(c)),
      recordset[0]?.can_create === 1
        ? passed('target-writable', `"${c.username}" may create the replica tables in "${c.databaseName}".`)
        : failed(
            'target-writable',
            `"${c.username}" may not create tables in "${c.databaseName}".`,
            'Grant CREATE TABLE (and ALTER on the schema), or create the target tables beforehand.',
          ),
    ];
  } finally {
    await pool.close().catch(() => undefined);
  }
}
