// The engine's live side as a subscriber sees it: GET /events/stream pushing events, statuses and
// pipeline changes as a change-tracking pipeline runs and another fails; GET /overview and the charts'
// series agreeing with what was applied; the stream outliving the request timeout, coming back after the
// engine restarts, and an engine without the stream told apart from one that is down.
import type sql from 'mssql';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeToEngine } from '../../../main/client/engineStream';
import { watchIdleBacklogs } from '../../../main/engine/idleBacklog';
import { startEngineServer } from '../../../main/engine/server';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import type { FeedMessage } from '../../../shared/liveFeed';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

/** Sends a request's headers and not its announced body; resolves when the server closes the socket. */
function requestCutByTimeout(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`POST /pipelines HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 10\r\n\r\n`),
    );
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  // The engine's own measuring of idle pipelines is left out: a test below runs it at its own pace.
  e = await startTestEngine({
    limits: { headersTimeoutMs: 200, requestTimeoutMs: 300 },
    idleBacklogEveryMs: 3_600_000,
  });
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

function subscriber(url: string, token: string, timing = {}) {
  const messages: FeedMessage[] = [];
  const log: string[] = [];
  const close = subscribeToEngine(
    { baseUrl: url, token },
    {
      connected: () => log.push('connected'),
      message: (m) => messages.push(m),
      disconnected: (reason) => log.push(`disconnected: ${reason}`),
      unsupported: () => log.push('unsupported'),
    },
    timing,
  );
  return { messages, log, close };
}

const statusesOf = (messages: FeedMessage[], pipelineId: string) =>
  messages.flatMap((m) => (m.type === 'status' && m.pipelineId === pipelineId ? [m.status] : []));

