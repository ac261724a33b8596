// A verify of every table of a runner that has not started, run with it until caught up, and what a
// clean one looks like: no difference in any table, every target row one the source has.
import { expect } from 'vitest';
import type { PipelineRunner } from '../../main/runner/pipelineRunner';
import { verifyRequestSchema, type VerifyReport } from '../../shared/verify';
import { until } from './until';

export async function verifyWith(runner: PipelineRunner, chunkRows = 10): Promise<VerifyReport> {
  runner.requestVerify(undefined, verifyRequestSchema.parse({ chunkRows }));
  await runner.runUntilCaughtUp();
  expect(runner.failure).toBeNull();
  const report = runner.verifyReport();
  if (!report) throw new Error('The runner kept no verify report.');
  return report;
}

export function expectClean(report: VerifyReport): void {
  expect(report.status).toBe('done');
  expect(
    report.tables.map((t) => ({ table: t.table, counts: t.counts, differences: t.differences })),
  ).toEqual(
    report.tables.map((t) => ({
      table: t.table,
      counts: { missing: 0, extra: 0, different: 0 },
      differences: [],
    })),
  );
  for (const t of report.tables) {
    expect(t.rowsCompared, t.table).toBeGreaterThan(0);
    expect(t.targetRows, t.table).toBe(t.rowsCompared);
  }
}

/** Starts a verify or repair on a running runner and waits for its report. */
export async function settled(runner: PipelineRunner, start: () => VerifyReport): Promise<VerifyReport> {
  const { id } = start();
  await until(
    `verify ${id}`,
    () => {
      const r = runner.verifyReport();
      return r?.id === id && r.finishedAt !== null;
    },
    60_000,
  );
  return runner.verifyReport() as VerifyReport;
}

export const verifyOptions = (chunkRows = 10) => verifyRequestSchema.parse({ chunkRows });
