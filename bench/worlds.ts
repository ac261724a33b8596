// The benchmarks' source worlds for copies and verifies: a table `Big` (id, name, amount, timestamp) of
// `rows` rows in each simulator, the simulator out of the bench's thread (simulatorProcesses.ts), the
// agent opened on it as a pipeline would, one change at a time for verifies under load, and the raw
// read the engine is measured against: the same chunked keyset read through the same driver.
import sql from 'mssql';
import { describeTables, selectColumn } from '../main/agents/drivers/mssql/shape';
import { openChangeTrackingSource } from '../main/agents/changeTracking/source';
import { openJournalSource } from '../main/agents/journal/source';
import { readWhole, type SourceAgent, type TableRef } from '../main/agents/source';
import { SEED_ADMIN, seedAgentCredentials } from '../simulators/ibmi/seed';
import { createJournalBenchTable, JOURNAL_BENCH_CONFIGURATION } from './journalSource';
import { benchRows } from './rawTargets';
import { BENCH_CONFIGURATION, BENCH_LOGIN, benchCredentials, createBenchTable } from './sandboxSource';
import { startIbmiThread, startMssqlProcess } from './simulatorProcesses';
import { startDelayLink } from '../simulators/delayLink';

/** Half a round trip to a source 30 ms away (a real one is 10–50 ms away). */
export const LINK_ONE_WAY_MS = 15;

export const CHUNK = 10_000;

/**
 * The shaping a shaped copy runs with (docs/shaping.md): its text column hashed with a salt, a filter
 * every row passes, so the rows copied are the same and the figure is the shaping's cost alone.
 */
export const benchShaping = (w: Pick<World, 'id' | 'name'>) => ({
  columnShaping: { [w.name]: { mask: { kind: 'hash' as const } } },
  rowFilter: `${w.id} >= 0`,
});
export const BENCH_SALT = 'bench-mask-salt-not-a-secret';

export interface World {
  label: 'ct' | 'journal';
  ref: TableRef;
  /** The key and a text column as the agent names them. */
  id: string;
  name: string;
  open(pipelineId: string): Promise<SourceAgent>;
  /**
   * The source 30 ms a round trip away while `farAway(true)` holds, the agent opened on it, and the
   * requests in series it has answered so far.
   */
  far?: {
    open(pipelineId: string): Promise<SourceAgent>;
    farAway(on: boolean): Promise<void>;
    turns(): Promise<number>;
    /** What `turns` counts. */
    turnsAre: string;
  };
  /** Rows per second of one raw chunked read of the whole table. */
  rawRead(): Promise<number>;
  /** One change at the source, in turn an update, an insert and a delete (numbered across the run). */
  change(n: number): Promise<void>;
  /** Changes made so far, so a second pipeline's writer goes on from there. */
  changes: number;
  close(): Promise<void>;
}

const rateOf = async (read: () => Promise<number>): Promise<number> => {
  const started = performance.now();
  const rows = await read();
  return Math.round(rows / ((performance.now() - started) / 1000));
};

