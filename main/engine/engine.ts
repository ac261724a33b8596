// Assembles a local engine from its data folder: state store, secrets, token, runtime.
import { createSignOnMemo } from './signOnMemo';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { engineSettingsSchema, type EngineSettings } from '../../shared/engineSettings';
import type { Log } from '../platform/log';
import { resumeRunning, type EngineDeps } from './operations';
import { agentsRuntime } from './agentRuntime';
import { AGENT_PLUGINS, type AgentPlugins } from '../agents/registry';
import type { AgentRuntime } from '../agents/spi';
import { openDb } from './store/db';
import { createRepo } from './store/repo';
import { KEY_FILE, keyFileSecretBox, type SecretBox } from '../platform/secretBox';
import { createTokenKeeper } from './tokens';
import { createEngineMetrics } from './metrics';
import { createEngineFeed, observeRepo } from './feed';
import { agentStatus } from './liveOperations';
import { createSeriesStore } from './store/series';
import { createExceptionsStore } from './store/exceptions';
import { watchIdleBacklogs } from './idleBacklog';

export interface EngineOptions {
  dataDir: string;
  log: Log;
  /** The desktop app passes a safeStorage box; otherwise a key file in the data folder. */
  secrets?: SecretBox;
  runtime?: AgentRuntime;
  /** The agent types' database side; the registry's unless a test brings its own. */
  plugins?: AgentPlugins;
  now?: () => Date;
  appVersion?: string;
  /** How often the backlog of pipelines that do not run is measured (idleBacklog.ts). */
  idleBacklogEveryMs?: number;
  /** Event retention and other engine settings; defaults from shared/engineSettings.ts. */
  settings?: Partial<EngineSettings>;
  /** The engine's files outside its data folder (a TLS certificate and key given by path). */
  ownFiles?: readonly string[];
}

export interface LocalEngine {
  deps: EngineDeps;
  /** Set only when this start created the admin token: show it once. */
  firstStartToken: string | undefined;
  /** Stops running pipelines, then closes the store. */
  close(): Promise<void>;
}

export const STORE_FILE = 'engine.sqlite';
export { KEY_FILE };

export function openEngine(options: EngineOptions): LocalEngine {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = openDb(join(options.dataDir, STORE_FILE));
  const plugins = options.plugins ?? AGENT_PLUGINS;
  const now = options.now ?? (() => new Date());
  // The feed reads statuses through deps, made below; it reads none before a change is told to it.
  const feed = createEngineFeed((pipelineId, agentId) => agentStatus(deps, pipelineId, agentId), now);
  const settings = engineSettingsSchema.parse(options.settings ?? {});
  const repo = observeRepo(createRepo(db, settings), feed);
  repo.pruneEvents(now().toISOString());
  const exceptions = createExceptionsStore(db, settings);
  exceptions.prune(now().toISOString());
  const { tokens, firstStartToken } = createTokenKeeper(repo);
  const deps: EngineDeps = {
    repo,
    tokens,
    metrics: createEngineMetrics(now),
    signOns: createSignOnMemo(now),
    series: createSeriesStore(db),
    exceptions,
    feed,
    secrets: options.secrets ?? keyFileSecretBox(join(options.dataDir, KEY_FILE)),
    runtime: options.runtime ?? agentsRuntime({ plugins }),
    plugins,
    log: options.log,
    now,
    dataDir: options.dataDir,
    ownFiles: options.ownFiles,
    newId: () => randomBytes(5).toString('hex'),
    versions: {
      engine: options.appVersion ?? 'unknown',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
  };
  void resumeRunning(deps);
  const stopIdleBacklogs = watchIdleBacklogs(deps, options.idleBacklogEveryMs);
  return {
    deps,
    firstStartToken,
    close: async () => {
      stopIdleBacklogs();
      await deps.runtime.close?.();
      db.close();
    },
  };
}
