// Tests are filed by subject (test/ mirrors the source folders; each simulator keeps its own) and named
// by tier, one scheme everywhere: unit (one module, in process), it (real servers, databases, sockets,
// child processes), e2e (a browser, Electron or the built bundle) and drill (kills, restarts, scale).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { budgetProblem, CI_LIMIT_SECONDS, DRILL_BUDGET_SECONDS } from '../setup/drillBudgets';
import { anchorMs, paceFactor } from '../setup/machinePace';

const root = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'artifacts') return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(name) ? [relative(root, path).split('\\').join('/')] : [];
  });
}

const files = [...testFiles(join(root, 'test')), ...testFiles(join(root, 'simulators'))];
const TIERED = /\.(unit|it|e2e|drill)\.test\.tsx?$/;

describe('test files', () => {
  it('each say their tier in their name', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !TIERED.test(f))).toEqual([]);
  });

  it('sit beside their simulator or under a folder that mirrors the source', () => {
    const areas = /^(test\/(main|renderer|shared|lib|repo|setup|bundle)\/|simulators\/(mssql|ibmi)\/test\/)/;
    expect(files.filter((f) => !areas.test(f))).toEqual([]);
  });

  it('give every drill a budget, the budgets within half of CI', () => {
    const drills = files.filter((f) => f.endsWith('.drill.test.ts'));
    expect(drills.sort()).toEqual(Object.keys(DRILL_BUDGET_SECONDS).sort());
    const total = Object.values(DRILL_BUDGET_SECONDS).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(CI_LIMIT_SECONDS / 2);
  });

  it('fail a drill past its budget, and one without a budget', () => {
    expect(budgetProblem('test/main/runner/crash.drill.test.ts', 10)).toBeUndefined();
    expect(budgetProblem('test/main/runner/crash.drill.test.ts', 46)).toMatch(
      /took 46 s, past its budget of 45 s/,
    );
    expect(budgetProblem('test/main/new.drill.test.ts', 1)).toMatch(/drill without a budget/);
    // On a machine 1.2 times slower than the reference, the 45 s budget is 54 s.
    expect(budgetProblem('test/main/runner/crash.drill.test.ts', 50, 1.2)).toBeUndefined();
    expect(budgetProblem('test/main/runner/crash.drill.test.ts', 60, 1.2)).toMatch(
      /took 60 s, past its budget of 54 s \(45 s at the reference pace, ×1\.20 here\)/,
    );
  });

  it('scale the budgets by how much slower than the reference this machine runs the anchor, never below it', () => {
    expect(paceFactor(80, 40)).toBe(2);
    expect(paceFactor(20, 40)).toBe(1);
    expect(paceFactor(null, 40)).toBe(1);
    expect(anchorMs()).toBeGreaterThan(0);
    expect(budgetProblem('test/main/engine/engine.it.test.ts', 900)).toBeUndefined();
  });
});
