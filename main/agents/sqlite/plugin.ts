// The SQLite target type: a file the runner writes; the registry's default target, in the data folder.
import { join } from 'node:path';
import { REPLICAS_FOLDER } from '../../platform/dataDir';
import { ownFileClash } from '../../platform/ownFiles';
import { agentTypes } from '../../../shared/agents';
import {
  sqliteConfiguration,
  type SqliteConfiguration,
  type SqliteHostCredentials,
} from '../../../shared/agents/targets';
import { sqliteFold } from '../../../shared/names';
import type { AgentPlugin, AgentSettings, TargetNames } from '../spi';
import { CHECKPOINT_TABLE } from '../target';
import { OPEN_INDEX_PREFIX } from '../history';
import { fileIdentity } from '../fileIdentity';
import { checkSqliteTarget } from './checks';
import { classifySqliteError, REBUILD_SUFFIX, SqliteTarget, sqliteType } from './target';

/** Where a pipeline without a target agent writes. */
export const defaultReplicaPath = (dataDir: string, pipelineId: string) =>
  join(dataDir, REPLICAS_FOLDER, `${pipelineId}.sqlite`);

/** The file a SQLite target agent so configured writes (the default replica without one). */
const fileOf = (settings: AgentSettings | undefined, context: { dataDir: string; pipelineId: string }) => {
  const path = settings?.hostCredentials.path;
  return typeof path === 'string' ? path : defaultReplicaPath(context.dataDir, context.pipelineId);
};

const sqliteNames: TargetNames = {
  database: (settings, context) => fileIdentity(fileOf(settings, context)),
  file: fileOf,
  // One file, one namespace: an attached schema is not how the runner writes.
  schemas: false,
  defaultSchema: () => undefined,
  fold: sqliteFold,
  reserved: (_schema, table) => {
    const name = sqliteFold(table);
    if (name === CHECKPOINT_TABLE) return "the runner's checkpoint table";
    if (name.startsWith('sqlite_')) return 'a name SQLite keeps for its own tables (sqlite_…)';
    if (name.endsWith(REBUILD_SUFFIX))
      return `the scratch name the runner rebuilds a table under (…${REBUILD_SUFFIX})`;
    // Indexes share the tables' names in SQLite.
    if (name.startsWith(OPEN_INDEX_PREFIX))
      return `the prefix of the runner's history indexes (${OPEN_INDEX_PREFIX}…)`;
    return null;
  },
};

const connectionCheckOf = async (hostCredentials: SqliteHostCredentials) => {
  const [first] = await checkSqliteTarget(hostCredentials);
  if (!first) throw new Error('a SQLite target check answered nothing');
  return { ...first, id: 'connection' };
};

export const sqlitePlugin: AgentPlugin<SqliteHostCredentials, SqliteConfiguration> = {
  definition: agentTypes.sqlite,
  // A file: nothing to reach over the network.
  endpoint: () => undefined,
  classifyError: classifySqliteError,
  testConnection: connectionCheckOf,
  target: {
    names: sqliteNames,
    check: (agent) => checkSqliteTarget(agent.hostCredentials),
    columnType: (column) => sqliteType(column),
    open: (agent, { dataDir, pipelineId }) => {
      const path = agent?.hostCredentials.path;
      // The default target has no agent: its settings are the type's defaults.
      const { batchRows } = agent?.configuration ?? sqliteConfiguration.schema.parse({});
      const file = path ?? defaultReplicaPath(dataDir, pipelineId);
      return {
        open: async () => {
          // Checked again as the file is opened: a link made since the PUT must not reach the store.
          const own = ownFileClash({ dataDir }, file);
          if (own)
            throw new Error(`The target file ${file} ${own}; a replica never writes the engine's own files.`);
          return new SqliteTarget(file, pipelineId);
        },
        batchRows,
      };
    },
  },
};
