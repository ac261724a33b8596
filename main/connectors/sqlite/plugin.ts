// The SQLite target type: a file the runner writes; the registry's default target, in the data folder.
import { join } from 'node:path';
import { agentTypes } from '../../../shared/agents';
import { sqliteConfiguration, sqliteHostCredentials } from '../../../shared/agents/targets';
import type { AgentPlugin, ResolvedAgent } from '../spi';
import { checkSqliteTarget } from './checks';
import { SqliteTarget } from './target';

/** Where a pipeline without a target agent writes. */
export const defaultReplicaPath = (dataDir: string, pipelineId: string) =>
  join(dataDir, 'replicas', `${pipelineId}.sqlite`);

const connectionCheckOf = async (agent: ResolvedAgent) => {
  const [first] = await checkSqliteTarget(agent);
  if (!first) throw new Error('a SQLite target check answered nothing');
  return { ...first, id: 'connection' };
};

export const sqlitePlugin: AgentPlugin = {
  definition: agentTypes.sqlite,
  // A file: nothing to reach over the network.
  endpoint: () => undefined,
  testConnection: (hostCredentials) =>
    connectionCheckOf({
      pipelineId: 'connection-test',
      id: 'connection-test',
      type: 'sqlite',
      role: 'target',
      hostCredentials,
      configuration: {},
    }),
  target: {
    check: checkSqliteTarget,
    open: (agent, { dataDir, pipelineId }) => {
      const path = agent ? sqliteHostCredentials.schema.parse(agent.hostCredentials).path : undefined;
      const { batchRows } = sqliteConfiguration.schema.parse(agent?.configuration ?? {});
      const file = path ?? defaultReplicaPath(dataDir, pipelineId);
      return { open: async () => new SqliteTarget(file, pipelineId), batchRows };
    },
  },
};
