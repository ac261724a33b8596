// Rows kept aside and suspended tables through a running engine's control API (issue 40): a row the
// replica refuses is kept and counted (list, overview, /metrics, a masked diagnostics bundle), retried
// after the cause is fixed, discarded; a table the replica refuses whole is suspended, shown as such,
// and resumed at its position; the rows go with their pipeline.
import Database from 'better-sqlite3';
import type sql from 'mssql';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { refusal, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;
const ids = { pipelineId: 'kept', agentId: 'sales' };

const replica = () => new Database(join(e.dataDir, 'replicas', 'kept.sqlite'), { timeout: 5000 });
const onReplica = (statements: string) => {
  const db = replica();
  db.exec(statements);
  db.close();
};
const replicaRow = (id: number) => {
  const db = replica();
  const row = db.prepare('SELECT Country FROM customers WHERE CustomerId = ?').get(id) as
    { Country: string } | undefined;
  db.close();
  return row?.Country;
};
const REFUSE_ZZ = `CREATE TRIGGER refuse_zz BEFORE UPDATE ON customers WHEN NEW.Country = 'ZZ'
  BEGIN SELECT RAISE(ABORT, 'refused: no such country'); END;`;
const kinds = async () => (await e.client.listEvents({ pipelineId: ids.pipelineId })).map((x) => x.kind);
const status = async () => {
  const { pipelines } = await e.client.getOverview({});
  return pipelines.find((p) => p.id === ids.pipelineId)?.agents.find((a) => a.id === ids.agentId)?.status;
};

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  e = await startTestEngine();
  await configureSeedPipeline(e.client, sandbox, ids, ['Customers', 'Orders']);
  await e.client.startAgent(ids);
  await until(
    'both first copies',
    async () => (await kinds()).filter((k) => k === 'snapshot-done').length === 2,
  );
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

describe('rows kept aside, through the control API', () => {
  it('are kept with their reason, counted everywhere, masked in diagnostics', async () => {
    onReplica(REFUSE_ZZ);
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'ZZ' WHERE CustomerId = 1");
    await until('the row kept', async () => (await e.client.listExceptions(ids, {})).rows.length === 1);
    const { counts, rows } = await e.client.listExceptions(ids, { table: 'dbo.Customers' });
    expect(counts).toEqual({ 'dbo.Customers': 1 });
    expect(rows[0]).toMatchObject({
      table: 'dbo.Customers',
      op: 'update',
      key: { CustomerId: 1 },
      values: { CustomerId: 1, Country: 'ZZ' },
      error: expect.stringContaining('refused: no such country'),
      attempts: 1,
    });
    expect(replicaRow(1)).not.toBe('ZZ');
    expect(await kinds()).toContain('rows-refused');
    expect(await status()).toMatchObject({
      state: 'running',
      tableCount: 2,
      tablesSuspended: [],
      exceptions: 1,
    });
    const metrics = await e.client.getMetrics({});
    expect(new TextDecoder().decode(metrics)).toMatch(
      /cdc_table_exceptions\{pipeline="kept",agent="sales",type="change-tracking",table="dbo.Customers"\} 1/,
    );
    const bundle = unzipSync(await e.client.createDiagnostics({}));
    const kept = JSON.parse(strFromU8(bundle['exceptions.json'] ?? new Uint8Array())) as {
      counts: Record<string, number>;
      rows: { key: object; values: object; error: string }[];
    }[];
    expect(kept[0]?.counts).toEqual({ 'dbo.Customers': 1 });
    expect(kept[0]?.rows[0]?.key).toEqual({ CustomerId: '***' });
    expect(Object.values(kept[0]?.rows[0]?.values ?? {}).every((v) => v === '***')).toBe(true);
  });

  it('are retried from the source, refused again until the cause is fixed, then applied', async () => {
    const again = await e.client.retryExceptions(ids, { table: 'dbo.Customers' });
    expect(again).toMatchObject({ applied: 0, refusedAgain: 1 });
    expect(again.rows[0]?.attempts).toBe(2);
    onReplica('DROP TRIGGER refuse_zz');
    const done = await e.client.retryExceptions(ids, {});
    expect(done).toMatchObject({ applied: 1, refusedAgain: 0, counts: {}, rows: [] });
    expect(replicaRow(1)).toBe('ZZ');
    expect(await kinds()).toContain('exceptions-retried');
  });

  it('are discarded by hand, and refused requests say why', async () => {
    onReplica(REFUSE_ZZ);
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'ZZ' WHERE CustomerId = 2");
    await until('the row kept', async () => (await e.client.listExceptions(ids, {})).rows.length === 1);
    const invalid = await refusal(e.client.discardExceptions(ids, { ids: [0] }));
    expect(invalid.status).toBe(422);
    expect((await e.client.discardExceptions(ids, { table: 'dbo.Customers' })).discarded).toBe(1);
    expect((await e.client.listExceptions(ids, {})).counts).toEqual({});
    onReplica('DROP TRIGGER refuse_zz');
  });
});

describe('a table the target refuses whole', () => {
  it('is suspended and shown so, the others go on, and resumes at its position', async () => {
    onReplica('ALTER TABLE customers RENAME TO customers_away');
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'SE' WHERE CustomerId = 3");
    await until('the table suspended', async () => (await status())?.tablesSuspended?.length === 1);
    const shown = await status();
    expect(shown?.tablesSuspended?.[0]).toMatchObject({
      table: 'dbo.Customers',
      reason: expect.stringMatching(/^dbo\.Customers was suspended: .*no such table/),
    });
    expect(shown?.state).toBe('running');
    expect((await e.client.listSnapshots(ids)).tables.find((t) => t.table === 'dbo.Customers')?.status).toBe(
      'suspended',
    );
    expect(new TextDecoder().decode(await e.client.getMetrics({}))).toMatch(
      /cdc_tables_suspended\{pipeline="kept",agent="sales",type="change-tracking"\} 1/,
    );
    // Changes wait at its position meanwhile.
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'NO' WHERE CustomerId = 4");
    onReplica('ALTER TABLE customers_away RENAME TO customers');
    const unknown = await refusal(e.client.resumeTable(ids, { table: 'dbo.Orders' }));
    expect(unknown.message).toContain('dbo.Orders is not suspended or stopped');
    await e.client.resumeTable(ids, { table: 'dbo.Customers' });
    await until('the changes made meanwhile', () => replicaRow(3) === 'SE' && replicaRow(4) === 'NO');
    expect(await kinds()).toEqual(
      expect.arrayContaining(['table-suspended', 'snapshot-resume-requested', 'table-resumed']),
    );
    expect((await status())?.tablesSuspended).toEqual([]);
  });

  it('keeps nothing of a deleted pipeline', async () => {
    onReplica(REFUSE_ZZ);
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'ZZ' WHERE CustomerId = 3");
    await until('the row kept', async () => (await e.client.listExceptions(ids, {})).rows.length === 1);
    await e.client.stopAgent(ids);
    await e.client.deletePipeline({ pipelineId: ids.pipelineId });
    expect(e.engine.deps.exceptions.counts(ids.pipelineId, ids.agentId)).toEqual({});
  });
});
