// A run's twenty slowest test files, written where the screenshots go (test/artifacts/slowest-files.txt)
// and printed, so a file that grows slow is seen in the run that made it so; a drill past its time
// budget (drillBudgets.ts) fails the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestModule } from 'vitest/node';
import { budgetProblem } from './drillBudgets';

const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));
const SHOWN = 20;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const all = modules.map((m) => ({ file: m.relativeModuleId, seconds: m.diagnostic().duration / 1000 }));
    const rows = [...all].sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    if (rows.length === 0) return;
    const text = rows.map((r) => `${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`).join('\n');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(`${ARTIFACTS}/slowest-files.txt`, `${text}\n`);
    process.stdout.write(`\nslowest test files (test/artifacts/slowest-files.txt):\n${text}\n`);
    const overruns = all.flatMap((r) => budgetProblem(r.file, r.seconds) ?? []);
    if (overruns.length === 0) return;
    process.stdout.write(`\ndrills past their budget:\n${overruns.map((o) => `  ${o}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
