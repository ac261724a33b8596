// The contract every source agent passes (as Debezium runs every connector through one suite):
// connect, check, snapshot, change stream, checkpoint, resume. A harness gives the suite a source it
// may change; the suite only speaks the SourceAgent interface.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { Change, Row, SourceAgent, TableRef } from '../../../../main/agents/source';
import { readWhole, tableKey } from '../../../../main/agents/source';

/** The suite's table: a key `id`, a text `name` and a decimal(12,2) `amount`. */
export interface ContractRow {
  id: number;
  name: string;
  amount: string;
}

export interface SourceHarness {
  /** A new empty table with the suite's columns, ready for the agent (tracked, journaled…). */
  createTable(name: string): Promise<TableRef>;
  insert(table: TableRef, rows: ContractRow[]): Promise<void>;
  update(table: TableRef, id: number, name: string): Promise<void>;
  remove(table: TableRef, id: number): Promise<void>;
  /** Inserts the rows in one transaction of the source (commitment control, BEGIN TRAN…COMMIT). */
  insertTogether(table: TableRef, rows: ContractRow[]): Promise<void>;
  /** Whether the source keeps a row as it was before a change (the journal with IMAGES(*BOTH)). */
  beforeImages: boolean;
  /** Schema changes at the source: a nullable text column `note` added, a column dropped, the table dropped. */
  addNoteColumn(table: TableRef): Promise<void>;
  dropColumn(table: TableRef, column: 'amount'): Promise<void>;
  dropTable(table: TableRef): Promise<void>;
  /** Takes the agent's authority to read the table away (DENY SELECT, RVKOBJAUT), and gives it back. */
  revokeRead(table: TableRef): Promise<void>;
  grantRead(table: TableRef): Promise<void>;
  /** A new agent with its own connection, the same identity each time (so a checkpoint resumes). */
  open(): Promise<SourceAgent>;
  entity(table: TableRef): Entity;
  /** The row as the suite compares it, whatever types the agent's driver gives. */
  normalize(row: Row): ContractRow;
  close(): Promise<void>;
}

const ROWS: ContractRow[] = [
  { id: 1, name: 'alpha', amount: '10.50' },
  { id: 2, name: 'beta', amount: '0.00' },
  { id: 3, name: 'gamma', amount: '-7.25' },
];

