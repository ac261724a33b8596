// A run's twenty slowest test files, written where the screenshots go (test/artifacts/slowest-files.txt)
// and printed, so a file that grows slow is seen in the run that made it so; a drill past its time
// budget (drillBudgets.ts) fails the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestModule } from 'vitest/node';
import { budgetProblem } from './drillBudgets';
import { paceFactor, REFERENCE_SAMPLE_MS, samplePace, type PaceSampler } from './machinePace';

const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));
const SHOWN = 20;

export default class SlowestFiles implements Reporter {
  private pace: PaceSampler | null = null;

  onInit(): void {
    this.pace = samplePace();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    this.pace?.stop();
    const median = this.pace?.median() ?? null;
    const pace = paceFactor(median);
    const all = modules.map((m) => ({ file: m.relativeModuleId, seconds: m.diagnostic().duration / 1000 }));
    const rows = [...all].sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    if (rows.length === 0) return;
    const text = rows.map((r) => `${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`).join('\n');
    mkdirSync(ARTIFACTS, { recursive: true });
    const paceLine = `machine pace: the anchor's median ${median?.toFixed(1) ?? '?'} ms against ${REFERENCE_SAMPLE_MS} ms on the reference machine, drill budgets ×${pace.toFixed(2)}`;
    writeFileSync(`${ARTIFACTS}/slowest-files.txt`, `${text}\n${paceLine}\n`);
    process.stdout.write(`\nslowest test files (test/artifacts/slowest-files.txt):\n${text}\n${paceLine}\n`);
    const overruns = all.flatMap((r) => budgetProblem(r.file, r.seconds, pace) ?? []);
    if (overruns.length === 0) return;
    process.stdout.write(`\ndrills past their budget:\n${overruns.map((o) => `  ${o}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
