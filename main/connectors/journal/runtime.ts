// The journal agent inside the engine: checks (sign-on first, in plain words), the backlog by the
// spec's query on the checkpoint table, and the journaling fix a check offers, applied on request.
import {
  journalConfiguration,
  journalHostCredentials,
  type JournalConfiguration,
  type JournalHostCredentials,
} from '../../../shared/agents/journal';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import type { BacklogFigure, ResolvedAgent } from '../spi';
import { problem } from '../../platform/problem';
import { IbmiError } from '../drivers/ibmi/connection';
import { AgentConnectionError } from './connection';
import { openJournalSource, type JournalSource } from './source';
import { backlogQuery } from './backlog';
import { journalTables } from './tables';
import { withAgentSource, type SourceCache } from '../sourceCache';

function settingsOf(agent: ResolvedAgent): {
  credentials: JournalHostCredentials;
  configuration: JournalConfiguration;
} {
  return {
    credentials: journalHostCredentials.schema.parse(agent.hostCredentials),
    configuration: journalConfiguration.schema.parse(agent.configuration),
  };
}

const credentialsOf = (agent: ResolvedAgent) => settingsOf(agent).credentials.username.toUpperCase();

export const journalSourceOf = (agent: ResolvedAgent, entities: readonly Entity[]) =>
  openJournalSource({ ...settingsOf(agent), pipelineId: agent.pipelineId, agentId: agent.id, entities });

/** Runs `work` on a source of its own, or on the agent's kept-open one when a cache is given. */
const withSource = <T>(
  agent: ResolvedAgent,
  entities: readonly Entity[],
  work: (source: JournalSource) => Promise<T>,
  cache?: SourceCache<JournalSource>,
): Promise<T> =>
  withAgentSource(
    agent,
    [agent.type, agent.hostCredentials, agent.configuration, entities],
    () => journalSourceOf(agent, entities),
    work,
    cache,
  );

export async function checkJournal(
  agent: ResolvedAgent,
  entities: readonly Entity[],
): Promise<CheckResult[]> {
  const { credentials } = settingsOf(agent);
  try {
    return await withSource(agent, entities, async (source) => [
      {
        id: 'connection',
        status: 'passed',
        message: `Signed on as ${credentials.username.toUpperCase()} to ${credentials.host}.`,
        remedy: null,
      },
      ...(await source.check(entities)),
    ]);
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return [{ id: 'connection', status: 'failed', message: error.message, remedy: error.remedy }];
  }
}

export const journalTableStates = (
  agent: ResolvedAgent,
  entities: readonly Entity[],
  cache?: SourceCache<JournalSource>,
) => withSource(agent, entities, (source) => journalTables(source.c, entities), cache);

export async function journalBacklog(
  agent: ResolvedAgent,
  entities: readonly Entity[],
  cache?: SourceCache<JournalSource>,
): Promise<BacklogFigure | { unavailable: string }> {
  try {
    return await withSource(
      agent,
      entities,
      async (source) => {
        const checkpoint = await source.loadCheckpoint();
        if (Object.keys(checkpoint).length === 0)
          return { unavailable: 'No checkpoint at the source yet: the agent has not finished a snapshot.' };
        return backlogQuery(source.c, source.sync);
      },
      cache,
    );
  } catch (error) {
    if (error instanceof AgentConnectionError) return { unavailable: `${error.message} ${error.remedy}` };
    // IBM i's refusal (no authority to the checkpoint table, say) is the answer, not an engine failure.
    if (error instanceof IbmiError)
      return { unavailable: `IBM i refused the backlog query: ${error.message}` };
    throw error;
  }
}

/** Runs the checks, applies the journaling commands the check offers, and answers the checks afterwards. */
export async function applyJournalFix(
  agent: ResolvedAgent,
  entities: readonly Entity[],
  checkId: string,
): Promise<{ applied: string | null; checks: CheckResult[] }> {
  if (checkId !== 'journaling')
    throw problem.notFound(`No fix for "${checkId}": this engine applies journaling (STRJRNPF, CHGJRNOBJ).`);
  const before = await checkJournal(agent, entities);
  const target = before.find((c) => c.id === checkId);
  if (!target?.fix || target.status === 'passed') return { applied: null, checks: before };
  // The commands are this engine's own, built from validated names, never text from the request.
  const fix = target.fix;
  await withSource(agent, entities, async (source) => {
    for (const command of fix.split('\n'))
      await source.c.command(command).catch((error: unknown) => {
        if (!(error instanceof IbmiError)) throw error;
        throw problem.conflict(
          `IBM i refused ${command} for ${credentialsOf(agent)}: ${error.message} A security officer can run it instead.`,
        );
      });
  });
  return { applied: fix, checks: await checkJournal(agent, entities) };
}
