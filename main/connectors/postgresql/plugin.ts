// The PostgreSQL target type: tables created from the source columns in a schema of a database.
import { agentTypes } from '../../../shared/agents';
import { postgresqlHostCredentials } from '../../../shared/agents/targets';
import type { AgentPlugin } from '../spi';
import { checkPostgresTarget } from './checks';
import { postgresSettingsOf } from './settings';
import { PostgresTarget } from './target';

export const postgresqlPlugin: AgentPlugin = {
  definition: agentTypes.postgresql,
  endpoint: (hostCredentials) => {
    const c = postgresqlHostCredentials.schema.parse(hostCredentials);
    return { host: c.host, port: c.port };
  },
  testConnection: async (hostCredentials) => {
    const [first] = await checkPostgresTarget({
      pipelineId: 'connection-test',
      id: 'connection-test',
      type: 'postgresql',
      role: 'target',
      hostCredentials,
      configuration: {},
    });
    if (!first) throw new Error('a PostgreSQL target check answered nothing');
    return first;
  },
  target: {
    check: checkPostgresTarget,
    open: (agent, { pipelineId }) => {
      if (!agent) throw new Error('PostgreSQL is never the default target.');
      const { credentials, connection, schema, batchRows, preciseTimes } = postgresSettingsOf(agent);
      const options = {
        ...connection,
        schema,
        maxConnections: credentials.maxConnectionsCount,
        preciseTimes,
      };
      return { open: async () => new PostgresTarget(options, pipelineId), batchRows };
    },
  },
};
