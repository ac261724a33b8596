// `npm run bench`: every benchmark, one line per figure, and bench/results.json (not committed).
import { writeFileSync } from 'node:fs';
import { cpus, platform, totalmem } from 'node:os';
import { applyShareBenchmark } from './applyShare.bench';
import { applyStreamBenchmark } from './applyStream.bench';
import { bundleBenchmark } from './bundle.bench';
import { catchUpBenchmark } from './catchUp.bench';
import { changeTrackingBenchmark } from './changeTracking.bench';
import { checksScaleBenchmark } from './checksScale.bench';
import { configBenchmark } from './config.bench';
import { engineBenchmark } from './engine.bench';
import { fastPathBenchmark } from './fastPath.bench';
import { freshnessBenchmark } from './freshness.bench';
import { journalBenchmark } from './journal.bench';
import { loadBenchmark } from './load.bench';
import { runnerBenchmark } from './runner.bench';
import { sandboxMssqlBenchmark } from './sandboxMssql.bench';
import { snapshotBenchmark } from './snapshot.bench';
import { streamBenchmark } from './stream.bench';
import type { Benchmark, Figure } from './harness';
import { webBridgeBenchmark } from './webBridge.bench';
import { verifyBenchmark } from './verify.bench';

const benchmarks: Benchmark[] = [
  configBenchmark,
  webBridgeBenchmark,
  engineBenchmark,
  freshnessBenchmark,
  loadBenchmark,
  sandboxMssqlBenchmark,
  changeTrackingBenchmark,
  checksScaleBenchmark,
  catchUpBenchmark,
  fastPathBenchmark,
  streamBenchmark,
  applyShareBenchmark,
  applyStreamBenchmark,
  journalBenchmark,
  runnerBenchmark,
  snapshotBenchmark,
  verifyBenchmark,
  bundleBenchmark,
];
const only = process.argv[2];

const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  platform: platform(),
  node: process.version,
};
process.stdout.write(`machine: ${machine.cores} cores, ${machine.cpu}, node ${machine.node}\n`);

const results: (Figure & { benchmark: string })[] = [];
for (const benchmark of benchmarks) {
  if (only && !benchmark.name.includes(only)) continue;
  for (const figure of await benchmark.run()) {
    results.push({ benchmark: benchmark.name, ...figure });
    process.stdout.write(`${figure.name}: ${figure.value} ${figure.unit}\n`);
  }
}
writeFileSync(
  new URL('./results.json', import.meta.url),
  JSON.stringify({ measuredAt: new Date().toISOString(), machine, results }, null, 2) + '\n',
);
process.stdout.write('wrote bench/results.json\n');
