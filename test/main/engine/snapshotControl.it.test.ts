// Table copies through the control API of a running engine: the copies listed with their progress, a
// re-snapshot of one table on request, a table added to a running pipeline copied alone, a copy
// cancelled half way while the other tables keep streaming, and the refusals in words.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTables } from '../../../main/agents/drivers/mssql/shape';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { join } from 'node:path';
import { refusal, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sourceReplica, sqliteReplica } from '../../helpers/replica';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';
import { configureSeedPipeline } from '../../helpers/changeTracking';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;
const ids = { pipelineId: 'copies', agentId: 'sales' };
const BIG = 30_000;

const entity = (table: string) => ({
  source: { schema: 'dbo', table },
  target: { table: table.toLowerCase() },
});
const events = async (kind: string) =>
  (await e.client.listEvents({ pipelineId: ids.pipelineId })).filter((x) => x.kind === kind);

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  await admin.request().batch(`CREATE TABLE dbo.Audit (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
    ALTER TABLE dbo.Audit ENABLE CHANGE_TRACKING;`);
  for (let from = 0; from < BIG; from += 1000) {
    const values = Array.from({ length: 1000 }, (_, i) => `(${from + i}, N'audit ${from + i}')`).join(', ');
    await admin.request().batch(`INSERT INTO dbo.Audit VALUES ${values}`);
  }
  e = await startTestEngine();
  await configureSeedPipeline(e.client, sandbox, ids, ['Customers', 'Orders'], { snapshotChunkRows: 100 });
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

describe('table copies through the control API', () => {
  it('are asked of a running pipeline only, for a table an entity reads', async () => {
    expect(await e.client.listSnapshots(ids)).toEqual({ agentId: 'sales', running: false, tables: [] });
    const notRunning = await refusal(e.client.requestSnapshot(ids, { table: 'dbo.Customers' }));
    expect(notRunning.status).toBe(409);
    expect(notRunning.message).toContain('is not running');
    const invalid = await refusal(e.client.requestSnapshot(ids, { table: '' }));
    expect(invalid.status).toBe(422);
  });

  it('lists each copy with its progress, copies one table again on request, and still equals the source', async () => {
    await e.client.startAgent(ids);
    await until('both first copies', async () => (await events('snapshot-done')).length === 2);
    const listed = await e.client.listSnapshots(ids);
    expect(listed.running).toBe(true);
    expect(listed.tables.map((t) => [t.table, t.status, t.rowsDone === t.rowsTotal])).toEqual([
      ['dbo.Customers', 'done', true],
      ['dbo.Orders', 'done', true],
    ]);
    const unknown = await refusal(e.client.requestSnapshot(ids, { table: 'dbo.Nope' }));
    expect(unknown.message).toContain('No entity of pipeline "copies" reads dbo.Nope');

    await admin.request().batch("UPDATE dbo.Customers SET Country = 'FR' WHERE CustomerId = 1");
    const asked = await e.client.requestSnapshot(ids, { table: 'dbo.Customers' });
    expect(asked.running).toBe(true);
    await until('the second copy of dbo.Customers', async () => (await events('snapshot-done')).length === 3);
    const started = await events('snapshot-started');
    expect(started.at(-1)?.data).toMatchObject({ table: 'dbo.Customers', reason: 'asked for by hand' });
    expect((await events('snapshot-copy-requested')).map((x) => x.data)).toEqual([
      { table: 'dbo.Customers' },
    ]);
    const [shape] = await describeTables(admin, [{ schema: 'dbo', table: 'Customers' }]);
    if (!shape) throw new Error('no shape');
    const path = join(e.dataDir, 'replicas', 'copies.sqlite');
    await until(
      'the copy to equal the source',
      async () =>
        sqliteReplica(path, 'customers', shape).checksum === (await sourceReplica(admin, shape)).checksum,
    );
  });

  it('copies a table added while running alone, and cancels it half way while the others stream on', async () => {
    const before = (await events('snapshot-started')).length;
    await e.client.putEntities(ids, { entities: [entity('Customers'), entity('Orders'), entity('Audit')] });
    const auditCopy = async () =>
      (await e.client.listSnapshots(ids)).tables.find((t) => t.table === 'dbo.Audit');
    await until('the copy of dbo.Audit to be under way', async () => {
      const audit = await auditCopy();
      return audit?.status === 'copying' && audit.rowsDone > 0 && audit.rowsPerSecond !== null;
    });
    const copying = await auditCopy();
    expect(copying).toMatchObject({ rowsTotal: BIG, reason: expect.stringContaining('dbo.Audit') });
    expect(copying?.rowsPerSecond).toBeGreaterThan(0);
    expect(copying?.secondsLeft).toBeGreaterThanOrEqual(0);
    // Only the added table was copied.
    expect((await events('snapshot-started')).slice(before).map((x) => x.data.table)).toEqual(['dbo.Audit']);

    const cancelled = await e.client.cancelSnapshot(ids, { table: 'dbo.Audit' });
    expect(cancelled.running).toBe(true);
    await until('the cancel', async () => (await events('snapshot-cancelled')).length === 1);
    const [audit] = (await e.client.listSnapshots(ids)).tables.filter((t) => t.table === 'dbo.Audit');
    expect(audit?.status).toBe('cancelled');
    expect(audit?.rowsDone).toBeLessThan(BIG);
    const again = await refusal(e.client.cancelSnapshot(ids, { table: 'dbo.Audit' }));
    expect(again.message).toContain('is not being copied');

    // The other tables keep streaming.
    const applied = (await events('batch-applied')).length;
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'IT' WHERE CustomerId = 1");
    await until('the change after the cancel', async () => (await events('batch-applied')).length > applied);
    await e.client.stopAgent(ids);
  });
});
