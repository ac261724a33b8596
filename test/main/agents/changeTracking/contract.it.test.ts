// The change-tracking agent through the source-agent contract, on the sandbox SQL Server.
import { afterAll } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { sourceAgentContract } from '../contract/sourceAgent';
import { changeTrackingHarness, sandboxCredentials } from '../../../helpers/changeTracking';
import { DBA } from '../../../helpers/sandbox';

let sandbox: SandboxSqlServer | undefined;
afterAll(async () => {
  await sandbox?.close();
});

sourceAgentContract('change-tracking on the sandbox SQL Server', async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const setup = await changeTrackingHarness(sandboxCredentials(sandbox, { maxConnectionsCount: 4 }));
  return setup;
});
