// Starts a real local engine on a free loopback port over a fresh (or given) data folder.
import { afterEach, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineClient, EngineError, type EngineClient } from '../../main/client/engineClient';
import { openEngine, type LocalEngine } from '../../main/engine/engine';
import type { AgentRuntime } from '../../main/agents/spi';
import { startEngineServer, type EngineServer } from '../../main/engine/server';
import type { Log } from '../../main/platform/log';
import type { ServerLimits } from '../../main/platform/http/server';
import { watchedLog, watchFolder } from '../setup/secretNotes';

export interface RunningEngine {
  engine: LocalEngine;
  server: EngineServer;
  url: string;
  token: string;
  dataDir: string;
  client: EngineClient;
  logLines: string[];
  stop(): Promise<void>;
}

export async function startTestEngine(
  options: {
    dataDir?: string;
    token?: string;
    runtime?: AgentRuntime;
    limits?: ServerLimits;
    tls?: { cert: string; key: string };
    /** How often the engine measures pipelines that do not run (idleBacklog.ts). */
    idleBacklogEveryMs?: number;
  } = {},
): Promise<RunningEngine> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cdc-engine-'));
  watchFolder(dataDir);
  const logLines: string[] = [];
  const log: Log = {
    info: (event, fields) => {
      logLines.push(JSON.stringify({ event, ...fields }));
      watchedLog.info(event, fields);
    },
    warn: (event, fields) => {
      logLines.push(JSON.stringify({ event, ...fields }));
      watchedLog.warn(event, fields);
    },
  };
  const engine = openEngine({
    dataDir,
    log,
    runtime: options.runtime,
    idleBacklogEveryMs: options.idleBacklogEveryMs,
  });
  const token = engine.firstStartToken ?? options.token;
  if (!token) throw new Error('reopening an engine needs the token of its first start');
  const server = await startEngineServer(engine.deps, { port: 0, limits: options.limits, tls: options.tls });
  return {
    engine,
    server,
    url: server.url,
    token,
    dataDir,
    client: createEngineClient({ baseUrl: server.url, token }),
    logLines,
    stop: async () => {
      await server.close();
      await engine.close();
    },
  };
}

/** A starter of test engines for a test file: every engine it started is stopped after each test. */
export function enginesStoppedAfterEach(): (
  options?: Parameters<typeof startTestEngine>[0],
) => Promise<RunningEngine> {
  let running: RunningEngine[] = [];
  afterEach(async () => {
    await Promise.all(running.map((r) => r.stop()));
    running = [];
  });
  return async (options) => {
    const e = await startTestEngine(options);
    running.push(e);
    return e;
  };
}

/** The control API's refusal of `work`: the client's error, for its status and words. */
export async function refusal(work: Promise<unknown>): Promise<EngineError> {
  const error = await work.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

/** The refusal as a DBA meets it: its status, the fields it points at, and all its words in one line. */
export async function refusalInWords(work: Promise<unknown>) {
  const { status, problem } = await refusal(work);
  return {
    status,
    pointers: problem?.errors?.map((x) => x.pointer) ?? [],
    detail: [problem?.detail ?? '', ...(problem?.errors?.map((x) => x.detail) ?? [])].join(' '),
  };
}

/**
 * Pipeline p1 with a change-tracking source src, configured with placeholder credentials: enough for
 * the engine's own bookkeeping over a stub runtime (helpers/stubRuntime.ts), which reaches no server.
 */
export async function configureStubSource(
  client: EngineClient,
): Promise<{ pipelineId: string; agentId: string }> {
  const ids = { pipelineId: 'p1', agentId: 'src' };
  await client.createPipeline({}, { id: 'p1', name: 'p1' });
  await client.createAgent({ pipelineId: 'p1' }, { id: 'src', type: 'change-tracking', role: 'source' });
  await client.putCredentials(ids, {
    hostCredentials: {
      connectionName: 'orders',
      host: '127.0.0.1',
      port: 1433,
      databaseName: 'Sales',
      username: 'cdc',
      password: 'Str0ng-Passw0rd',
    },
  });
  await client.putSpecific(ids, { configuration: {} });
  return ids;
}
