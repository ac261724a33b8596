// The change-tracking agent type: SQL Server read through Change Tracking, and SQL Server written as the
// target of a two-way setup.
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../../../shared/agents/changeTracking';
import { agentTypes } from '../../../shared/agents';
import { FIXABLE_CHECK_IDS, type Entity } from '../../../shared/controlApi';
import { problem } from '../../platform/problem';
import { passed } from '../checkResults';
import { tableRefOf } from '../source';
import { sqlServerFold, tableText } from '../../../shared/names';
import type { AgentPlugin, SourceAdmin, SourceNames, TargetNames } from '../spi';
import { sameName } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';
import { openPool, sqlServerLoggedIn } from '../drivers/mssql/connection';
import { openChangeTrackingSource, type ChangeTrackingSource } from './source';
import { changeTrackingCatalog, changeTrackingTables } from './tables';
import { largestValues } from '../drivers/mssql/largestValues';
import { MssqlTarget, mssqlType } from './target';
import { classifySqlServerError, sqlServerErrorNumber } from '../drivers/mssql/errors';
import { checkSqlServerTarget } from './targetChecks';
import type { ChangeTrackingAgent } from './agent';

/** `alsoSkip`: the pipelines whose writes the reader leaves out (recursion protection). */
const openSource = (agent: ChangeTrackingAgent, alsoSkip?: readonly string[]) =>
  openChangeTrackingSource({
    credentials: agent.hostCredentials,
    configuration: agent.configuration,
    pipelineId: agent.pipelineId,
    agentId: agent.id,
    alsoSkip,
  });

/** SQL Server's own refusal carries its error number; anything else is the engine's failure. */
function refusal(error: unknown, what: string): string | undefined {
  const number = sqlServerErrorNumber(error);
  if (number === undefined) return undefined;
  return `SQL Server refused ${what} (error ${number}): ${(error as Error).message}`;
}

function admin(source: ChangeTrackingSource): SourceAdmin {
  return {
    check: (entities) => source.check(entities),
    tables: (entities) => changeTrackingTables(source.pool, entities),
    catalog: () => changeTrackingCatalog(source.pool),
    columns: (refs) => source.describe(refs),
    largestValues: (asked) => largestValues(source.pool, asked),
    sample: async (ref, limit, rowFilter) =>
      (await source.readChunk(ref, null, limit, rowFilter && { rowFilter })).rows,
    loadCheckpoint: () => source.loadCheckpoint(),
    backlog: async (entities, checkpoint) => {
      const backlog = await source.backlog(entities.map(tableRefOf), checkpoint);
      return { ...backlog, minutesLeft: null };
    },
    applyFix: async (fix) => {
      await source.pool
        .request()
        .batch(fix)
        .catch((error: unknown) => {
          // SQL Server's refusal (no ALTER permission, say) is the user's to see, not an engine failure.
          const refused = refusal(error, 'the fix');
          throw refused ? problem.conflict(`${refused} A DBA can run it instead.`) : error;
        });
    },
    close: () => source.close(),
  };
}

const inSyncSchema = (schema: string | undefined) => schema !== undefined && sameName(schema, SYNC_SCHEMA);

/**
 * Source tables are told apart as the database's collation does, known once connected (the checks and
 * the start refuse look-alikes then); without a connection, only exact repeats are one table.
 */
const changeTrackingSourceNames: SourceNames = {
  fold: tableText,
  reserved: (e) =>
    inSyncSchema(e.source.schema)
      ? `is in the ${SYNC_SCHEMA} schema, where change-tracking agents keep their own tables (their checkpoints and heartbeat): replicating it would replicate the agent's own writes.`
      : null,
  // A table's full name starts with its database: a stream names its subjects so.
  database: (settings) =>
    typeof settings.hostCredentials.databaseName === 'string' ? settings.hostCredentials.databaseName : null,
};

/** A SQL Server target compares as its default collation does: without case. */
const sqlServerTargetNames: TargetNames = {
  database: (settings) => {
    const c = settings?.hostCredentials ?? {};
    return `${String(c.host).toLowerCase()}:${Number(c.port ?? 1433)}/${sqlServerFold(String(c.databaseName))}`;
  },
  schemas: true,
  defaultSchema: () => 'dbo',
  fold: sqlServerFold,
  reserved: (schema) =>
    inSyncSchema(schema)
      ? `in the ${SYNC_SCHEMA} schema, which holds the agents' own tables (CT_CHECKPOINT, CT_HEARTBEAT, RUNNER_CHECKPOINT)`
      : null,
};

export const changeTrackingPlugin: AgentPlugin<ChangeTrackingHostCredentials, ChangeTrackingConfiguration> = {
  definition: agentTypes['change-tracking'],
  endpoint: (c) => ({ host: c.host, port: c.port }),
  classifyError: classifySqlServerError,
  testConnection: async (c) => {
    await (await openPool(c)).close();
    return passed('connection', sqlServerLoggedIn(c));
  },
  source: {
    names: changeTrackingSourceNames,
    openReader: (agent, { peerPipelines }) => openSource(agent, peerPipelines),
    openAdmin: async (agent) => admin(await openSource(agent)),
    connected: (agent) => sqlServerLoggedIn(agent.hostCredentials),
    origin: ({ hostCredentials: c }) => ({
      connector: 'sqlserver',
      server: `${c.host}:${c.port}`,
      database: c.databaseName,
    }),
    fixes: { checkIds: FIXABLE_CHECK_IDS, described: FIXABLE_CHECK_IDS.join(', ') },
    refusal,
    refuseEntities: (entities) => {
      const named = (list: readonly Entity[]) =>
        list.map((e) => `${e.source.schema}.${e.source.table}`).join(', ');
      const keyless = entities.filter((e) => e.rowIdentification.kind !== 'primaryKey');
      // IBM i's settings mean nothing to SQL Server: refused rather than ignored, so none is believed in force.
      const ibmiOnly = entities.filter(
        (e) => e.members !== undefined || e.forceCcsid !== undefined || e.textOrder !== undefined,
      );
      if (keyless.length)
        return `The change-tracking agent identifies rows by primary key only: ${named(keyless)} ask for another row identification.`;
      if (ibmiOnly.length)
        return `members, forceCcsid and textOrder are settings of the journal agent (IBM i): SQL Server tables have no members, and their text is read by each column's collation, in the order it is stored. Remove them from ${named(ibmiOnly)}.`;
      return null;
    },
  },
  target: {
    names: sqlServerTargetNames,
    check: checkSqlServerTarget,
    columnType: (column) => mssqlType(column),
    open: (agent, { pipelineId }) => {
      if (!agent) throw new Error('SQL Server is never the default target.');
      const { hostCredentials: c, configuration } = agent;
      const where = `${c.host}:${c.port}/${c.databaseName}`;
      return {
        open: async () =>
          new MssqlTarget(await openPool(c), pipelineId, configuration.enableRecursionProtection, where),
        batchRows: 10_000,
      };
    },
    sameDatabase: (target, source) =>
      String(target.host).toLowerCase() === String(source.host).toLowerCase() &&
      Number(target.port ?? 1433) === Number(source.port ?? 1433) &&
      String(target.databaseName).toLowerCase() === String(source.databaseName).toLowerCase(),
  },
};
