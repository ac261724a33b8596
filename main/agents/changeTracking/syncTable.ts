// The agent's own tables live in the SYNC schema, which the agent creates when absent
// (source-agents.md). Another engine creating the schema or the table at the same moment is fine.
import { sqlServerErrorNumber } from '../drivers/mssql/errors';
import { bracket } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';

/** 2714: there is already an object with that name. */
const unlessThere = (e: unknown) => {
  if (sqlServerErrorNumber(e) !== 2714) throw e;
};

/** Runs `create` (a CREATE TABLE in SYNC), creating the schema first when SQL Server says it is missing (2760). */
export async function createSyncTable(
  run: (statement: string) => Promise<unknown>,
  create: string,
): Promise<void> {
  try {
    await run(create);
  } catch (error) {
    if (sqlServerErrorNumber(error) === 2714) return;
    if (sqlServerErrorNumber(error) !== 2760) throw error;
    await run(`CREATE SCHEMA ${bracket(SYNC_SCHEMA)}`).catch(unlessThere);
    await run(create).catch(unlessThere);
  }
}
