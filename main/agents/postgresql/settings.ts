// A PostgreSQL target agent's settings as node-postgres takes them, for its checks and its writer alike.
import { postgresqlConfiguration, postgresqlHostCredentials } from '../../../shared/agents/targets';
import type { ResolvedAgent } from '../spi';

export function postgresSettingsOf(agent: ResolvedAgent) {
  const c = postgresqlHostCredentials.schema.parse(agent.hostCredentials);
  const configuration = postgresqlConfiguration.schema.parse(agent.configuration);
  return {
    credentials: c,
    connection: {
      host: c.host,
      port: c.port,
      database: c.databaseName,
      user: c.username,
      password: c.password,
    },
    schema: configuration.schema ?? 'public',
    batchRows: configuration.batchRows,
    preciseTimes: configuration.preciseTimes,
  };
}
