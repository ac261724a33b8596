// The journal agent type: IBM i tables read through their journals. A source only.
import { classifyIbmiError } from './errors';
import { agentTypes } from '../../../shared/agents';
import type { Entity } from '../../../shared/controlApi';
import type { JournalConfiguration, JournalHostCredentials } from '../../../shared/agents/journal';
import { problem } from '../../platform/problem';
import { passed, signedOn } from '../checkResults';
import { IbmiError } from '../../../lib/ibmi/connection';
import { inProcessIbmiAt } from '../../../lib/ibmi/inProcess';
import { ibmiFold, tableText } from '../../../shared/names';
import type { AgentPlugin, ResolvedAgent, SourceAdmin, SourceNames } from '../spi';
import { backlogQuery, minutesLeft } from './backlog';
import { openIbmi } from './connection';
import { openJournalSource, type JournalSource } from './source';
import { journalCatalog, journalTables } from './tables';
import { tableRefOf } from '../source';

/** IBM i host servers listen on fixed ports; the database server's is 8471 (IBM "Host server port"). */
export const IBMI_DATABASE_SERVER_PORT = 8471;

type JournalAgent = ResolvedAgent<JournalHostCredentials, JournalConfiguration>;

const openSource = (agent: JournalAgent, entities: readonly Entity[]) =>
  openJournalSource({
    credentials: agent.hostCredentials,
    configuration: agent.configuration,
    pipelineId: agent.pipelineId,
    agentId: agent.id,
    entities,
  });

const sameText = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase();

function admin(source: JournalSource, user: string): SourceAdmin {
  return {
    check: (entities) => source.check(entities),
    tables: (entities) => journalTables(source.c, entities),
    catalog: () => journalCatalog(source.c, source.sync.library),
    columns: (refs) => source.describe(refs),
    largestValues: (asked) => source.largestValues(asked),
    sample: async (ref, limit, rowFilter) =>
      (await source.readChunk(ref, null, limit, rowFilter && { rowFilter })).rows,
    loadCheckpoint: () => source.loadCheckpoint(),
    // The spec's query on the checkpoint table (source-agents.md, "Monitoring the journal backlog").
    // With the warnings before loss, from the checkpoint the engine read.
    backlog: async (entities, checkpoint) => ({
      ...(await backlogQuery(source.c, source.sync)),
      warnings: await source.lossWarnings(entities.map(tableRefOf), checkpoint),
    }),
    applyFix: async (fix) => {
      for (const command of fix.split('\n'))
        await source.c.command(command).catch((error: unknown) => {
          if (!(error instanceof IbmiError)) throw error;
          throw problem.conflict(
            `IBM i refused ${command} for ${user}: ${error.message} A security officer can run it instead.`,
          );
        });
    },
    close: () => source.close(),
  };
}

/** IBM i system names: `shop.orders` and `SHOP.ORDERS` are one file. */
const journalSourceNames: SourceNames = {
  fold: (schema, table) => tableText(ibmiFold(schema), ibmiFold(table)),
  reserved: (e, settings) => {
    const sync = ibmiFold(String(settings.hostCredentials.syncLibrary ?? 'SYNC'));
    if (ibmiFold(e.source.schema) === sync)
      return `is in ${sync}, the agent's sync library (its checkpoint table and work files): replicating it would replicate the agent's own writes, and the agent changes that library's journal. Set another "Sync library", or read another library.`;
    if (e.journal && ibmiFold(e.journal.library) === sync)
      return `is read through journal ${e.journal.library}/${e.journal.name} in ${sync}, the agent's sync library, whose receivers the agent deletes (CHGJRN … DLTRCV(*YES)). Set another "Sync library".`;
    return null;
  },
};

export const journalPlugin: AgentPlugin<JournalHostCredentials, JournalConfiguration> = {
  definition: agentTypes.journal,
  endpoint: (hostCredentials) => {
    const host = hostCredentials.host;
    // A simulated IBM i runs in this process: there is no port to reach.
    return inProcessIbmiAt(host) ? undefined : { host, port: IBMI_DATABASE_SERVER_PORT };
  },
  classifyError: classifyIbmiError,
  testConnection: async (hostCredentials) => {
    const c = hostCredentials;
    await (await openIbmi(c, undefined)).close();
    return passed('connection', signedOn(c.username, c.host));
  },
  source: {
    names: journalSourceNames,
    openReader: (agent, { entities }) => openSource(agent, entities),
    openAdmin: async (agent, entities) =>
      admin(await openSource(agent, entities), ibmiFold(agent.hostCredentials.username)),
    connected: (agent) => signedOn(agent.hostCredentials.username, agent.hostCredentials.host),
    // A library is the first part of a table's name: the system has one database.
    origin: ({ hostCredentials: c }) => ({ connector: 'ibmi', server: c.host, database: null }),
    fixes: { checkIds: ['journaling'], described: 'journaling (STRJRNPF, CHGJRNOBJ)' },
    // IBM i's refusal (no authority to the checkpoint table, say) is the answer, not an engine failure.
    refusal: (error, what) =>
      error instanceof IbmiError ? `IBM i refused ${what}: ${error.message}` : undefined,
    minutesLeft,
    // decisions.md: two journal agents on one source (host and database) cannot share a sync library.
    conflict: (mine, theirs) =>
      sameText(theirs.host, mine.host) &&
      sameText(theirs.databaseName, mine.databaseName) &&
      theirs.syncLibrary === mine.syncLibrary
        ? {
            field: 'syncLibrary',
            reason: `already uses sync library ${String(mine.syncLibrary)} on ${String(mine.host)}/${String(mine.databaseName)}. Each journal agent on one source needs its own sync library.`,
          }
        : null,
  },
};
