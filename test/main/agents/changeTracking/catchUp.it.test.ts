// Catching up a backlog: the pending keys of each table are taken from CHANGETABLE once and read in
// bounded batches from the reader session's temporary tables (pendingKeys.ts), so a night of backlog
// costs one pass, not one per batch. Rows changed, deleted or inserted while the catch-up runs, before
// or after the slice already read, all arrive; nothing is lost or read twice.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxSqlServer } from '../../../../simulators/mssql';
import {
  openChangeTrackingSource,
  type ChangeTrackingSource,
} from '../../../../main/agents/changeTracking/source';
import type { Checkpoint, Row } from '../../../../main/agents/source';
import { ctConfiguration, readySandbox, sandboxCredentials } from '../../../helpers/changeTracking';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let reader: ChangeTrackingSource;
const statements: string[] = [];
const tables = [
  { schema: 'dbo', table: 'Lines' },
  { schema: 'dbo', table: 'Notes' },
];
const run = (text: string) => admin.request().batch(text);
const values = (from: number, count: number, label: string) =>
  Array.from({ length: count }, (_, i) => `(${from + i}, N'${label} ${from + i}')`).join(', ');

beforeAll(async () => {
  ({ sandbox, admin } = await readySandbox(`
    CREATE TABLE dbo.Lines (Id INT PRIMARY KEY, Label NVARCHAR(40) NOT NULL);
    CREATE TABLE dbo.Notes (Id INT PRIMARY KEY, Label NVARCHAR(40) NOT NULL);
    ALTER TABLE dbo.Lines ENABLE CHANGE_TRACKING;
    ALTER TABLE dbo.Notes ENABLE CHANGE_TRACKING;`));
  reader = await openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox),
    configuration: ctConfiguration(),
    pipelineId: 'p1',
    agentId: 'src',
    trace: (s) => statements.push(s),
  });
});
afterAll(async () => {
  await reader?.close();
  await admin?.close();
  await sandbox?.close();
});

const loadsOf = (table: string) =>
  statements.filter((s) => s.includes(`FROM CHANGETABLE(CHANGES [dbo].[${table}]`)).length;

describe('catching up a backlog', () => {
  it('reads the backlog in bounded batches from one pass of CHANGETABLE, with writes during the catch-up all arriving', async () => {
    const start = (
      await admin.request().query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')
    ).recordset[0]?.v;
    // 20 transactions of 50 rows on Lines, 3 of 100 on Notes: a backlog of 1,300 changes.
    for (let t = 0; t < 20; t++) await run(`INSERT INTO dbo.Lines VALUES ${values(t * 50 + 1, 50, 'line')}`);
    for (let t = 0; t < 3; t++) await run(`INSERT INTO dbo.Notes VALUES ${values(t * 100 + 1, 100, 'note')}`);
    let checkpoint: Checkpoint = { 'dbo.Lines': String(start), 'dbo.Notes': String(start) };
    const target = new Map<string, Row>();
    const sizes: number[] = [];
    for (let batch = 0; batch < 40; batch++) {
      const read = await reader.readChanges(tables, checkpoint, { maxRows: 250 });
      expect(read.resnapshot).toEqual([]);
      for (const c of read.changes) {
        const id = `${c.table}:${String(c.key.Id)}`;
        if (c.op === 'delete') target.delete(id);
        else target.set(id, c.row ?? {});
      }
      sizes.push(read.changes.length);
      checkpoint = read.checkpoint;
      if (batch === 1)
        // Mid catch-up: a row already read, a row not read yet, a delete and a new row.
        await run(`UPDATE dbo.Lines SET Label = N'changed 3' WHERE Id = 3;
          UPDATE dbo.Lines SET Label = N'changed 990' WHERE Id = 990;
          DELETE FROM dbo.Lines WHERE Id = 995;
          INSERT INTO dbo.Notes VALUES (5000, N'late note');`);
      if (read.changes.length === 0 && batch > 2) break;
    }
    const source = new Map<string, Row>();
    for (const t of ['Lines', 'Notes']) {
      const { recordset } = await admin.request().query<Row>(`SELECT Id, Label FROM dbo.${t}`);
      for (const r of recordset) source.set(`dbo.${t}:${String(r.Id)}`, r);
    }
    expect(target.size).toBe(1_300);
    expect([...target.entries()].sort()).toEqual([...source.entries()].sort());
    expect(Math.max(...sizes)).toBeLessThanOrEqual(250);
    expect(sizes.filter((n) => n > 0).length).toBeGreaterThanOrEqual(6);
    // One pass per table for the backlog, and one more for what was written during the catch-up.
    expect(loadsOf('Lines')).toBeLessThanOrEqual(3);
    expect(loadsOf('Notes')).toBeLessThanOrEqual(3);
  });

  it('loads again from the checkpoint it is given when the runner goes back (a batch not applied)', async () => {
    const before = (
      await admin.request().query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')
    ).recordset[0]?.v;
    await run(`UPDATE dbo.Lines SET Label = N'again' WHERE Id <= 10`);
    const checkpoint: Checkpoint = { 'dbo.Lines': String(before), 'dbo.Notes': String(before) };
    const first = await reader.readChanges(tables, checkpoint, { maxRows: 250 });
    // The runner failed to apply it and asks again from the same checkpoint: the same changes.
    const again = await reader.readChanges(tables, checkpoint, { maxRows: 250 });
    expect(first.changes.map((c) => c.key.Id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1).sort(),
    );
    expect(again.changes).toEqual(first.changes);
  });
});
