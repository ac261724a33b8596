// The same source-agent contract against a real IBM i, through the IBM i Access ODBC Driver, for
// users who have one:
//   IBMI_HOST=ibmi.example.com IBMI_USER=CDCAGENT IBMI_PASSWORD=… npm test
// The profile must be able to create a schema (IBMI_SCHEMA, default CDCTEST) and the sync library
// (IBMI_SYNC_LIBRARY, default CDCLIVE); the suite's tables are named T1, T2 … and dropped afterwards.
import { describe, it } from 'vitest';
import type { JournalHostCredentials } from '../../../../shared/agents/journal';
import { openOdbcIbmi } from '../../../../main/agents/drivers/ibmi/odbc';
import { sourceAgentContract } from '../contract/sourceAgent';
import { journalHarness } from '../../../helpers/journal';

const { IBMI_HOST: host, IBMI_USER: user, IBMI_PASSWORD: password } = process.env;

if (host && user && password) {
  const credentials: JournalHostCredentials = {
    connectionName: 'live',
    host,
    databaseName: process.env.IBMI_DATABASE ?? '*SYSBAS',
    username: user,
    password,
    maxConnectionsCount: 4,
    dateFormat: 'iso',
    timeFormat: 'iso',
    blockSize: 32,
    useConnectionPool: true,
    syncLibrary: process.env.IBMI_SYNC_LIBRARY ?? 'CDCLIVE',
    journalCheckpointTable: 'JOURNALSCP',
    enableDdsDiscovery: false,
    useDatabaseTimezone: false,
  };
  sourceAgentContract('journal on a real IBM i (IBMI_HOST)', async () => {
    const admin = await openOdbcIbmi({ ...credentials, dateFormat: 'iso', timeFormat: 'iso' });
    const harness = journalHarness(admin, credentials, {
      schema: process.env.IBMI_SCHEMA ?? 'CDCTEST',
      pipelineId: 'live-contract',
    });
    await harness.prepare();
    return harness;
  });
} else {
  describe('source agent contract: journal on a real IBM i', () => {
    it.skip('skipped: IBMI_HOST, IBMI_USER and IBMI_PASSWORD are not set (a real IBM i through the IBM i Access ODBC Driver)', () => {});
  });
}
