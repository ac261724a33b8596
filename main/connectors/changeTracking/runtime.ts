// The change-tracking agent inside the engine: checks (connection first, in plain words), the backlog
// from the checkpoint kept at the source, and the fixes a check offers, applied when the user asks.
import {
  changeTrackingConfiguration,
  changeTrackingHostCredentials,
  type ChangeTrackingConfiguration,
  type ChangeTrackingHostCredentials,
} from '../../../shared/agents/changeTracking';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import type { BacklogFigure, ResolvedAgent } from '../spi';
import { tableRefOf } from '../source';
import { problem } from '../../platform/problem';
import { AgentConnectionError } from './connection';
import { openChangeTrackingSource, type ChangeTrackingSource } from './source';
import { changeTrackingTables } from './tables';
import { withAgentSource, type SourceCache } from '../sourceCache';

function settingsOf(agent: ResolvedAgent): {
  credentials: ChangeTrackingHostCredentials;
  configuration: ChangeTrackingConfiguration;
} {
  return {
    credentials: changeTrackingHostCredentials.schema.parse(agent.hostCredentials),
    configuration: changeTrackingConfiguration.schema.parse(agent.configuration),
  };
}

/** Runs `work` on a source of its own, or on the agent's kept-open one when a cache is given. */
const withSource = <T>(
  agent: ResolvedAgent,
  work: (source: ChangeTrackingSource) => Promise<T>,
  cache?: SourceCache<ChangeTrackingSource>,
): Promise<T> =>
  withAgentSource(
    agent,
    [agent.type, agent.hostCredentials, agent.configuration],
    () => openChangeTrackingSource({ ...settingsOf(agent), pipelineId: agent.pipelineId, agentId: agent.id }),
    work,
    cache,
  );

export async function checkChangeTracking(
  agent: ResolvedAgent,
  entities: readonly Entity[],
): Promise<CheckResult[]> {
  const { credentials } = settingsOf(agent);
  try {
    return await withSource(agent, async (source) => [
      {
        id: 'connection',
        status: 'passed',
        message: `Logged in as "${credentials.username}" to the database "${credentials.databaseName}"${credentials.enableTls ? ' over TLS' : ''}.`,
        remedy: null,
      },
      ...(await source.check(entities)),
    ]);
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return [{ id: 'connection', status: 'failed', message: error.message, remedy: error.remedy }];
  }
}

export const changeTrackingTableStates = (
  agent: ResolvedAgent,
  entities: readonly Entity[],
  cache?: SourceCache<ChangeTrackingSource>,
) => withSource(agent, (source) => changeTrackingTables(source.pool, entities), cache);

export async function changeTrackingBacklog(
  agent: ResolvedAgent,
  entities: readonly Entity[],
  cache?: SourceCache<ChangeTrackingSource>,
): Promise<BacklogFigure | { unavailable: string }> {
  try {
    return await withSource(
      agent,
      async (source) => {
        const checkpoint = await source.loadCheckpoint();
        if (Object.keys(checkpoint).length === 0)
          return { unavailable: 'No checkpoint at the source yet: the agent has not finished a snapshot.' };
        const backlog = await source.backlog(entities.map(tableRefOf), checkpoint);
        return {
          rowsToRead: backlog.rowsToRead,
          minutesLeft: null,
          versionsBehind: backlog.versionsBehind,
          perTable: backlog.perTable,
        };
      },
      cache,
    );
  } catch (error) {
    if (error instanceof AgentConnectionError) return { unavailable: `${error.message} ${error.remedy}` };
    // SQL Server's refusal (a table without change tracking, say) is the answer, not an engine failure.
    const number = (error as { number?: unknown }).number;
    if (typeof number === 'number')
      return {
        unavailable: `SQL Server refused the backlog query (error ${number}): ${(error as Error).message}`,
      };
    throw error;
  }
}

/** Runs the checks, applies the fix the named check offers, and answers the checks afterwards. */
export async function applyChangeTrackingFix(
  agent: ResolvedAgent,
  entities: readonly Entity[],
  checkId: string,
): Promise<{ applied: string | null; checks: CheckResult[] }> {
  const before = await checkChangeTracking(agent, entities);
  const target = before.find((c) => c.id === checkId);
  if (!target?.fix || target.status === 'passed') return { applied: null, checks: before };
  // The statement is this engine's own, built from validated names, never text from the request.
  await withSource(agent, (source) => source.pool.request().batch(target.fix ?? '')).catch(
    (error: unknown) => {
      // SQL Server's refusal (no ALTER permission, say) is the user's to see, not an engine failure.
      const number = (error as { number?: unknown }).number;
      if (typeof number !== 'number') throw error;
      throw problem.conflict(
        `SQL Server refused the fix (error ${number}): ${(error as Error).message} A DBA can run it instead.`,
      );
    },
  );
  return { applied: target.fix, checks: await checkChangeTracking(agent, entities) };
}