export async function sqlServerWorld(rows: number): Promise<World> {
  const server = await startMssqlProcess();
  const sandbox = { port: server.port };
  const link = await startDelayLink(sandbox, LINK_ONE_WAY_MS);
  const openAt = (port: number) => (pipelineId: string) =>
    openChangeTrackingSource({
      credentials: benchCredentials({ port }, 3),
      configuration: BENCH_CONFIGURATION,
      pipelineId,
      agentId: 'src',
    });
  const open = openAt(server.port);
  const admin = await open('setup');
  await createBenchTable(sandbox, benchRows(rows, '2026-01-01 10:00:00.123'));
  return {
    label: 'ct',
    ref: { schema: 'dbo', table: 'Big' },
    id: 'Id',
    name: 'Name',
    open,
    // Through a proxy holding each chunk 15 ms each way: always far, opened through it.
    far: {
      open: openAt(link.port),
      farAway: async () => undefined,
      turns: async () => link.turns,
      turnsAre: 'requests in series',
    },
    // The copy's own statement (the agent's select list: a decimal read as its exact text), by hand:
    // TOP (n) … WHERE key > @c ORDER BY key on one connection, rows as arrays, nothing done with them.
    rawRead: async () => {
      const [shape] = await describeTables(admin.pool, [{ schema: 'dbo', table: 'Big' }]);
      const list = (shape?.columns ?? []).map((c) => selectColumn(c, 't')).join(', ');
      // Signed on before the clock starts, as the engine's pool is before a copy.
      const pool = await new sql.ConnectionPool({
        server: '127.0.0.1',
        port: server.port,
        database: 'Sales',
        user: BENCH_LOGIN.name,
        password: BENCH_LOGIN.password,
        options: { encrypt: false, trustServerCertificate: true },
        pool: { max: 1 },
      }).connect();
      try {
        return await rateOf(async () => {
          let read = 0;
          let cursor = -1;
          for (;;) {
            const request = pool.request().input('n', sql.Int, CHUNK).input('k0', sql.Int, cursor);
            request.arrayRowMode = true;
            const { recordset } = await request.query(
              `SELECT TOP (@n) ${list} FROM [dbo].[Big] AS t WHERE t.[Id] > @k0 ORDER BY t.[Id]`,
            );
            const rows = recordset as unknown as unknown[][];
            read += rows.length;
            if (rows.length < CHUNK) return read;
            cursor = Number(rows.at(-1)?.[0] ?? cursor);
          }
        });
      } finally {
        await pool.close();
      }
    },
    changes: 0,
    change: async (n) => {
      const at = (n * 7919) % rows;
      await admin.pool
        .request()
        .batch(
          n % 3 === 0
            ? `UPDATE dbo.Big SET Name = N'changed ${n}' WHERE Id = ${at}`
            : n % 3 === 1
              ? `INSERT INTO dbo.Big VALUES (${rows + n}, N'new ${n}', 1.00, '2026-01-02 10:00:00')`
              : `DELETE FROM dbo.Big WHERE Id = ${rows + n - 1}`,
        );
    },
    close: async () => {
      await admin.close();
      await link.close();
      await server.close();
    },
  };
}

export async function ibmiWorld(rows: number): Promise<World> {
  const system = await startIbmiThread(SEED_ADMIN);
  const { admin } = system;
  await createJournalBenchTable(admin);
  for (let from = 0; from < rows; from += 1000) {
    const values = Array.from(
      { length: Math.min(1000, rows - from) },
      (_, i) =>
        `(${from + i}, 'customer ${from + i}', ${((from + i) % 10_000) / 100}, '2026-01-01-10.00.00.123000')`,
    );
    await admin.query(`INSERT INTO BENCH.BIG VALUES ${values.join(', ')}`);
  }
  const ref = { schema: 'BENCH', table: 'BIG' };
  const open = (pipelineId: string) =>
    openJournalSource({
      credentials: seedAgentCredentials(system.host, {
        syncLibrary: `S${pipelineId.slice(0, 9).toUpperCase()}`,
      }),
      configuration: { ...JOURNAL_BENCH_CONFIGURATION, snapshotChunkRows: CHUNK },
      pipelineId,
      agentId: 'src',
    });
  return {
    label: 'journal',
    ref,
    id: 'ID',
    name: 'NAME',
    open,
    // The simulated IBM i answering every statement a round trip late while far away.
    far: {
      open,
      farAway: async (on) => {
        await system.linkDelay(on ? 2 * LINK_ONE_WAY_MS : 0);
      },
      turns: () => system.linkDelay(),
      turnsAre: 'statements and commands answered',
    },
    // The journal agent's own chunk read (by relative record number), nothing done with the rows.
    rawRead: async () => {
      const source = await open('rawread');
      try {
        return await rateOf(
          async () =>
            (await readWhole(source, ref, async () => undefined, { snapshotChunkRows: CHUNK })).rows,
        );
      } finally {
        await source.close();
      }
    },
    changes: 0,
    change: async (n) => {
      const at = (n * 7919) % rows;
      if (n % 3 === 0) await admin.query(`UPDATE BENCH.BIG SET NAME = 'changed ${n}' WHERE ID = ${at}`);
      else if (n % 3 === 1)
        await admin.query(
          `INSERT INTO BENCH.BIG VALUES (${rows + n}, 'new ${n}', 1.00, '2026-01-02-10.00.00')`,
        );
      else await admin.query(`DELETE FROM BENCH.BIG WHERE ID = ${rows + n - 1}`);
    },
    close: async () => {
      await admin.close();
      await system.close();
    },
  };
}
