// The engine's metrics for Prometheus (`GET /metrics`, text exposition format 0.0.4): what the runners
// report as they work — changes applied by operation, lag, backlog, copies' progress, retries and
// failures — kept in memory since the engine started (counters restart at 0 with it, which Prometheus
// expects of counters), and each agent's state read from the store at scrape time.
import type { BacklogFigure } from '../agents/spi';
import type { AgentState } from '../../shared/controlApi';
import type { Freshness as FreshnessFigures, StreamFigures } from '../../shared/liveFeed';
import { agentStateSchema } from '../../shared/controlApi';
import { batchFigures, finiteOrNull, type BatchLatency } from '../../shared/batchEvent';
import { Freshness, NO_BATCH_WINDOWS, type Histogram } from './freshness';

/** A backlog point as the runner reports it (null: the source cannot tell). */
type BacklogPoint = Pick<BacklogFigure, 'rowsToRead' | 'minutesLeft' | 'measuredMinutesLeft' | 'warnings'>;

interface AgentCounters {
  batches: number;
  lastBatchAt: number | null;
  lagSeconds: number | null;
  failures: number;
  retries: number;
  resnapshots: number;
  backlog: BacklogPoint | null;
  /** When the last backlog point came (seconds). */
  backlogAt: number | null;
  /**
   * When a backlog point first saw rows waiting that no batch has taken since (seconds): the oldest
   * waiting change was committed at or before it, so now minus it is how far behind, at least.
   */
  waitingSince: number | null;
  /** Per source table: changes applied by operation, and when its last batch was committed. */
  tables: Map<string, { insert: number; update: number; delete: number; lastAt: number }>;
  /** Per table being copied or copied: rows done and rows expected (null: unknown). */
  copies: Map<string, { done: number; total: number | null; finished: boolean }>;
  /** Changes applied per second, the last RATE_WINDOW_S seconds (second → changes). */
  recent: Map<number, number>;
  /** A stream target's latest figures. */
  stream: StreamFigures | null;
  /** Each batch's latency, end to end and split: the windows' quantiles and the histograms. */
  freshness: Freshness;
  /** When the newest heartbeat applied was written at the source (ms, the source's clock). */
  heartbeatAt: number | null;
}

/** The window of an agent's rate of changes applied (changes per second over the last minute). */
const RATE_WINDOW_S = 60;

/** What the home screen shows of an agent besides its state. */
export interface AgentFigures {
  /** The last batch's lag; null while idle (its lag is history, not how far behind it is now). */
  lagSeconds: number | null;
  /** Caught up and nothing new since: from the last batch (or the backlog point that said so). */
  idleSince: string | null;
  /** Rows have waited since at least then with no batch applied (see AgentCounters.waitingSince). */
  waitingSince: string | null;
  backlogRows: number | null;
  secondsLeft: number | null;
  changesPerSecond: number;
  lastBatchAt: string | null;
  /** The last backlog point's warnings before loss. */
  warnings: string[];
  /** A stream target's latest figures; null for other targets. */
  stream: StreamFigures | null;
  /** The last batch's latency by where the time went; null before one with a commit time. */
  latency: BatchLatency | null;
  /** End-to-end latency of the batches of the last minute, hour and day (since the engine started). */
  freshness: FreshnessFigures;
  /**
   * The newest heartbeat applied, its age now and its latency split; null before one (or with the
   * heartbeat off).
   */
  heartbeat: { at: string; freshToSeconds: number; latency: BatchLatency | null } | null;
}

export interface MetricsAgent {
  pipelineId: string;
  id: string;
  type: string;
  state: AgentState;
  /** Tables suspended or stopped on their own while the others go on (running pipelines). */
  tablesSuspended?: number;
  /** Rows kept in the exceptions store, per source table. */
  exceptions?: Record<string, number>;
}

export interface EngineMetrics {
  /** An event a runner reported, or the engine recorded (failed). */
  event(pipelineId: string, agentId: string, kind: string, data: object): void;
  backlog(pipelineId: string, agentId: string, point: BacklogPoint): void;
  /** A stream target's figures, told with each backlog point. */
  stream(pipelineId: string, agentId: string, figures: StreamFigures): void;
  figures(pipelineId: string, agentId: string): AgentFigures;
  /** Forgets an agent that was deleted. */
  forget(pipelineId: string, agentId: string): void;
  /** The exposition text for these agents (every agent the store holds). */
  render(agents: readonly MetricsAgent[], version: string): string;
}

