// Verify and repair through the control API of a running engine: refused in words when the pipeline
// does not run or the request is wrong; a verify of the seed pipeline clean; a row altered at the
// target behind the engine's back found, repaired, and the reports kept with the pipeline (and still
// there after a restart of the pipeline), with the events that say so.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDiagnosticsBundle } from '../../../main/engine/diagnostics';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { differencesCsv, verifiedClean, type VerifyAnswer } from '../../../shared/verify';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { refusal, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { until } from '../../helpers/until';

let sandbox: SandboxSqlServer;
let e: RunningEngine;
const ids = { pipelineId: 'checked', agentId: 'sales' };

/** Waits for the report `asked` started to finish, and answers it. */
async function finished(asked: VerifyAnswer): Promise<VerifyAnswer> {
  const id = asked.current?.id;
  await until(
    'the verify to finish',
    async () => {
      const now = await e.client.getVerify(ids);
      return now.current?.id === id && now.current?.finishedAt !== null;
    },
    60_000,
  );
  return e.client.getVerify(ids);
}

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  e = await startTestEngine();
  await configureSeedPipeline(e.client, sandbox, ids, ['Customers', 'Orders'], { snapshotChunkRows: 200 });
});
afterAll(async () => {
  await e?.stop();
  await sandbox?.close();
});

describe('verify and repair through the control API', () => {
  it('are asked of a running pipeline only, with options in range', async () => {
    expect(await e.client.getVerify(ids)).toEqual({
      agentId: 'sales',
      running: false,
      current: null,
      history: [],
    });
    const notRunning = await refusal(e.client.requestVerify(ids, {}));
    expect(notRunning.status).toBe(409);
    expect(notRunning.message).toContain('is not running');
    const invalid = await refusal(e.client.requestVerify(ids, { chunkRows: 5 }));
    expect(invalid.status).toBe(422);
    expect(invalid.message).toMatch(/chunkRows/);
  });

  it('verifies clean, finds a row altered at the target, repairs it, and keeps the reports', async () => {
    await e.client.startAgent(ids);
    const events = async (kind: string) =>
      (await e.client.listEvents({ pipelineId: ids.pipelineId })).filter((x) => x.kind === kind);
    await until('both copies', async () => (await events('snapshot-done')).length === 2);
    const noRepair = await refusal(e.client.repairVerify(ids));
    expect(noRepair.message).toContain('verify the pipeline first');

    const clean = await finished(await e.client.requestVerify(ids, { chunkRows: 50 }));
    expect(clean.current && verifiedClean(clean.current)).toBe(true);
    expect(
      clean.current?.tables.map((t) => [t.table, t.rowsCompared > 0, t.rowsCompared === t.targetRows]),
    ).toEqual([
      ['dbo.Customers', true, true],
      ['dbo.Orders', true, true],
    ]);
    const unknown = await refusal(e.client.requestVerify(ids, { table: 'dbo.Nope' }));
    expect(unknown.message).toContain('No entity of this pipeline reads dbo.Nope');

    const db = new Database(join(e.dataDir, 'replicas', 'checked.sqlite'), { timeout: 5000 });
    db.prepare('UPDATE customers SET "Name" = ? WHERE "CustomerId" = 2').run('altered');
    db.close();
    const found = await finished(await e.client.requestVerify(ids, { table: 'dbo.Customers' }));
    expect(found.current?.tables).toHaveLength(1);
    expect(found.current?.tables[0]?.differences).toEqual([
      { kind: 'different', key: { CustomerId: '2' }, columns: ['Name'] },
    ]);
    expect(differencesCsv(found.current as NonNullable<VerifyAnswer['current']>)).toBe(
      'table,kind,key,columns\r\ndbo.Customers,different,"{""CustomerId"":""2""}",Name\r\n',
    );

    const repaired = await finished(await e.client.repairVerify(ids));
    expect(repaired.current).toMatchObject({
      kind: 'repair',
      status: 'done',
      repaired: { 'dbo.Customers': 1 },
    });
    expect(repaired.current && verifiedClean(repaired.current)).toBe(true);
    // Kept with the pipeline, newest first: the repair, the verify that found the row, the clean one.
    expect(
      repaired.history.map((r) => [r.kind, r.tables.reduce((n, t) => n + t.counts.different, 0)]),
    ).toEqual([
      ['repair', 0],
      ['verify', 1],
      ['verify', 0],
    ]);
    expect((await events('verify-finished')).map((x) => x.data.verify)).toEqual([
      'verify',
      'verify',
      'repair',
    ]);
    expect(await events('verify-repair-requested')).toHaveLength(1);
    expect((await events('verify-requested')).map((x) => x.data.table)).toEqual([null, 'dbo.Customers']);

    await e.client.stopAgent(ids);
    const stopped = await e.client.getVerify(ids);
    expect(stopped.running).toBe(false);
    expect(stopped.history).toHaveLength(3);
    // The diagnostics bundle carries them, for a look offline.
    const bundle = readDiagnosticsBundle(await e.client.createDiagnostics({}));
    expect(bundle.verify).toEqual([{ ...ids, reports: stopped.history }]);
  });
});
