// The runner inside the engine: starting a source agent starts its pipeline — the source, the
// pipeline's entities and its target (a SQLite file in the data folder when it has no target agent).
// Events go to the engine's store; a failure that cannot heal marks the agent failed with its reason.
import { problem } from '../platform/problem';
import { DEFAULT_TARGET_TYPE, pluginOf, type AgentPlugins } from '../agents/registry';
import type { AgentRuntime, ResolvedAgent, SourceOrigin, StartContext } from '../agents/spi';
import { pipelineSettings } from '../../shared/agents/common';
import type { Entity } from '../../shared/controlApi';
import { provenanceOf } from '../../shared/shaping';
import { PipelineRunner, type RunnerEntity } from './pipelineRunner';
import type { RunnerEvent } from './events';

/** The pipeline's target agent, or the registry's default target when it has none. */
function targetOf(plugins: AgentPlugins, ctx: StartContext, pipelineId: string, origin: SourceOrigin) {
  const type = ctx.target?.type ?? DEFAULT_TARGET_TYPE;
  const plugin = pluginOf(plugins, type);
  if (!plugin.target)
    throw problem.unavailable(`A ${type} agent cannot be a target of this engine's runner.`);
  return {
    ...plugin.target.open(ctx.target, { dataDir: ctx.dataDir, pipelineId, origin }),
    classifyError: plugin.classifyError,
  };
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
    // Each chunk read before its commit: for a test watching a crash, not for the event log.
    if (kind === 'snapshot-chunk-read') return;
    if (kind === 'snapshot-progress') {
      const now = Date.now();
      const done = e.rowsTotal !== null && e.rowsDone >= e.rowsTotal;
      if (!done && now - (last.get(e.table) ?? 0) < 1000) return;
      last.set(e.table, now);
    }
    report(kind, data);
  };
}

export function runnerRuntime(
  plugins: AgentPlugins,
): Pick<
  AgentRuntime,
  | 'start'
  | 'pause'
  | 'stop'
  | 'close'
  | 'snapshots'
  | 'requestSnapshot'
  | 'rewind'
  | 'retryRows'
  | 'suspendedTables'
  | 'heldTables'
  | 'verify'
  | 'verifyReport'
  | 'entitiesChanged'
