// Everything main runs for the renderer, the same in Electron and web mode: profiles, the local
// engine, and the dispatcher of the contract.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDispatch, type Dispatch } from './dispatch';
import { KEY_FILE } from './engine/engine';
import type { AgentRuntime } from './engine/runtime';
import { keyFileSecretBox, type SecretBox } from './engine/store/secrets';
import { connectEngine, handlers, type Deps } from './handlers';
import { startLocalEngine } from './localEngine';
import type { Log } from './log';
import { createProfileStore } from './profiles';
import { startSandboxSqlServer, type SandboxSqlServer } from './sandbox/mssql';
import { startSandboxIbmi, type SandboxIbmi } from './sandbox/ibmi';

export interface AppServicesOptions {
  mode: Deps['mode'];
  appVersion: string;
  dataDir: string;
  /** The desktop app passes safeStorage's box; otherwise a key file in the data folder. */
  secrets?: SecretBox;
  log: Log;
  /** The local engine's port: 1717 as the spec's examples; 0 picks a free one (tests). */
  enginePort: number;
  runtime?: AgentRuntime;
  /** The app's log files, newest first, for diagnostics bundles. */
  logFiles?: () => string[];
}

export interface AppServices {
  dispatch: Dispatch;
  deps: Deps;
  close(): Promise<void>;
}

export async function startAppServices(o: AppServicesOptions): Promise<AppServices> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const secrets = o.secrets ?? keyFileSecretBox(join(o.dataDir, KEY_FILE));
  const profiles = createProfileStore(o.dataDir, secrets);
  const localEngine = await startLocalEngine({
    appVersion: o.appVersion,
    dataDir: o.dataDir,
    secrets,
    profiles,
    log: o.log,
    port: o.enginePort,
    runtime: o.runtime,
  });
  let sandbox: Promise<SandboxSqlServer> | undefined;
  let ibmi: Promise<SandboxIbmi> | undefined;
  const deps: Deps = {
    mode: o.mode,
    appVersion: o.appVersion,
    profiles,
    localEngine,
    connectEngine,
    logFiles: o.logFiles ?? (() => []),
    sandbox: {
      start: async () => {
        sandbox ??= startSandboxSqlServer({ seed: true }).catch((error: unknown) => {
          sandbox = undefined;
          throw error;
        });
        ibmi ??= startSandboxIbmi({ seed: true }).catch((error: unknown) => {
          ibmi = undefined;
          throw error;
        });
        return { port: (await sandbox).port, ibmiHost: (await ibmi).host };
      },
    },
    now: () => new Date(),
  };
  return {
    dispatch: createDispatch(handlers, deps, o.log),
    deps,
    close: async () => {
      await localEngine.close();
      await sandbox?.then((s) => s.close()).catch(() => undefined);
      await ibmi?.then((s) => s.close()).catch(() => undefined);
    },
  };
}
