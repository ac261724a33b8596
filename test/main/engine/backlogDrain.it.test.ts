// The gauge never lags what the engine knows: a pipeline paused while 100,000 changes pile up (the
// engine measures them itself), resumed, drains them, and the status pushed after the drain says 0
// rows waiting with every table at 0, long before the next periodic backlog point.
import type sql from 'mssql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { subscribeToEngine } from '../../../main/client/engineStream';
import { watchIdleBacklogs } from '../../../main/engine/idleBacklog';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import type { FeedMessage } from '../../../shared/liveFeed';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

const ROWS = 100_000;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  await admin.request().batch(`CREATE TABLE dbo.Bulk (Id INT PRIMARY KEY, V NVARCHAR(20));
    ALTER TABLE dbo.Bulk ENABLE CHANGE_TRACKING;`);
  e = await startTestEngine({ idleBacklogEveryMs: 3_600_000 });
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

it('a drained 100,000-row backlog is 0 on the gauge within one push, per table too', async () => {
  const ids = { pipelineId: 'drain', agentId: 'sales' };
  await configureSeedPipeline(e.client, sandbox, ids, ['Bulk']);
  const messages: FeedMessage[] = [];
  let connected = false;
  const close = subscribeToEngine(
    { baseUrl: e.url, token: e.token },
    {
      connected: () => (connected = true),
      message: (m) => messages.push(m),
      disconnected: () => undefined,
      unsupported: () => undefined,
    },
  );
  try {
    await until('connected', () => connected);
    await e.client.startAgent(ids);
    await until('copied', async () =>
      (await e.client.listEvents({ pipelineId: 'drain' })).some((x) => x.kind === 'snapshot-done'),
    );
    await e.client.pauseAgent(ids);
    // 1,000 rows per INSERT (T-SQL's most per VALUES list), ten INSERTs per batch.
    for (let from = 0; from < ROWS; from += 10_000) {
      const inserts = Array.from({ length: 10 }, (_, s) => {
        const start = from + s * 1_000;
        const values = Array.from({ length: 1_000 }, (_, i) => `(${start + i + 1}, N'row')`);
        return `INSERT INTO dbo.Bulk VALUES ${values.join(', ')};`;
      });
      await admin.request().batch(inserts.join('\n'));
    }
    // Paused, the engine measures the backlog itself (its idle watcher, every 10 s; here at once).
    const status = () =>
      messages.flatMap((m) => (m.type === 'status' && m.pipelineId === 'drain' ? [m.status] : [])).at(-1);
    const stopWatching = watchIdleBacklogs(e.engine.deps, 50, 50);
    try {
      await until('the paused backlog pushed', () => status()?.backlogRows === ROWS);
    } finally {
      stopWatching();
    }

    const resumedAt = Date.now();
    await e.client.startAgent(ids);
    await until('drained', async () => {
      const applied = (await e.client.listEvents({ pipelineId: 'drain' }))
        .filter((x) => x.kind === 'batch-applied')
        .reduce((n, x) => n + Number((x.data as { changes?: number }).changes ?? 0), 0);
      return applied >= ROWS;
    });
    await until('the drained backlog pushed', () => status()?.backlogRows === 0, 5_000);
    // Well before the runner's periodic point (every 10 s): the drain itself said so.
    expect(Date.now() - resumedAt).toBeLessThan(10_000);
    expect((await e.client.getBacklog(ids)).history.at(-1)?.rowsToRead).toBe(0);
    // Lag: the newest batch's, or idle (caught up, nothing new) — never an older batch's figure.
    const lastBatch = (await e.client.listEvents({ pipelineId: 'drain' }))
      .filter((x) => x.kind === 'batch-applied')
      .at(-1);
    const newestLag = Number((lastBatch?.data as { lagMs?: number } | undefined)?.lagMs ?? NaN) / 1000;
    await until(
      'the newest lag pushed',
      () => {
        const now = status();
        return now?.lagSeconds === null
          ? typeof now.idleSince === 'string'
          : Math.abs((now?.lagSeconds ?? Infinity) - newestLag) < 0.05;
      },
      5_000,
    );
    // The table's own backlog (its chart's line) came down with it.
    const series = await e.client.getSeries({ ...ids, window: 'hour' });
    const bulk = series.tables.find((t) => t.table === 'dbo.Bulk')?.points ?? [];
    expect(bulk.filter((p) => p.backlogRows !== null).at(-1)?.backlogRows).toBe(0);
  } finally {
    close();
  }
});
