// The PostgreSQL target type: tables created from the source columns in a schema of a database.
import { classifyPostgresError } from './errors';
import { agentTypes } from '../../../shared/agents';
import type { PostgresqlConfiguration, PostgresqlHostCredentials } from '../../../shared/agents/targets';
import { postgresName } from '../../../shared/names';
import type { AgentPlugin, TargetNames } from '../spi';
import { CHECKPOINT_TABLE } from '../target';
import { checkPostgresTarget } from './checks';
import { defaultPostgresqlConfiguration, postgresSettingsOf } from './settings';
import { OPEN_INDEX_PREFIX } from '../history';
import { postgresType } from './columnTypes';
import { PostgresTarget, STAGE_PREFIX } from './target';

/** The target quotes every name: PostgreSQL then compares them exactly, after its 63-byte cut. */
const postgresqlNames: TargetNames = {
  database: (settings) => {
    const c = settings?.hostCredentials ?? {};
    return `${String(c.host).toLowerCase()}:${Number(c.port ?? 5432)}/${String(c.databaseName)}`;
  },
  schemas: true,
  defaultSchema: (settings) => (settings?.configuration.schema as string | undefined) ?? 'public',
  fold: postgresName,
  reserved: (_schema, table) => {
    const name = postgresName(table);
    if (name === CHECKPOINT_TABLE) return "the runner's checkpoint table";
    if (name.startsWith(STAGE_PREFIX)) return `the prefix of the runner's staging tables (${STAGE_PREFIX}…)`;
    // Indexes share the tables' names in a PostgreSQL schema.
    if (name.startsWith(OPEN_INDEX_PREFIX))
      return `the prefix of the runner's history indexes (${OPEN_INDEX_PREFIX}…)`;
    return null;
  },
};

export const postgresqlPlugin: AgentPlugin<PostgresqlHostCredentials, PostgresqlConfiguration> = {
  definition: agentTypes.postgresql,
  endpoint: (c) => ({ host: c.host, port: c.port }),
  classifyError: classifyPostgresError,
  testConnection: async (hostCredentials) => {
    const [first] = await checkPostgresTarget({
      pipelineId: 'connection-test',
      id: 'connection-test',
      type: 'postgresql',
      role: 'target',
      hostCredentials,
      configuration: defaultPostgresqlConfiguration(),
    });
    if (!first) throw new Error('a PostgreSQL target check answered nothing');
    return first;
  },
  target: {
    names: postgresqlNames,
    check: checkPostgresTarget,
    columnType: (column, agent) =>
      postgresType(column, agent ? postgresSettingsOf(agent).preciseTimes : 'native'),
    open: (agent, { pipelineId }) => {
      if (!agent) throw new Error('PostgreSQL is never the default target.');
      const { credentials, connection, schema, batchRows, preciseTimes, nulCharacter } =
        postgresSettingsOf(agent);
      const options = {
        ...connection,
        schema,
        maxConnections: credentials.maxConnectionsCount,
        preciseTimes,
        nulCharacter,
      };
      return { open: async () => new PostgresTarget(options, pipelineId), batchRows };
    },
  },
};