> {
  const runners = new Map<string, PipelineRunner>();
  const keyOf = (a: ResolvedAgent) => `${a.pipelineId}/${a.id}`;
  return {
    start: async (agent, ctx) => {
      const running = runners.get(keyOf(agent));
      if (running) {
        running.resume();
        return;
      }
      const plugin = pluginOf(plugins, agent.type);
      const source = plugin.source;
      if (!source)
        throw problem.unavailable(`A ${agent.type} agent is a target: it cannot start a pipeline.`);
      if (ctx.entities.length === 0)
        throw problem.conflict(
          `Pipeline "${agent.pipelineId}" has no tables to replicate yet: choose them (the pipeline's Tables section in the app, or PUT …/entities) first.`,
        );
      const refused = source.refuseEntities?.(ctx.entities);
      if (refused) throw problem.conflict(refused);
      const openSource = () =>
        source.openReader(agent, { entities: ctx.entities, peerPipelines: ctx.peerPipelines });
      const target = targetOf(plugins, ctx, agent.pipelineId, source.origin(agent));
      const settings = pipelineSettings.parse(agent.configuration);

      const connections = Number(agent.hostCredentials.maxConnectionsCount) || 2;
      const runner = new PipelineRunner({
        openSource,
        openTarget: target.open,
        // Before the source or the target has opened, their plugins sort a failure.
        classifyError: (error) => plugin.classifyError?.(error) ?? target.classifyError?.(error),
        entities: runnerEntities(ctx.entities),
        provenance: provenanceOf(agent.configuration),
        ...(ctx.copyAtStart && { copyAtStart: ctx.copyAtStart }),
        ...(typeof agent.hostCredentials.maskSalt === 'string' && {
          maskSalt: agent.hostCredentials.maskSalt,
        }),
        snapshotMode: settings.snapshotMode,
        droppedColumns: settings.droppedColumns,
        onTableError: settings.onTableError,
        maxExceptions: settings.maxExceptions,
        schemaChanges: settings.schemaChanges,
        droppedTables: settings.droppedTables,
        onRowsRefused: (rows) => ctx.keepExceptions(rows),
        snapshotChunkRows: settings.snapshotChunkRows,
        // One connection stays the change stream's.
        copyConcurrency: Math.max(1, connections - 1),
        onEvent: throttled(ctx.report),
        onVerified: ctx.verified,
        onStreamFigures: ctx.streamFigures,
        onBacklog: (b) =>
          ctx.backlog({
            rowsToRead: b.rowsToRead,
            // The spec's MIN_LEFT, where the type has one (the journal agent).
            minutesLeft: b.rowsToRead !== null ? (source.minutesLeft?.(b.rowsToRead) ?? null) : null,
            versionsBehind: b.versionsBehind,
            measuredMinutesLeft: b.measuredMinutesLeft ?? null,
            // Each table's too: without them a table's backlog stayed at the last idle reading.
            ...(b.perTable && { perTable: b.perTable }),
            ...(b.warnings && { warnings: b.warnings }),
          }),
        maxRows: target.batchRows,
      });
      runners.set(keyOf(agent), runner);
      void runner.start().then(() => {
        runners.delete(keyOf(agent));
        if (runner.state === 'failed') ctx.failed(runner.failure ?? 'The pipeline failed.');
        else if (runner.stoppedAt !== null) ctx.stoppedAtPoint?.(runner.stoppedAt);
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
    snapshots: (agent) => runners.get(keyOf(agent))?.snapshots() ?? null,
    heldTables: (pipelineId, agentId) => runners.get(`${pipelineId}/${agentId}`)?.heldTables() ?? null,
    suspendedTables: (pipelineId, agentId) =>
      (runners.get(`${pipelineId}/${agentId}`)?.snapshots() ?? [])
        .filter((t) => t.status === 'suspended' || t.status === 'stopped')
        .map((t) => ({ table: t.table, reason: t.reason })),
    rewind: (agent, to) => {
      const runner = runners.get(keyOf(agent));
      if (!runner) return 'not-running';
      runner.requestRewind(to);
      return 'taken';
    },
    requestSnapshot: (agent, table, kind) => {
      const runner = runners.get(keyOf(agent));
      if (!runner) return 'not-running';
      const taken =
        kind === 'copy'
          ? runner.requestSnapshot(table)
          : kind === 'resume'
            ? runner.resumeTable(table)
            : runner.cancelSnapshot(table);
      return taken ? 'taken' : 'unknown-table';
    },
    retryRows: (agent, items) => {
      const runner = runners.get(keyOf(agent));
      // A paused pipeline would hold the answer until resumed.
      if (!runner || runner.state === 'paused') return 'not-running';
      return runner.retryRows(items);
    },
    verify: (agent, a) => {
      const runner = runners.get(keyOf(agent));
      if (!runner) return 'not-running';
      if (a.action === 'verify') return runner.requestVerify(a.table, a.options);
      if (a.action === 'repair') return runner.requestRepair();
      runner.cancelVerify();
      return runner.verifyReport();
    },
    verifyReport: (agent) => runners.get(keyOf(agent))?.verifyReport() ?? 'not-running',
    entitiesChanged: (agent, entities) => runners.get(keyOf(agent))?.setEntities(runnerEntities(entities)),
    close: async () => {
      const all = [...runners.values()];
      runners.clear();
      await Promise.all(all.map((r) => r.stop()));
    },
  };
}

const runnerEntities = (entities: readonly Entity[]): RunnerEntity[] =>
  entities.map((e) => ({
    source: e.source,
    target: e.target,
    columns: e.columns,
    ...(e.schemaChanges && { schemaChanges: e.schemaChanges }),
    ...(e.columnShaping && { columnShaping: e.columnShaping }),
    ...(e.rowFilter !== undefined && { rowFilter: e.rowFilter }),
    ...(e.skipOperations && { skipOperations: e.skipOperations }),
    ...(e.tableMode && { tableMode: e.tableMode }),
    ...(e.shard && { shard: e.shard }),
  }));