export function createEngineMetrics(now: () => Date): EngineMetrics {
  const startedAt = now().getTime() / 1000;
  const agents = new Map<string, AgentCounters>();
  const key = (pipelineId: string, agentId: string) => `${pipelineId}\u0000${agentId}`;
  const countersOf = (pipelineId: string, agentId: string): AgentCounters => {
    let c = agents.get(key(pipelineId, agentId));
    if (!c) {
      c = {
        batches: 0,
        lastBatchAt: null,
        lagSeconds: null,
        failures: 0,
        retries: 0,
        resnapshots: 0,
        backlog: null,
        backlogAt: null,
        waitingSince: null,
        tables: new Map(),
        copies: new Map(),
        recent: new Map(),
        stream: null,
        freshness: new Freshness(),
        heartbeatAt: null,
      };
      agents.set(key(pipelineId, agentId), c);
    }
    return c;
  };

  return {
    event(pipelineId, agentId, kind, event) {
      const c = countersOf(pipelineId, agentId);
      const data = event as Record<string, unknown>;
      const table = typeof data.table === 'string' ? data.table : null;
      if (kind === 'batch-applied') {
        c.batches += 1;
        c.lastBatchAt = now().getTime() / 1000;
        c.waitingSince = null;
        const batch = batchFigures(data);
        const second = Math.floor(c.lastBatchAt);
        c.recent.set(second, (c.recent.get(second) ?? 0) + batch.changes);
        for (const s of c.recent.keys()) if (s <= second - RATE_WINDOW_S) c.recent.delete(s);
        if (batch.lagMs !== null) c.lagSeconds = batch.lagMs / 1000;
        if (batch.latency) c.freshness.add(c.lastBatchAt, batch.latency);
        for (const counts of batch.tables) {
          const t = c.tables.get(counts.table) ?? { insert: 0, update: 0, delete: 0, lastAt: 0 };
          t.insert += counts.inserts;
          t.update += counts.updates;
          t.delete += counts.deletes;
          t.lastAt = c.lastBatchAt;
          c.tables.set(counts.table, t);
        }
      } else if (kind === 'heartbeat-applied') {
        // Measured as a batch is: it feeds the windows while nothing else changes.
        const at = typeof data.at === 'string' ? Date.parse(data.at) : NaN;
        if (Number.isFinite(at)) c.heartbeatAt = at;
        const { latency } = batchFigures(data);
        if (latency) c.freshness.add(now().getTime() / 1000, latency, 'heartbeat');
      } else if (kind === 'failed') c.failures += 1;
      else if (kind === 'retrying') c.retries += 1;
      else if (kind === 'resnapshot') c.resnapshots += 1;
      else if (
        table &&
        (kind === 'snapshot-started' || kind === 'snapshot-resumed' || kind === 'snapshot-progress')
      )
        c.copies.set(table, {
          done: finiteOrNull(data.rowsDone) ?? 0,
          total: finiteOrNull(data.rowsTotal),
          finished: false,
        });
      else if (table && kind === 'snapshot-done')
        c.copies.set(table, {
          done: finiteOrNull(data.rows) ?? 0,
          total: finiteOrNull(data.rows),
          finished: true,
        });
      else if (table && kind === 'snapshot-cancelled') c.copies.delete(table);
    },
    backlog(pipelineId, agentId, point) {
      const c = countersOf(pipelineId, agentId);
      c.backlog = point;
      c.backlogAt = now().getTime() / 1000;
      if (!point.rowsToRead) c.waitingSince = null;
      else c.waitingSince ??= c.backlogAt;
    },
    stream(pipelineId, agentId, figures) {
      countersOf(pipelineId, agentId).stream = figures;
    },
    figures(pipelineId, agentId) {
      const c = agents.get(key(pipelineId, agentId));
      const second = Math.floor(now().getTime() / 1000);
      let changes = 0;
      for (const [s, n] of c?.recent ?? []) if (s > second - RATE_WINDOW_S) changes += n;
      const idle = c !== undefined && isIdle(c);
      const idleSince = idle ? (c.lastBatchAt ?? c.backlogAt) : null;
      return {
        lagSeconds: idle ? null : (c?.lagSeconds ?? null),
        idleSince: idleSince === null ? null : new Date(idleSince * 1000).toISOString(),
        waitingSince: c?.waitingSince == null ? null : new Date(c.waitingSince * 1000).toISOString(),
        backlogRows: c?.backlog?.rowsToRead ?? null,
        secondsLeft: c ? secondsLeft(c) : null,
        // Caught up with nothing new: no work is going on, whatever the last minute's batches moved.
        changesPerSecond: idle ? 0 : changes / RATE_WINDOW_S,
        lastBatchAt: c?.lastBatchAt == null ? null : new Date(c.lastBatchAt * 1000).toISOString(),
        warnings: c?.backlog?.warnings ?? [],
        stream: c?.stream ?? null,
        latency: c?.freshness.last ?? null,
        freshness: c ? c.freshness.windows(now().getTime() / 1000) : NO_BATCH_WINDOWS,
        heartbeat:
          c?.heartbeatAt == null
            ? null
            : {
                at: new Date(c.heartbeatAt).toISOString(),
                freshToSeconds: Math.max(0, (now().getTime() - c.heartbeatAt) / 1000),
                latency: c.freshness.lastHeartbeat,
              },
      };
    },
    forget(pipelineId, agentId) {
      agents.delete(key(pipelineId, agentId));
    },
    render(list, version) {
      const out = new Exposition();
      out.family('cdc_engine_info', 'gauge', 'The engine: its version as a label, always 1.');
      out.sample('cdc_engine_info', { version }, 1);
      out.family('cdc_engine_start_time_seconds', 'gauge', 'When the engine started, in Unix seconds.');
      out.sample('cdc_engine_start_time_seconds', {}, startedAt);
      out.family(
        'cdc_agent_state',
        'gauge',
        'Each agent’s state: 1 for the state it is in, 0 for the others (new, configured, running, paused, stopped, failed).',
      );
      for (const a of list)
        for (const state of agentStateSchema.options)
          out.sample('cdc_agent_state', { ...labels(a), state }, a.state === state ? 1 : 0);
      const per = list.map((a) => ({ a, c: agents.get(key(a.pipelineId, a.id)) }));
      // An agent's changes are its tables' changes, summed: each batch counts them per table.
      out.family('cdc_changes_applied_total', 'counter', 'Changes committed at the target, by operation.');
      for (const { a, c } of per)
        for (const operation of ['insert', 'update', 'delete'] as const) {
          let sum = 0;
          for (const t of c?.tables.values() ?? []) sum += t[operation];
          out.sample('cdc_changes_applied_total', { ...labels(a), operation }, sum);
        }
      for (const m of PER_AGENT) {
        out.family(m.name, m.type, m.help);
        for (const { a, c } of per) {
          const v = c ? m.value(c) : m.type === 'counter' ? 0 : null;
          if (v !== null) out.sample(m.name, labels(a), v);
        }
      }
      out.family(
        'cdc_freshness_seconds',
        'histogram',
        'Each batch’s latency, from its newest change’s commit at the source to its commit at the target.',
      );
      for (const { a, c } of per)
        if (c) out.histogram('cdc_freshness_seconds', labels(a), c.freshness.endToEnd);
      out.family(
        'cdc_batch_latency_seconds',
        'histogram',
        'Each batch’s latency by part: source (commit to read), engine (read to apply), target (apply to commit).',
      );
      for (const { a, c } of per)
        for (const [part, h] of Object.entries(c?.freshness.parts ?? {}))
          out.histogram('cdc_batch_latency_seconds', { ...labels(a), part }, h);
      out.family(
        'cdc_table_changes_applied_total',
        'counter',
        'Changes committed at the target per source table, by operation.',
      );
      out.family(
        'cdc_table_last_batch_applied_timestamp_seconds',
        'gauge',
        'When a batch with changes of the table was last committed at the target, in Unix seconds.',
      );
      for (const { a, c } of per)
        for (const [table, t] of c?.tables ?? []) {
          for (const operation of ['insert', 'update', 'delete'] as const)
            out.sample('cdc_table_changes_applied_total', { ...labels(a), table, operation }, t[operation]);
          out.sample('cdc_table_last_batch_applied_timestamp_seconds', { ...labels(a), table }, t.lastAt);
        }
      out.family(
        'cdc_tables_suspended',
        'gauge',
        'Tables of a running pipeline suspended or stopped on their own (their reason is in the app and the events) while its other tables go on.',
      );
      for (const a of list) out.sample('cdc_tables_suspended', labels(a), a.tablesSuspended ?? 0);
      out.family(
        'cdc_table_exceptions',
        'gauge',
        'Rows of a table the target refused, kept in the exceptions store until retried or discarded.',
      );
      for (const a of list)
        for (const [table, n] of Object.entries(a.exceptions ?? {}))
          out.sample('cdc_table_exceptions', { ...labels(a), table }, n);
      out.family('cdc_snapshot_rows_copied', 'gauge', 'Rows of a table’s copy committed at the target.');
      out.family('cdc_snapshot_rows_expected', 'gauge', 'Rows the table held when its copy began.');
      out.family('cdc_snapshot_done', 'gauge', '1 once a table’s copy is complete, 0 while it runs.');
      for (const { a, c } of per)
        for (const [table, copy] of c?.copies ?? []) {
          const l = { ...labels(a), table };
          out.sample('cdc_snapshot_rows_copied', l, copy.done);
          if (copy.total !== null) out.sample('cdc_snapshot_rows_expected', l, copy.total);
          out.sample('cdc_snapshot_done', l, copy.finished ? 1 : 0);
        }
      return out.text();
    },
  };
}

