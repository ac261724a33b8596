// Everything main runs for the renderer, the same in Electron and web mode: profiles, the local
// engine, and the dispatcher of the contract.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDispatch, type Dispatch } from './dispatch';
import type { AgentRuntime } from '../agents/spi';
import { KEY_FILE, keyFileSecretBox, type SecretBox } from '../platform/secretBox';
import { connectEngine, engineAccess, handlers, UserError, type Deps } from './handlers';
import { createAlertSettingsStore } from './alerts';
import { createFleet } from './fleet';
import { startLocalEngine } from './localEngine';
import type { Log } from '../platform/log';
import { createProfileStore } from './profiles';
import type { SandboxMode } from '../sandbox/mode';

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
  /**
   * Sandbox mode, registered where the app is assembled (the Electron entry, web mode) and loaded
   * only when the user asks for it; without it, the app answers that this build has no sandbox.
   */
  loadSandbox?: () => Promise<SandboxMode>;
  /** The app's log files, newest first, for diagnostics bundles. */
  logFiles?: () => string[];
  /** The desktop app's PDF printer for readiness reports. */
  printToPdf?: Deps['printToPdf'];
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
  let sandbox: Promise<SandboxMode> | undefined;
  const alertSettings = createAlertSettingsStore(o.dataDir);
  const fleet = createFleet({
    profiles: () => profiles.list(),
    access: async (profile) => (await engineAccess({ profiles }, profile)).options,
    settings: () => alertSettings.get(),
    now: () => new Date(),
  });
  fleet.sync();
  // A profile saved (its address or token perhaps changed) is watched afresh; a removed one dropped.
  profiles.onChange((id) => fleet.sync(id));
  const deps: Deps = {
    mode: o.mode,
    appVersion: o.appVersion,
    profiles,
    localEngine,
    connectEngine,
    logFiles: o.logFiles ?? (() => []),
    printToPdf: o.printToPdf ?? null,
    sandbox: {
      start: async () => {
        const load = o.loadSandbox;
        if (!load) throw new UserError('This build of the app has no sandbox mode.');
        sandbox ??= load().catch((error: unknown) => {
          sandbox = undefined;
          throw error;
        });
        return (await sandbox).start();
      },
      // Before a start there is nothing to show, and a workload has nothing to write to.
      details: async () => (sandbox ? (await sandbox).details() : null),
      setWorkload: async (rate) => {
        if (!sandbox) throw new UserError('Start the sandbox first (Try the sandbox).');
        return (await sandbox).setWorkload(rate);
      },
    },
    fleet,
    alertSettings,
    now: () => new Date(),
  };
  return {
    dispatch: createDispatch(handlers, deps, o.log),
    deps,
    close: async () => {
      fleet.close();
      await localEngine.close();
      await sandbox?.then((s) => s.close()).catch(() => undefined);
    },
  };
}
