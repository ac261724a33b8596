// The change-tracking agent through the source-agent contract, on the sandbox SQL Server.
import { afterAll } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../main/sandbox/mssql';
import { sourceAgentContract } from '../contract/sourceAgent';
import { changeTrackingHarness } from '../helpers/changeTracking';
import { DBA } from '../helpers/sandbox';

let sandbox: SandboxSqlServer | undefined;
afterAll(async () => {
  await sandbox?.close();
});

sourceAgentContract('change-tracking on the sandbox SQL Server', async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const setup = await changeTrackingHarness({
    connectionName: 'contract',
    host: '127.0.0.1',
    port: sandbox.port,
    databaseName: 'Sales',
    username: DBA.name,
    password: DBA.password,
    maxConnectionsCount: 4,
    enableTls: false,
  });
  return setup;
});
