// `npx tsx bench/profile.ts <ct|journal> [changes]`: where each change's time goes end to end into
// SQLite, the simulator in the same process. The set-up (the table, the rows inserted) is left out:
// the V8 profiler runs around the runner's catch-up alone. Prints the time per change of each layer
// and the busiest functions, and writes bench/profile-<source>.cpuprofile (Chrome DevTools opens it).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { startSandboxSqlServer } from '../simulators/mssql';
import { JOURNAL_BENCH_ENTITIES, startJournalBench } from './journalSource';
import { benchRows } from './rawTargets';
import { BENCH_LOGIN, createBenchTable, insertBenchRows, openBenchSource } from './sandboxSource';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** The layer a source file belongs to, by its path: the first one found walking up a sample's stack. */
const LAYERS: [string, RegExp][] = [
  ['simulator', /main\/sandbox\//],
  ['driver (tedious, mssql)', /node_modules\/(tedious|mssql)\//],
  ['agent', /main\/agents\/(changeTracking|journal|drivers)\//],
  ['target', /main\/agents\/(sqlite|targetValues)/],
  ['runner', /main\/runner\//],
];

function summarize(profile: CpuProfile, changes: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perChange = (samples: number) =>
    `${((samples * (profile.endTime - profile.startTime)) / profile.samples.length / changes).toFixed(2)} µs`;
  const layers = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const sample of profile.samples) {
    const own = byId.get(sample);
    if (!own) continue;
    const name = own.callFrame.functionName;
    let layer = name.startsWith('(') ? name : undefined;
    for (let at: number | undefined = sample; !layer && at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)?.callFrame.url ?? '';
      layer = LAYERS.find(([, pattern]) => pattern.test(url))?.[0];
    }
    layers.set(layer ?? 'other', (layers.get(layer ?? 'other') ?? 0) + 1);
    const where = `${name || '(anonymous)'} ${own.callFrame.url.replace(/^.*\/(main|node_modules)\//, '$1/')}`;
    functions.set(where, (functions.get(where) ?? 0) + 1);
  }
  const sorted = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${perChange(v).padStart(10)}  ${k}`);
  return [
    `per change, by layer (${perChange(profile.samples.length)} in all):`,
    ...sorted(layers, 10),
    'busiest functions (own time):',
    ...sorted(functions, 15),
  ].join('\n');
}

async function profiled(catchUp: () => Promise<void>): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await catchUp();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return profile as unknown as CpuProfile;
}

const source = process.argv[2];
const changes = Number(process.argv[3] ?? 30_000);
if ((source !== 'ct' && source !== 'journal') || !Number.isInteger(changes) || changes <= 0) {
  process.stderr.write('usage: npx tsx bench/profile.ts <ct|journal> [changes, a whole number > 0]\n');
  process.exit(2);
}
const replica = join(mkdtempSync(join(tmpdir(), 'cdc-profile-')), 'replica.sqlite');
const openTarget = () => Promise.resolve(new SqliteTarget(replica, 'bench'));
const rows = benchRows(changes, '2026-01-01 10:00:00.123');
let profile: CpuProfile;
if (source === 'ct') {
  const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
  await createBenchTable(sandbox, []);
  const entities = [{ source: { schema: 'dbo', table: 'Big' }, target: { table: 'big' } }];
  const runner = () =>
    new PipelineRunner({ openSource: () => openBenchSource(sandbox), openTarget, entities });
  await runner().runUntilCaughtUp();
  const setup = await openBenchSource(sandbox);
  await insertBenchRows(setup.pool, rows);
  await setup.close();
  profile = await profiled(() => runner().runUntilCaughtUp());
  await sandbox.close();
} else {
  const bench = await startJournalBench();
  const entities = JOURNAL_BENCH_ENTITIES;
  const runner = () => new PipelineRunner({ openSource: bench.open, openTarget, entities });
  await runner().runUntilCaughtUp();
  await bench.insert(rows);
  profile = await profiled(() => runner().runUntilCaughtUp());
  await bench.close();
}
const file = new URL(`./profile-${source}.cpuprofile`, import.meta.url);
writeFileSync(file, JSON.stringify(profile));
const seconds = (profile.endTime - profile.startTime) / 1e6;
process.stdout.write(
  `${source}: ${changes} changes in ${seconds.toFixed(2)} s under the profiler (${Math.round(changes / seconds)} changes/s)\n`,
);
process.stdout.write(`${summarize(profile, changes)}\nwrote ${file.pathname}\n`);
