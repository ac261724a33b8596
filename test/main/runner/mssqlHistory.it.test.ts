// A history table at a SQL Server target (issue 56), from both sources through the runner: a row per
// version with valid-from and -to kept by a filtered unique index, a version ending when the next
// begins, a delete ending the current one, and a run with nothing new, or a row read again alike,
// adding no version (the values compared exactly: docs/shaping.md, "History").
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MssqlTarget } from '../../../main/agents/changeTracking/target';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { bothSources } from '../../helpers/bothSources';
import { sandboxPool } from '../../helpers/sandbox';

const sources = bothSources({ pipelineId: 'mssql_history', ibmiSchema: 'MSHIST' });
let pool: sql.ConnectionPool;
const pools: sql.ConnectionPool[] = [];

beforeAll(async () => {
  const admin = await sandboxPool(sources.mssql(), { database: 'Sales' });
  await admin.request().batch('CREATE DATABASE Replica');
  await admin.close();
  pool = await sandboxPool(sources.mssql(), { database: 'Replica', max: 2 });
});
afterAll(async () => {
  for (const p of pools) await p.close().catch(() => undefined);
  await pool?.close();
});

describe.each(['change-tracking', 'journal'] as const)('a %s history table into SQL Server', (kind) => {
  it('keeps a row per version, each beginning as the one before it ended, and none for a row alike', async () => {
    const h = await sources.harness(kind);
    const t = await h.createTable(`HM${kind[0]}`);
    const entity = {
      ...h.entity(t),
      tableMode: { kind: 'history' as const, validFromColumn: 'valid_from', validToColumn: 'valid_to' },
    };
    const name = `${entity.target.schema ?? 'dbo'}].[${entity.target.table}`;
    const caughtUp = async () => {
      const r = new PipelineRunner({
        openSource: () => h.open(),
        openTarget: async () => {
          const p = await sandboxPool(sources.mssql(), { database: 'Replica', max: 2 });
          pools.push(p);
          return new MssqlTarget(p, `mssql_history_${kind}`, false, 'sandbox/Replica');
        },
        entities: [entity],
        idleMs: 20,
      });
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
    };
    const versions = async () => {
      const { recordset } = await pool.request().query<Record<string, unknown>>(`SELECT * FROM [${name}]`);
      return recordset
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])))
        .map((r) => ({
          id: Number(r.id),
          name: String(r.name),
          amount: Number(r.amount),
          from: (r.valid_from as Date).toISOString(),
          to: r.valid_to === null ? null : (r.valid_to as Date).toISOString(),
        }))
        .sort((x, y) => x.id - y.id || x.name.localeCompare(y.name));
    };
    await h.insert(t, [
      { id: 1, name: 'alpha', amount: '1.00' },
      { id: 2, name: 'beta', amount: '2.50' },
    ]);
    await caughtUp();
    expect((await versions()).map((v) => [v.id, v.name, v.amount, v.to])).toEqual([
      [1, 'alpha', 1, null],
      [2, 'beta', 2.5, null],
    ]);
    // A run with nothing new adds no version: the copy's rows are not written again as versions.
    await caughtUp();
    expect(await versions()).toHaveLength(2);
    await h.update(t, 1, 'alpha 2');
    await h.update(t, 1, 'Alpha 2');
    await h.remove(t, 2);
    await h.insert(t, [{ id: 3, name: 'gamma', amount: '3.00' }]);
    await caughtUp();
    const after = await versions();
    // The journal has an entry per update; Change Tracking nets a row's changes since the last read.
    const names = kind === 'journal' ? ['alpha', 'alpha 2', 'Alpha 2'] : ['alpha', 'Alpha 2'];
    const one = after.filter((v) => v.id === 1);
    expect(one.map((v) => v.name).sort((a, b) => a.localeCompare(b))).toEqual(
      [...names].sort((a, b) => a.localeCompare(b)),
    );
    expect(one.filter((v) => v.to === null).map((v) => v.name)).toEqual(['Alpha 2']);
    // Each version of row 1 begins when another ended: no moment with two current versions, or none.
    const ends = new Set(one.map((v) => v.to));
    expect(one.filter((v) => !ends.has(v.from))).toHaveLength(1);
    expect(after.filter((v) => v.id === 2).map((v) => v.to === null)).toEqual([false]);
    expect(after.filter((v) => v.id === 3).map((v) => [v.name, v.to])).toEqual([['gamma', null]]);
    // The index keeps one current version per key: a second one is refused by SQL Server itself.
    const second = await pool
      .request()
      .query(`INSERT INTO [${name}] (id, name, amount, valid_from) VALUES (3, 'again', 1, SYSUTCDATETIME())`)
      .then(
        () => undefined,
        (e: unknown) => e as sql.RequestError,
      );
    expect(second?.number).toBe(2601);
  });
});
