// Each drill's time budget on two cores, so CI stays under 20 minutes as drills are added: a drill
// that runs past its budget fails the run (test/setup/slowestFiles.ts says which and by how much),
// and the budgets together may take at most half of CI's 20 minutes (test/repo/testNames.unit.test.ts).
// Each about a quarter above what it took in a whole `npm test` on two cores (2026-11-27: 285 s, 55 s,
// 21 s and under 5 s), where it shares the machine with the other files.
export const DRILL_BUDGET_SECONDS: Readonly<Record<string, number>> = {
  'test/main/runner/snapshot.drill.test.ts': 360,
  'test/main/engine/checksAtScale.drill.test.ts': 75,
  'test/main/runner/crash.drill.test.ts': 45,
  'test/main/agents/postgresql/restart.drill.test.ts': 20,
  'test/main/agents/nats/cluster.drill.test.ts': 100,
};

export const CI_LIMIT_SECONDS = 20 * 60;

/**
 * What a run of a drill says about its budget: nothing when within it. `pace`: how many seconds here
 * one second of the reference machine is worth (machinePace.ts), 1 there.
 */
export function budgetProblem(file: string, seconds: number, pace = 1): string | undefined {
  if (!file.endsWith('.drill.test.ts')) return undefined;
  const budget = DRILL_BUDGET_SECONDS[file];
  if (budget === undefined) return `${file} is a drill without a budget (test/setup/drillBudgets.ts)`;
  const here = budget * pace;
  const scaled = pace === 1 ? '' : ` (${budget} s at the reference pace, ×${pace.toFixed(2)} here)`;
  if (seconds > here)
    return `${file} took ${seconds.toFixed(0)} s, past its budget of ${here.toFixed(0)} s${scaled} (test/setup/drillBudgets.ts)`;
  return undefined;
}
