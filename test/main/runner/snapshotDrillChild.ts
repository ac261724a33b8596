// The runner in a process of its own, for the snapshot drill: one big table from the simulated SQL
// Server (over TDS) or the simulated IBM i (kept by the test process, reached over the IPC channel)
// into SQLite or PostgreSQL. Each event is printed as a line of JSON until the process is killed
// (or, with `untilCaughtUp`, until the source has nothing more to give).
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { openJournalSource } from '../../../main/agents/journal/source';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import type { SourceAgent } from '../../../main/agents/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { Target } from '../../../main/agents/target';
import { seedAgentCredentials } from '../../../simulators/ibmi/seed';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { ctConfiguration } from '../../helpers/changeTracking';
import { journalConfiguration } from '../../helpers/journal';
import { reachParentIbmi } from '../../helpers/remoteIbmi';
import { POSTGRES } from '../../helpers/replica';

export interface DrillChildOptions {
  source: { kind: 'change-tracking'; port: number } | { kind: 'journal'; host: string };
  target: { kind: 'sqlite'; path: string } | { kind: 'postgresql'; schema: string };
  table: { schema: string; table: string };
  chunkRows: number;
  untilCaughtUp?: boolean;
  /**
   * Where the process kills itself with SIGKILL: right after the n-th event of a kind (before anything
   * else runs), `delayMs` after it, or `delayMs` after the start. Exact, unlike a kill from outside.
   * `atMostChunks`: a kill timed from the start comes no later than right after that many chunk
   * reads, so a fast copy still needs every round of a drill.
   */
  kill?: { after?: { kind: string; count: number }; delayMs: number; atMostChunks?: number };
}

const o = JSON.parse(process.argv[2] ?? '{}') as DrillChildOptions;
const pipelineId = 'drill';

function openSource(): Promise<SourceAgent> {
  if (o.source.kind === 'journal') {
    return openJournalSource({
      credentials: seedAgentCredentials(o.source.host),
      configuration: journalConfiguration(),
      pipelineId,
      agentId: 'src',
    });
  }
  return openChangeTrackingSource({
    credentials: {
      connectionName: 'drill',
      host: '127.0.0.1',
      port: o.source.port,
      databaseName: 'Sales',
      username: 'dba',
      password: 'Dba-Pa55',
      maxConnectionsCount: 2,
      enableTls: false,
    },
    configuration: ctConfiguration(),
    pipelineId,
    agentId: 'src',
  });
}

const openTarget = async (): Promise<Target> =>
  o.target.kind === 'sqlite'
    ? new SqliteTarget(o.target.path, pipelineId)
    : new PostgresTarget({ ...POSTGRES, schema: o.target.schema }, pipelineId);

if (o.source.kind === 'journal') reachParentIbmi(o.source.host);
let remaining = o.kill?.after?.count ?? 0;
let chunksLeft = o.kill?.atMostChunks ?? Infinity;
const killNow = () => process.kill(process.pid, 'SIGKILL');
const killLater = (ms: number) => (ms <= 0 ? killNow() : setTimeout(killNow, ms));
if (o.kill && !o.kill.after) killLater(o.kill.delayMs);
const runner = new PipelineRunner({
  openSource,
  openTarget,
  entities: [{ source: o.table, target: { table: o.table.table.toLowerCase() } }],
  onEvent: (e) => {
    process.stdout.write(`${JSON.stringify(e)}\n`);
    if (o.kill?.after && e.kind === o.kill.after.kind && --remaining === 0) killLater(o.kill.delayMs);
    if (e.kind === 'snapshot-chunk-read' && --chunksLeft <= 0) killNow();
    // A copy that ends before the planned point: the process dies there, so no round outlives it.
    if (o.kill && e.kind === 'snapshot-done') killNow();
  },
  idleMs: 20,
  maxRows: 2000,
  snapshotChunkRows: o.chunkRows,
  retry: { firstDelayMs: 20, maxDelayMs: 200, maxAttempts: 20 },
});
process.stdout.write('{"kind":"ready"}\n');
await (o.untilCaughtUp ? runner.runUntilCaughtUp() : runner.start());
process.exit(runner.state === 'failed' ? 1 : 0);
