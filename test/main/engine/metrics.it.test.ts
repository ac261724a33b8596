// GET /metrics as a Prometheus server scrapes it: a running change-tracking pipeline, one configured and
// idle, one failed; the text parsed by a Prometheus text-format parser (and each line held to the
// format's grammar); the figures those pipelines produced; the admin token or the metrics token, which
// reads nothing else.
import type sql from 'mssql';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { METRICS_TYPE } from '../../../shared/controlApiRoutes';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  e = await startTestEngine();
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

const scrape = (token?: string, path = '/metrics') =>
  fetch(`${e.url}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

// The text format's lines (prometheus.io, "Exposition formats"): comments, or name{labels} value.
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*",?)*\})? [-+]?(\d+(\.\d+)?([eE][-+]?\d+)?|Inf|NaN)$/;
const COMMENT = /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/;

function value(families: ParsedFamily[], name: string, labels: Record<string, string>): number | undefined {
  const sample = families
    .find((f) => f.name === name)
    ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? undefined : Number(sample.value);
}

describe('GET /metrics', () => {
  it('gives states, changes by operation, copies and failures as Prometheus reads them', async () => {
    const running = { pipelineId: 'metrics', agentId: 'sales' };
    await configureSeedPipeline(e.client, sandbox, running, ['Customers', 'Orders']);
    await configureSeedPipeline(e.client, sandbox, { pipelineId: 'idle', agentId: 'sales' }, ['Customers']);
    await configureSeedPipeline(e.client, sandbox, { pipelineId: 'broken', agentId: 'sales' }, [
      'NoSuchTable',
    ]);
    await e.client.startAgent(running);
    await e.client.startAgent({ pipelineId: 'broken', agentId: 'sales' });
    const events = async (pipelineId: string) => e.client.listEvents({ pipelineId });
    await until(
      'both copies',
      async () => (await events('metrics')).filter((x) => x.kind === 'snapshot-done').length === 2,
    );
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'DE' WHERE CustomerId IN (1, 2, 3)");
    await admin
      .request()
      .batch('DELETE FROM dbo.OrderLines WHERE OrderId = 1000; DELETE FROM dbo.Orders WHERE OrderId = 1000');
    const applied = async () =>
      (await events('metrics'))
        .filter((x) => x.kind === 'batch-applied')
        .reduce((n, x) => n + Number((x.data as { changes?: number }).changes ?? 0), 0);
    await until('four changes applied', async () => (await applied()) >= 4);
    await until(
      'the broken pipeline failed',
      async () => (await e.client.getAgent({ pipelineId: 'broken', agentId: 'sales' })).state === 'failed',
    );

    const res = await scrape(e.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(METRICS_TYPE);
    const text = await res.text();
    const bad = text.split('\n').filter((line) => line !== '' && !COMMENT.test(line) && !SAMPLE.test(line));
    expect(bad).toEqual([]);
    const families = parsePrometheusTextFormat(text);
    const typeOf = (name: string) => families.find((f) => f.name === name)?.type;
    expect(typeOf('cdc_changes_applied_total')).toBe('COUNTER');
    expect(typeOf('cdc_failures_total')).toBe('COUNTER');
    expect(typeOf('cdc_backlog_rows')).toBe('GAUGE');
    expect(typeOf('cdc_agent_state')).toBe('GAUGE');

    const of = (pipeline: string, more: Record<string, string> = {}) => ({
      pipeline,
      agent: 'sales',
      ...more,
    });
    expect(value(families, 'cdc_agent_state', of('metrics', { state: 'running' }))).toBe(1);
    expect(value(families, 'cdc_agent_state', of('metrics', { state: 'failed' }))).toBe(0);
    expect(value(families, 'cdc_agent_state', of('idle', { state: 'configured' }))).toBe(1);
    expect(value(families, 'cdc_agent_state', of('broken', { state: 'failed' }))).toBe(1);
    // Three customers updated; an order deleted (its lines are not an entity of the pipeline).
    expect(value(families, 'cdc_changes_applied_total', of('metrics', { operation: 'update' }))).toBe(3);
    expect(value(families, 'cdc_changes_applied_total', of('metrics', { operation: 'delete' }))).toBe(1);
    expect(value(families, 'cdc_changes_applied_total', of('metrics', { operation: 'insert' }))).toBe(0);
    expect(value(families, 'cdc_changes_applied_total', of('idle', { operation: 'insert' }))).toBe(0);
    expect(value(families, 'cdc_failures_total', of('broken'))).toBe(1);
    // The same per source table.
    const table = (name: string, operation: string) => of('metrics', { table: name, operation });
    expect(value(families, 'cdc_table_changes_applied_total', table('dbo.Customers', 'update'))).toBe(3);
    expect(value(families, 'cdc_table_changes_applied_total', table('dbo.Customers', 'delete'))).toBe(0);
    expect(value(families, 'cdc_table_changes_applied_total', table('dbo.Orders', 'delete'))).toBe(1);
    expect(
      value(
        families,
        'cdc_table_last_batch_applied_timestamp_seconds',
        of('metrics', { table: 'dbo.Orders' }),
      ),
    ).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(value(families, 'cdc_failures_total', of('metrics'))).toBe(0);
    const customers = (await admin.request().query<{ n: number }>('SELECT COUNT(*) AS n FROM dbo.Customers'))
      .recordset[0]?.n;
    expect(value(families, 'cdc_snapshot_rows_copied', of('metrics', { table: 'dbo.Customers' }))).toBe(
      customers,
    );
    expect(value(families, 'cdc_snapshot_done', of('metrics', { table: 'dbo.Customers' }))).toBe(1);
    expect(value(families, 'cdc_backlog_rows', of('metrics'))).toBeGreaterThanOrEqual(0);
    expect(value(families, 'cdc_last_batch_applied_timestamp_seconds', of('metrics'))).toBeGreaterThan(
      Date.now() / 1000 - 600,
    );
    // GET …/tables gives the same per table, over the last hour.
    const { activity } = await e.client.listAgentTables(running);
    expect(activity.map(({ lastChangeAt, ...counts }) => ({ ...counts, at: lastChangeAt !== null }))).toEqual(
      [
        { table: 'dbo.Customers', inserts: 0, updates: 3, deletes: 0, at: true },
        { table: 'dbo.Orders', inserts: 0, updates: 0, deletes: 1, at: true },
      ],
    );
    // Nothing that is not a metric: no host, no login, no password in the text.
    expect(text).not.toContain('Passw0rd');
    expect(text).not.toContain(String(sandbox.port));
    await e.client.stopAgent(running);
  });

  it('needs the admin token or the metrics token, and the metrics token reads nothing else', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('not-a-token')).status).toBe(401);
    const { token: first } = await e.client.rotateMetricsToken({});
    expect((await scrape(first)).status).toBe(200);
    expect((await scrape(first, '/pipelines')).status).toBe(401);
    expect((await scrape(e.token)).status).toBe(200);
    const { token: second } = await e.client.rotateMetricsToken({});
    expect((await scrape(first)).status).toBe(401);
    expect((await scrape(second)).status).toBe(200);
    // Kept as a digest: an engine opened again on the same folder still takes it.
    const { dataDir, token } = e;
    await e.stop();
    e = await startTestEngine({ dataDir, token });
    expect((await scrape(second)).status).toBe(200);
  });
});
