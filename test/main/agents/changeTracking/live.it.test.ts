// The same source-agent contract against a real SQL Server, for users who have one:
//   MSSQL_URL='mssql://login:password@host:1433/Database?tls=1&ca=/path/ca.pem' npm test
// The login must be able to create tables and turn Change Tracking on in that database; the suite's
// tables are named cdc_contract_* and dropped afterwards.
import { describe, it } from 'vitest';
import type { ChangeTrackingHostCredentials } from '../../../../shared/agents/changeTracking';
import { sourceAgentContract } from '../contract/sourceAgent';
import { changeTrackingHarness } from '../../../helpers/changeTracking';

const url = process.env.MSSQL_URL;

function credentialsFrom(text: string): ChangeTrackingHostCredentials {
  const u = new URL(text);
  if (u.protocol !== 'mssql:') throw new Error(`MSSQL_URL must start with mssql://, not ${u.protocol}//`);
  const ca = u.searchParams.get('ca');
  return {
    connectionName: 'live',
    host: u.hostname,
    port: u.port ? Number(u.port) : 1433,
    databaseName: decodeURIComponent(u.pathname.slice(1)),
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    maxConnectionsCount: 4,
    enableTls: u.searchParams.get('tls') === '1',
    ...(ca !== null && { certificatePath: ca }),
  };
}

if (url) {
  sourceAgentContract('change-tracking on a real SQL Server (MSSQL_URL)', () =>
    changeTrackingHarness(credentialsFrom(url), {
      tablePrefix: 'cdc_contract_',
      pipelineId: 'live-contract',
    }),
  );
} else {
  describe('source agent contract: change-tracking on a real SQL Server', () => {
    it.skip('skipped: MSSQL_URL is not set (mssql://login:password@host:1433/Database?tls=1&ca=/path/ca.pem)', () => {});
  });
}
