// The runner inside the engine: starting a source agent starts its pipeline — the source, the
// pipeline's entities and its target (a SQLite file in the data folder when it has no target agent).
// Events go to the engine's store; a failure that cannot heal marks the agent failed with its reason.
import { join } from 'node:path';
import {
  changeTrackingConfiguration,
  changeTrackingHostCredentials,
} from '../../shared/agents/changeTracking';
import {
  postgresqlConfiguration,
  postgresqlHostCredentials,
  sqliteConfiguration,
  sqliteHostCredentials,
} from '../../shared/agents/targets';
import { openPool } from '../connectors/changeTracking/connection';
import { openChangeTrackingSource } from '../connectors/changeTracking/source';
import { journalSourceOf } from '../connectors/journal/runtime';
import { minutesLeft } from '../connectors/journal/backlog';
import type { SourceAgent } from '../connectors/source';
import { MssqlTarget } from './targets/mssqlTarget';
import { problem } from '../platform/problem';
import type { AgentRuntime, ResolvedAgent, StartContext } from '../connectors/spi';
import { PipelineRunner, type RunnerEvent } from './pipelineRunner';
import { PostgresTarget } from './targets/postgresTarget';
import { SqliteTarget } from './targets/sqliteTarget';
import type { Target } from './targets/target';

/** Where a pipeline without a target agent writes. */
export const defaultReplicaPath = (dataDir: string, pipelineId: string) =>
  join(dataDir, 'replicas', `${pipelineId}.sqlite`);

function targetOf(ctx: StartContext, pipelineId: string): { open: () => Promise<Target>; batchRows: number } {
  const t = ctx.target;
  if (!t || t.type === 'sqlite') {
    const credentials = t ? sqliteHostCredentials.schema.parse(t.hostCredentials) : undefined;
    const configuration = sqliteConfiguration.schema.parse(t?.configuration ?? {});
    const path = credentials?.path ?? defaultReplicaPath(ctx.dataDir, pipelineId);
    return { open: async () => new SqliteTarget(path, pipelineId), batchRows: configuration.batchRows };
  }
  if (t.type === 'postgresql') {
    const c = postgresqlHostCredentials.schema.parse(t.hostCredentials);
    const configuration = postgresqlConfiguration.schema.parse(t.configuration);
    const options = {
      host: c.host,
      port: c.port,
      database: c.databaseName,
      user: c.username,
      password: c.password,
      schema: configuration.schema ?? 'public',
      maxConnections: c.maxConnectionsCount,
    };
    return { open: async () => new PostgresTarget(options, pipelineId), batchRows: configuration.batchRows };
  }
  if (t.type === 'change-tracking') {
    const c = changeTrackingHostCredentials.schema.parse(t.hostCredentials);
    const configuration = changeTrackingConfiguration.schema.parse(t.configuration);
    const where = `${c.host}:${c.port}/${c.databaseName}`;
    return {
      open: async () =>
        new MssqlTarget(await openPool(c), pipelineId, configuration.enableRecursionProtection, where),
      batchRows: 10_000,
    };
  }
  throw problem.unavailable(`A ${t.type} agent cannot be a target of this engine's runner yet.`);
}

function sourceOf(agent: ResolvedAgent, ctx: StartContext): () => Promise<SourceAgent> {
  if (agent.type === 'journal') return () => journalSourceOf(agent, ctx.entities);
  const credentials = changeTrackingHostCredentials.schema.parse(agent.hostCredentials);
  const configuration = changeTrackingConfiguration.schema.parse(agent.configuration);
  return () =>
    openChangeTrackingSource({
      credentials,
      configuration,
      pipelineId: agent.pipelineId,
      agentId: agent.id,
      alsoSkip: ctx.peerPipelines,
    });
}

/** Snapshot progress is kept once a second per table (and always its last page). */
function throttled(report: StartContext['report']): (e: RunnerEvent) => void {
  const last = new Map<string, number>();
  return (e) => {
    const { kind, ...data } = e;
    // The engine records its own state changes (started, paused, resumed, stopped, failed).
    if (
      kind === 'started' ||
      kind === 'paused' ||
      kind === 'resumed' ||
      kind === 'stopped' ||
      kind === 'failed'
    )
      return;
    if (kind === 'snapshot-progress') {
      const now = Date.now();
      const done = e.rowsTotal !== null && e.rowsDone >= e.rowsTotal;
      if (!done && now - (last.get(e.table) ?? 0) < 1000) return;
      last.set(e.table, now);
    }
    report(kind, data);
  };
}

export function runnerRuntime(): Pick<AgentRuntime, 'start' | 'pause' | 'stop' | 'close'> {
  const runners = new Map<string, PipelineRunner>();
  const keyOf = (a: ResolvedAgent) => `${a.pipelineId}/${a.id}`;
  return {
    start: async (agent, ctx) => {
      const running = runners.get(keyOf(agent));
      if (running) {
        running.resume();
        return;
      }
      if (agent.type !== 'change-tracking' && agent.type !== 'journal')
        throw problem.unavailable(`A ${agent.type} agent is a target: it cannot start a pipeline.`);
      if (ctx.entities.length === 0)
        throw problem.conflict(`Pipeline "${agent.pipelineId}" has no entities: PUT …/entities first.`);
      const keyless = ctx.entities.filter((e) => e.rowIdentification.kind !== 'primaryKey');
      if (agent.type === 'change-tracking' && keyless.length > 0)
        throw problem.conflict(
          `The change-tracking agent identifies rows by primary key only: ${keyless.map((e) => `${e.source.schema}.${e.source.table}`).join(', ')} ask for another row identification.`,
        );
      const openSource = sourceOf(agent, ctx);
      const target = targetOf(ctx, agent.pipelineId);
      const runner = new PipelineRunner({
        openSource,
        openTarget: target.open,
        entities: ctx.entities.map((e) => ({ source: e.source, target: e.target, columns: e.columns })),
        onEvent: throttled(ctx.report),
        onBacklog: (b) =>
          ctx.backlog({
            rowsToRead: b.rowsToRead,
            // source-agents.md's MIN_LEFT, for the journal agent only.
            minutesLeft: agent.type === 'journal' && b.rowsToRead !== null ? minutesLeft(b.rowsToRead) : null,
            versionsBehind: b.versionsBehind,
            measuredMinutesLeft: b.measuredMinutesLeft ?? null,
          }),
        maxRows: target.batchRows,
      });
      runners.set(keyOf(agent), runner);
      void runner.start().then(() => {
        runners.delete(keyOf(agent));
        if (runner.state === 'failed') ctx.failed(runner.failure ?? 'The pipeline failed.');
      });
    },
    pause: async (agent) => {
      await runners.get(keyOf(agent))?.pause();
    },
    stop: async (agent) => {
      const runner = runners.get(keyOf(agent));
      runners.delete(keyOf(agent));
      await runner?.stop();
    },
    close: async () => {
      const all = [...runners.values()];
      runners.clear();
      await Promise.all(all.map((r) => r.stop()));
    },
  };
}
