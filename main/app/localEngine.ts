// The app's own engine: started in-process with the app, reached like any other engine through the
// client, its token kept in the "local" profile and shown to the user once.
import { createEngineClient } from '../client/engineClient';
import { openEngine, type LocalEngine } from '../engine/engine';
import type { EngineDeps } from '../engine/operations';
import type { AgentRuntime } from '../agents/spi';
import { startEngineServer, type EngineServer } from '../engine/server';
import type { SecretBox } from '../platform/secretBox';
import type { Log } from '../platform/log';
import { LOCAL_PROFILE_ID, type ProfileStore } from './profiles';

export interface LocalEngineHandle {
  status(): { url: string | null; running: boolean; reason: string | null };
  /** The token to show the user, once: the first call after it was made answers it, later calls null. */
  takeTokenToShow(): string | null;
  rotateToken(): Promise<string>;
  /** The running engine's internals, for diagnostics bundles; undefined when it did not start. */
  engineDeps(): EngineDeps | undefined;
  close(): Promise<void>;
}

export interface LocalEngineOptions {
  dataDir: string;
  secrets: SecretBox;
  profiles: ProfileStore;
  log: Log;
  port: number;
  runtime?: AgentRuntime;
  appVersion: string;
}

export async function startLocalEngine(o: LocalEngineOptions): Promise<LocalEngineHandle> {
  let engine: LocalEngine | undefined;
  let server: EngineServer | undefined;
  let reason: string | null = null;
  let tokenToShow: string | null = null;
  try {
    engine = openEngine({
      dataDir: o.dataDir,
      log: o.log,
      secrets: o.secrets,
      runtime: o.runtime,
      appVersion: o.appVersion,
    });
    server = await startEngineServer(engine.deps, { port: o.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    reason =
      code === 'EADDRINUSE'
        ? `Port ${o.port} is in use, perhaps by another engine: add a profile for it, or free the port and restart.`
        : `The local engine did not start (${error instanceof Error ? error.name : 'error'}); see the log.`;
    o.log.warn('local_engine.not_started', { code: code ?? 'unknown' });
    await engine?.close();
    engine = undefined;
  }

  if (engine && server) {
    const existing = o.profiles.get(LOCAL_PROFILE_ID);
    let token = engine.firstStartToken;
    // The engine keeps only a hash: if the app lost its copy, it makes a new token in-process.
    if (!token && !existing?.tokenSet) token = engine.deps.tokens.rotate();
    if (token) tokenToShow = token;
    await o.profiles.save({
      id: LOCAL_PROFILE_ID,
      name: 'Local engine',
      baseUrl: server.url,
      ...(token && { token }),
    });
  }

  return {
    status: () => ({ url: server?.url ?? null, running: server !== undefined, reason }),
    takeTokenToShow: () => {
      const shown = tokenToShow;
      tokenToShow = null;
      return shown;
    },
    rotateToken: async () => {
      const current = await o.profiles.token(LOCAL_PROFILE_ID);
      if (!server || !current) throw new Error('The local engine is not running.');
      const { token } = await createEngineClient({ baseUrl: server.url, token: current }).rotateToken({});
      await o.profiles.save({ id: LOCAL_PROFILE_ID, name: 'Local engine', baseUrl: server.url, token });
      return token;
    },
    engineDeps: () => engine?.deps,
    close: async () => {
      await server?.close();
      await engine?.close();
    },
  };
}