/** Time to read the backlog at the rate measured lately, else the agent type's own estimate. */
function secondsLeft(c: AgentCounters): number | null {
  const minutes = c.backlog?.measuredMinutesLeft ?? c.backlog?.minutesLeft ?? null;
  return minutes === null ? null : minutes * 60;
}

/** One series per agent: the figures that need no label of their own. */
const PER_AGENT: {
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  value: (c: AgentCounters) => number | null;
}[] = [
  {
    name: 'cdc_batches_applied_total',
    type: 'counter',
    help: 'Batches committed at the target.',
    value: (c) => c.batches,
  },
  {
    name: 'cdc_last_batch_applied_timestamp_seconds',
    type: 'gauge',
    help: 'When the last batch was committed at the target, in Unix seconds.',
    value: (c) => c.lastBatchAt,
  },
  {
    name: 'cdc_lag_seconds',
    type: 'gauge',
    help: 'The last batch’s lag: from its newest change’s commit at the source to its commit at the target; 0 while idle (caught up, nothing new at the source).',
    // An idle pipeline is not behind: its last batch's lag would keep a lag alert ringing for nothing.
    value: (c) => (isIdle(c) ? 0 : c.lagSeconds),
  },
  {
    name: 'cdc_backlog_rows',
    type: 'gauge',
    help: 'Changed rows the source holds that the pipeline has not read (absent when the source cannot tell).',
    value: (c) => c.backlog?.rowsToRead ?? null,
  },
  {
    name: 'cdc_backlog_time_left_seconds',
    type: 'gauge',
    help: 'Time to read the backlog at the rate measured lately (else the agent type’s estimate).',
    value: (c) => secondsLeft(c),
  },
  {
    name: 'cdc_retries_total',
    type: 'counter',
    help: 'Retries after a lost connection or another passing failure.',
    value: (c) => c.retries,
  },
  {
    name: 'cdc_failures_total',
    type: 'counter',
    help: 'Failures that stopped the pipeline.',
    value: (c) => c.failures,
  },
  {
    name: 'cdc_resnapshots_total',
    type: 'counter',
    help: 'Tables copied again because their stream position was lost.',
    value: (c) => c.resnapshots,
  },
];