export function sourceAgentContract(label: string, makeHarness: () => Promise<SourceHarness>): void {
  describe(`source agent contract: ${label}`, () => {
    let h: SourceHarness;
    const agents: SourceAgent[] = [];
    const open = async () => {
      const a = await h.open();
      agents.push(a);
      return a;
    };
    const byId = (a: ContractRow, b: ContractRow) => a.id - b.id;
    // Agents name key columns as their catalogue does (id, ID …).
    const idOf = (key: Row) => Number(Object.entries(key).find(([k]) => k.toLowerCase() === 'id')?.[1]);
    const summary = (changes: Change[]) =>
      changes.map((c) => ({ op: c.op, id: idOf(c.key), name: c.row ? h.normalize(c.row).name : null }));

    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => {
      for (const a of agents) await a.close().catch(() => undefined);
      await h?.close();
    });

    it('connects and passes its checks on a table made ready for it', async () => {
      const table = await h.createTable('contract_check');
      const agent = await open();
      const checks = await agent.check([h.entity(table)]);
      expect(checks.filter((c) => c.status === 'failed')).toEqual([]);
      const [shape] = await agent.describe([table]);
      expect(shape?.columns.map((c) => c.name.toLowerCase())).toEqual(['id', 'name', 'amount']);
      expect(shape?.key.map((k) => k.toLowerCase())).toEqual(['id']);
    });

    it('snapshots a table whole, in pages, and answers the position its changes start from', async () => {
      const table = await h.createTable('contract_snapshot');
      await h.insert(table, ROWS);
      const agent = await open();
      const pages: Row[][] = [];
      const { position, rows } = await readWhole(agent, table, async (page) => void pages.push(page), {
        snapshotChunkRows: 2,
      });
      expect(rows).toBe(3);
      expect(pages.map((p) => p.length)).toEqual([2, 1]);
      expect(
        pages
          .flat()
          .map((r) => h.normalize(r))
          .sort(byId),
      ).toEqual(ROWS);
      expect(position).toMatch(/\S/);
    });

    it('reads chunks in key order after a cursor, each row once, and says where the table ends', async () => {
      const table = await h.createTable('contract_chunks');
      await h.insert(table, ROWS);
      const agent = await open();
      const first = await agent.readChunk(table, null, 2);
      expect(first.rows.map((r) => h.normalize(r).id)).toEqual([1, 2]);
      expect(first.next).not.toBeNull();
      // A row deleted behind the cursor: the next chunk starts where the last ended, and is the last.
      await h.remove(table, 1);
      const second = await agent.readChunk(table, first.next, 2);
      expect(second).toEqual({ rows: [expect.anything()], next: null });
      expect(h.normalize(second.rows[0] as Row).id).toBe(3);
      const whole = await agent.readChunk(table, null, 10);
      expect(whole.rows.map((r) => h.normalize(r).id)).toEqual([2, 3]);
      expect(whole.next).toBeNull();
    });

    it('reads rows by key as they are now, as readChunk gives them; a key without a row is left out', async () => {
      const table = await h.createTable('contract_rows');
      await h.insert(table, ROWS);
      const agent = await open();
      const { rows } = await agent.readChunk(table, null, 10);
      const [shape] = await agent.describe([table]);
      const keyOf = (r: Row) => Object.fromEntries((shape?.key ?? []).map((k) => [k, r[k] ?? null]));
      await h.update(table, 3, 'gamma now');
      await h.remove(table, 2);
      const again = await agent.readRows(table, rows.map(keyOf));
      expect(again.map((r) => h.normalize(r)).sort(byId)).toEqual([
        ROWS[0],
        { ...ROWS[2], name: 'gamma now' },
      ]);
      // The same form as a chunk gives: the unchanged row is equal value for value.
      expect(again.find((r) => h.normalize(r).id === 1)).toEqual(rows[0]);
      expect(await agent.readRows(table, [])).toEqual([]);
    });

    it('streams inserts, updates and deletes after the snapshot, in source order, then nothing more', async () => {
      const table = await h.createTable('contract_stream');
      await h.insert(table, ROWS);
      const agent = await open();
      const { position } = await readWhole(agent, table, async () => undefined);
      await h.insert(table, [{ id: 4, name: 'delta', amount: '1.00' }]);
      await h.update(table, 1, 'alpha2');
      await h.remove(table, 2);
      const batch = await agent.readChanges([table], { [tableKey(table)]: position });
      expect(batch.resnapshot).toEqual([]);
      expect(summary(batch.changes)).toEqual([
        { op: 'insert', id: 4, name: 'delta' },
        { op: 'update', id: 1, name: 'alpha2' },
        { op: 'delete', id: 2, name: null },
      ]);
      const again = await agent.readChanges([table], batch.checkpoint);
      expect(again.changes).toEqual([]);
    });

    it('tells what a broker needs: the transaction, its commit time, and the old row where kept', async () => {
      const table = await h.createTable('contract_envelope');
      await h.insert(table, ROWS);
      const agent = await open();
      const { position } = await readWhole(agent, table, async () => undefined);
      const started = Date.now();
      await h.insertTogether(table, [
        { id: 4, name: 'delta', amount: '1.00' },
        { id: 5, name: 'epsilon', amount: '2.00' },
      ]);
      await h.update(table, 1, 'alpha2');
      await h.remove(table, 2);
      const { changes } = await agent.readChanges([table], { [tableKey(table)]: position });
      expect(summary(changes)).toEqual([
        { op: 'insert', id: 4, name: 'delta' },
        { op: 'insert', id: 5, name: 'epsilon' },
        { op: 'update', id: 1, name: 'alpha2' },
        { op: 'delete', id: 2, name: null },
      ]);
      const [four, five, update, remove] = changes;
      // One transaction, one id; a write of its own, another.
      expect(four?.transactionId).toBeDefined();
      expect(five?.transactionId).toBe(four?.transactionId);
      expect(update?.transactionId).not.toBe(four?.transactionId);
      for (const c of changes) {
        expect(c.commitTime, c.op).toBeInstanceOf(Date);
        expect(Math.abs((c.commitTime as Date).getTime() - started)).toBeLessThan(60_000);
      }
      if (h.beforeImages) {
        expect(h.normalize(update?.before ?? {}).name).toBe('alpha');
        expect(h.normalize(remove?.before ?? {})).toEqual(ROWS[1]);
        expect(four?.before).toBeUndefined();
      } else {
        expect(changes.map((c) => c.before)).toEqual([undefined, undefined, undefined, undefined]);
      }
    });

    it('keeps its checkpoint at the source and resumes from it after a restart', async () => {
      const table = await h.createTable('contract_resume');
      await h.insert(table, ROWS);
      const first = await open();
      const { position } = await readWhole(first, table, async () => undefined);
      await h.update(table, 3, 'gamma2');
      const batch = await first.readChanges([table], { [tableKey(table)]: position });
      expect(summary(batch.changes)).toEqual([{ op: 'update', id: 3, name: 'gamma2' }]);
      await first.saveCheckpoint(batch.checkpoint);
      await first.close();

      await h.insert(table, [{ id: 5, name: 'epsilon', amount: '5.55' }]);
      const second = await open();
      const resumed = await second.loadCheckpoint();
      expect(resumed[tableKey(table)]).toBe(batch.checkpoint[tableKey(table)]);
      const next = await second.readChanges([table], resumed);
      expect(summary(next.changes)).toEqual([{ op: 'insert', id: 5, name: 'epsilon' }]);
    });

    it('asks for a snapshot of a table that has no checkpoint, rather than guessing', async () => {
      const table = await h.createTable('contract_fresh');
      const agent = await open();
      const batch = await agent.readChanges([table], {});
      expect(batch.changes).toEqual([]);
      expect(batch.resnapshot.map((r) => r.table)).toEqual([tableKey(table)]);
    });

    it('splits a long backlog into bounded batches without losing or repeating a change', async () => {
      const table = await h.createTable('contract_batches');
      const agent = await open();
      const { position } = await readWhole(agent, table, async () => undefined);
      for (let id = 10; id < 16; id++) await h.insert(table, [{ id, name: `n${id}`, amount: '1.00' }]);
      let checkpoint = { [tableKey(table)]: position };
      const seen: number[] = [];
      for (let round = 0; round < 10; round++) {
        const batch = await agent.readChanges([table], checkpoint, { maxRows: 2 });
        expect(batch.changes.length).toBeLessThanOrEqual(2);
        seen.push(...batch.changes.map((c) => idOf(c.key)));
        checkpoint = batch.checkpoint;
        if (batch.changes.length === 0) break;
      }
      expect(seen).toEqual([10, 11, 12, 13, 14, 15]);
    });

    it('reports its backlog: rows waiting since the checkpoint', async () => {
      const table = await h.createTable('contract_backlog');
      const agent = await open();
      const { position } = await readWhole(agent, table, async () => undefined);
      await h.insert(table, ROWS);
      const backlog = await agent.backlog([table], { [tableKey(table)]: position });
      expect(backlog.rowsToRead).toBe(3);
      expect(backlog.perTable).toEqual([{ table: tableKey(table), rowsToRead: 3 }]);
    });
  });
}
