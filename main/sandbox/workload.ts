// Sandbox mode's workload: inserts, updates and deletes on both sample sources at a rate the DBA picks,
// so a sandbox pipeline's gauge, charts and events move. Each source is written as a client would
// write it (the SQL Server over TDS as sa, the IBM i through a job of QSECOFR), on rows of its own
// (order lines numbered from 10,000; customers from 900,000), so the sample rows stay as seeded.
import sql from 'mssql';
import type { IbmiConnection } from '../../lib/ibmi/connection';
import type { SandboxIbmi } from '../../simulators/ibmi';
import { SEED_ADMIN } from '../../simulators/ibmi/seed';
import type { SandboxSqlServer } from '../../simulators/mssql';
import { SEED_DATABASE } from '../../simulators/mssql/seed';
// Past MAX_WORKLOAD_RATE the simulators, not the pipelines, become what is measured.
import { MAX_WORKLOAD_RATE, type WorkloadStatus } from '../../shared/sandbox';

const TICK_MS = 250;
/** Rows of its own each source keeps at most: the oldest go first. */
const KEPT_ROWS = 200;

interface Writer {
  /** One change: an insert, an update or a delete of a row of its own, in turn. */
  step(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Changes to rows of one's own, in turn: insert a new one, update the newest, delete the oldest once
 * more than half of KEPT_ROWS are kept. `rows` writes one source's statements for a row id.
 */
function takingTurns(
  nextId: () => number,
  rows: {
    insert(id: number): Promise<void>;
    update(id: number): Promise<void>;
    remove(id: number): Promise<void>;
  },
  close: () => Promise<void>,
): Writer {
  const kept: number[] = [];
  let turn = 0;
  return {
    step: async () => {
      const kind = turn++ % 3;
      const newest = kept[kept.length - 1];
      if (kind === 0 || newest === undefined) {
        const id = nextId();
        await rows.insert(id);
        kept.push(id);
      } else if (kind === 1) await rows.update(newest);
      else if (kept.length > KEPT_ROWS / 2) await rows.remove(kept.shift() ?? newest);
    },
    close,
  };
}

async function sqlServerWriter(server: SandboxSqlServer): Promise<Writer> {
  const sa = server.logins.find((l) => l.name === 'sa');
  const pool = await new sql.ConnectionPool({
    server: server.host,
    port: server.port,
    user: sa?.name ?? 'sa',
    password: sa?.password ?? '',
    database: SEED_DATABASE,
    options: { encrypt: false },
    pool: { max: 1, min: 0 },
  }).connect();
  const { recordset } = await pool
    .request()
    .query<{ id: number | null }>('SELECT MIN(OrderId) AS id FROM dbo.Orders');
  const orderId = recordset[0]?.id ?? 1000;
  // Order lines of one order, numbered from 10,000 (a smallint: wrapped before 32,767).
  const line = (no: number) =>
    pool.request().input('order', sql.Int, orderId).input('line', sql.SmallInt, no);
  let next = 10_000;
  return takingTurns(
    () => {
      const no = next;
      next = next >= 32_000 ? 10_000 : next + 1;
      return no;
    },
    {
      insert: async (no) =>
        void (await line(no).query(
          "INSERT INTO dbo.OrderLines (OrderId, LineNo, Sku, Quantity, Price) VALUES (@order, @line, 'SKU-1', 1, 9.99)",
        )),
      update: async (no) =>
        void (await line(no).query(
          'UPDATE dbo.OrderLines SET Quantity = Quantity + 1 WHERE OrderId = @order AND LineNo = @line',
        )),
      remove: async (no) =>
        void (await line(no).query('DELETE FROM dbo.OrderLines WHERE OrderId = @order AND LineNo = @line')),
    },
    () => pool.close(),
  );
}

async function ibmiWriter(ibmi: SandboxIbmi): Promise<Writer> {
  const job: IbmiConnection = await ibmi.connect({ ...SEED_ADMIN });
  let next = 900_000;
  return takingTurns(
    () => next++,
    {
      insert: async (id) =>
        void (await job.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (?, ?)', [id, `Workload ${id}`])),
      update: async (id) =>
        void (await job.query('UPDATE SHOP.CUSTOMER SET NAME = ? WHERE ID = ?', [
          `Workload ${id}, changed`,
          id,
        ])),
      remove: async (id) => void (await job.query('DELETE FROM SHOP.CUSTOMER WHERE ID = ?', [id])),
    },
    () => job.close(),
  );
}

/** A workload over both sources, off until a rate is set. */
export function createWorkload(sources: () => Promise<{ sqlServer: SandboxSqlServer; ibmi: SandboxIbmi }>) {
  const status: WorkloadStatus = { changesPerSecond: 0, written: 0, lastError: null };
  let writers: Promise<Writer[]> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let owed = 0;
  let busy = false;
  const tick = async () => {
    if (busy || !writers) return;
    busy = true;
    owed += (status.changesPerSecond * TICK_MS) / 1000;
    try {
      const all = await writers;
      for (; owed >= 1; owed -= 1) {
        const writer = all[status.written % all.length];
        if (writer) await writer.step();
        status.written += 1;
      }
      status.lastError = null;
    } catch (error) {
      owed = 0;
      status.lastError = error instanceof Error ? error.message : String(error);
    } finally {
      busy = false;
    }
  };
  return {
    status: (): WorkloadStatus => ({ ...status }),
    async set(changesPerSecond: number): Promise<WorkloadStatus> {
      status.changesPerSecond = Math.max(0, Math.min(MAX_WORKLOAD_RATE, Math.round(changesPerSecond)));
      if (status.changesPerSecond > 0) {
        writers ??= sources().then(async (s) =>
          Promise.all([sqlServerWriter(s.sqlServer), ibmiWriter(s.ibmi)]),
        );
        await writers.catch((error: unknown) => {
          writers = undefined;
          status.changesPerSecond = 0;
          throw error;
        });
        timer ??= setInterval(() => void tick(), TICK_MS);
      } else if (timer) {
        clearInterval(timer);
        timer = undefined;
        owed = 0;
      }
      return { ...status };
    },
    async close(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      const all = await writers?.catch(() => []);
      for (const w of all ?? []) await w.close().catch(() => undefined);
    },
  };
}