/** Idle: the last backlog point came after the last batch and said nothing waits. */
function isIdle(c: AgentCounters): boolean {
  return c.backlog?.rowsToRead === 0 && c.backlogAt !== null && c.backlogAt >= (c.lastBatchAt ?? -Infinity);
}

const labels = (a: MetricsAgent) => ({ pipeline: a.pipelineId, agent: a.id, type: a.type });

/** The text format: HELP and TYPE before each family's samples, label values escaped. */
class Exposition {
  private lines: string[] = [];
  private families = new Map<string, string[]>();
  private order: string[] = [];

  family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
    this.order.push(name);
    this.families.set(name, [
      `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`,
      `# TYPE ${name} ${type}`,
    ]);
  }

  sample(name: string, labels: Record<string, string>, value: number): void {
    this.line(name, name, labels, value);
  }

  private line(family: string, name: string, labels: Record<string, string>, value: number): void {
    const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
    this.families
      .get(family)
      ?.push(`${name}${pairs.length ? `{${pairs.join(',')}}` : ''} ${formatValue(value)}`);
  }

  /** A histogram's series: cumulative buckets by `le`, then its sum and count. */
  histogram(name: string, labels: Record<string, string>, h: Histogram): void {
    for (const { le, count } of h.cumulative()) this.line(name, `${name}_bucket`, { ...labels, le }, count);
    this.line(name, `${name}_sum`, labels, h.sum);
    this.line(name, `${name}_count`, labels, h.count);
  }

  text(): string {
    for (const name of this.order) this.lines.push(...(this.families.get(name) ?? []));
    return `${this.lines.join('\n')}\n`;
  }
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const formatValue = (v: number) => (Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN');