describe('the event stream', () => {
  it('pushes events, statuses and pipeline changes; overview and series agree with what was applied', async () => {
    const sub = subscriber(e.url, e.token);
    await until('connected', () => sub.log.includes('connected'));
    const running = { pipelineId: 'live', agentId: 'sales' };
    await configureSeedPipeline(e.client, sandbox, running, ['Customers', 'Orders']);
    await configureSeedPipeline(e.client, sandbox, { pipelineId: 'broken', agentId: 'sales' }, [
      'NoSuchTable',
    ]);
    expect(sub.messages.some((m) => m.type === 'pipelines')).toBe(true);

    await e.client.startAgent(running);
    await e.client.startAgent({ pipelineId: 'broken', agentId: 'sales' });
    await until(
      'both copies pushed',
      () =>
        sub.messages.filter(
          (m) => m.type === 'event' && m.pipelineId === 'live' && m.event.kind === 'snapshot-done',
        ).length === 2,
    );
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'DE' WHERE CustomerId IN (1, 2, 3)");
    await until('three updates pushed', () =>
      sub.messages.some(
        (m) => m.type === 'event' && m.event.kind === 'batch-applied' && m.event.data.updates === 3,
      ),
    );
    await until('a status with the rate', () =>
      statusesOf(sub.messages, 'live').some((s) => s.state === 'running' && (s.changesPerSecond ?? 0) > 0),
    );
    await until('the failure pushed', () =>
      statusesOf(sub.messages, 'broken').some((s) => s.state === 'failed' && s.lastFailure !== null),
    );
    const failed = statusesOf(sub.messages, 'broken').find((s) => s.state === 'failed');
    expect(failed?.failureReason).toMatch(/NoSuchTable/);

    const overview = await e.client.getOverview({});
    const live = overview.pipelines.find((p) => p.id === 'live');
    const source = live?.agents.find((a) => a.role === 'source');
    expect(source?.status.state).toBe('running');
    expect(source?.status.lagSeconds).not.toBeNull();
    expect(source?.status.lastBatchAt).not.toBeNull();
    const broken = overview.pipelines.find((p) => p.id === 'broken')?.agents.find((a) => a.role === 'source');
    expect(broken?.status.lastFailure?.reason).toMatch(/NoSuchTable/);
    expect(broken?.status.changesPerSecond).toBeNull();

    const applied = sub.messages.reduce(
      (n, m) =>
        m.type === 'event' && m.pipelineId === 'live' && m.event.kind === 'batch-applied'
          ? n + Number(m.event.data.changes)
          : n,
      0,
    );
    const series = await e.client.getSeries({ ...running, window: 'hour' });
    expect(series.points).toHaveLength(60);
    expect(series.stepSeconds).toBe(60);
    expect(series.points.reduce((n, p) => n + p.changes, 0)).toBe(applied);
    const customers = series.tables.find((t) => t.table === 'dbo.Customers');
    expect(customers?.points.reduce((n, p) => n + p.changes, 0)).toBe(3);
    expect(series.points.some((p) => p.lagSeconds !== null)).toBe(true);
    const day = await e.client.getSeries({ ...running, window: 'day' });
    expect(day.points).toHaveLength(144);
    expect(day.points.reduce((n, p) => n + p.changes, 0)).toBe(applied);
    await expect(e.client.getSeries({ ...running, window: 'week' })).rejects.toThrow(/hour and day/);

    // Deleting a pipeline is told too.
    const before = sub.messages.filter((m) => m.type === 'pipelines').length;
    await e.client.stopAgent({ pipelineId: 'broken', agentId: 'sales' });
    await e.client.deletePipeline({ pipelineId: 'broken' });
    await until(
      'the deletion pushed',
      () => sub.messages.filter((m) => m.type === 'pipelines').length > before,
    );
    sub.close();
    await e.client.stopAgent(running);
  });

  it('stays open past the request timeout, and comes back after the engine restarts', async () => {
    const sub = subscriber(e.url, e.token, { retryDelaysMs: [100] });
    await until('connected', () => sub.log.includes('connected'));
    // A request begun after the stream, its body never sent, is cut at the request timeout: once it
    // is, the stream has outlived that timeout.
    await requestCutByTimeout(e.url);
    expect(sub.log).toEqual(['connected']);
    await e.client.createPipeline({}, { id: 'after-wait', name: 'After the wait' });
    await until('a message after the timeout', () => sub.messages.some((m) => m.type === 'pipelines'));

    const port = Number(new URL(e.url).port);
    await e.server.close();
    await until('the drop seen', () => sub.log.some((l) => l.startsWith('disconnected')));
    const restarted = await startEngineServer(e.engine.deps, { port });
    try {
      await until('connected again', () => sub.log.filter((l) => l === 'connected').length === 2);
    } finally {
      sub.close();
      e.server = restarted;
    }
  });

  it('tells an engine without the stream from one that does not answer', async () => {
    const old = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    const sub = subscriber(url, 'token');
    await until('unsupported', () => sub.log.includes('unsupported'));
    sub.close();
    await new Promise<void>((resolve) => old.close(() => resolve()));

    const down = subscriber(url, 'token', { retryDelaysMs: [50] });
    await until('two tries', () => down.log.filter((l) => l.startsWith('disconnected')).length >= 2);
    down.close();
    expect(down.log.every((l) => l === `disconnected: Cannot reach the engine at ${url}.`)).toBe(true);
  });

  it('measures the backlog of a paused pipeline often and of a stopped one seldom, and pushes it', async () => {
    const paused = { pipelineId: 'held', agentId: 'sales' };
    const stopped = { pipelineId: 'parked', agentId: 'sales' };
    for (const ids of [paused, stopped]) {
      await configureSeedPipeline(e.client, sandbox, ids, ['Customers']);
      await e.client.startAgent(ids);
    }
    await until('both copied', async () => {
      const done = await Promise.all(
        [paused, stopped].map(async (ids) =>
          (await e.client.listEvents({ pipelineId: ids.pipelineId })).some((x) => x.kind === 'snapshot-done'),
        ),
      );
      return done.every(Boolean);
    });
    await e.client.pauseAgent(paused);
    await e.client.stopAgent(stopped);
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'SE' WHERE CustomerId <= 2");
    const sub = subscriber(e.url, e.token);
    await until('connected', () => sub.log.includes('connected'));
    const points = (ids: { pipelineId: string; agentId: string }) =>
      e.engine.deps.repo.backlogSince(ids.pipelineId, ids.agentId, new Date(0).toISOString()).length;
    const [pausedBefore, stoppedBefore] = [points(paused), points(stopped)];
    const stop = watchIdleBacklogs(e.engine.deps, 50, 60_000);
    try {
      await until('the paused backlog pushed', () =>
        statusesOf(sub.messages, 'held').some((s) => s.state === 'paused' && (s.backlogRows ?? 0) >= 2),
      );
      await until('the stopped backlog pushed', () =>
        statusesOf(sub.messages, 'parked').some((s) => s.state === 'stopped' && (s.backlogRows ?? 0) >= 2),
      );
      // Three rounds of the watcher measured the paused pipeline; the stopped one was measured once.
      await until('three rounds of measuring', () => points(paused) - pausedBefore >= 3);
      expect(points(stopped) - stoppedBefore).toBe(1);
    } finally {
      stop();
      sub.close();
    }
  });

  it('answers only the admin token', async () => {
    const res = await fetch(`${e.url}/events/stream`);
    expect(res.status).toBe(401);
  });
});
