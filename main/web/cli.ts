// `npm run web`: the main-process services in plain Node, serving the built renderer to a browser.
import { fileURLToPath } from 'node:url';
import { portOption, runCommandLine } from '../platform/cli';
import { defaultDataDir } from '../platform/dataDir';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createFileLog } from '../platform/fileLog';
import { startAppServices } from '../app/services';
import { appVersion } from '../platform/version';
import { startWebServer } from './server';

const usage = `Usage: npm run web -- [options]

  --port N           port of the web page (default 0: a free one, printed)
  --engine-port N    port of the local engine's control API (default: CDC_ADMIN_ENGINE_PORT, else 1717,
                     as the desktop app)
  --data DIR         data folder (default: the OS's app data folder)
  -h, --help         this text`;

runCommandLine(
  {
    usage,
    options: {
      port: { type: 'string', default: '0' },
      'engine-port': { type: 'string' },
      data: { type: 'string' },
    },
  },
  async ({ values }) => {
    const port = portOption('port', values.port);
    // The same setting as the desktop app's: the option, else CDC_ADMIN_ENGINE_PORT, else the spec's 1717.
    const fromEnv = process.env.CDC_ADMIN_ENGINE_PORT || undefined;
    const enginePort =
      values['engine-port'] !== undefined || fromEnv === undefined
        ? portOption('engine-port', values['engine-port'] ?? '1717')
        : portOption('engine-port (from CDC_ADMIN_ENGINE_PORT)', fromEnv);
    const dataDir = values.data ?? defaultDataDir();
    // Kept in the data folder's logs/ as the desktop app keeps its own, and echoed to the terminal:
    // the diagnostics bundle carries them (a support case needs what happened, not only what is).
    const logDir = join(dataDir, 'logs');
    mkdirSync(logDir, { recursive: true, mode: 0o700 });
    const log = createFileLog(logDir, { echo: (line) => process.stderr.write(line + '\n') });
    const services = await startAppServices({
      mode: 'web',
      appVersion: appVersion(),
      dataDir,
      log,
      logFiles: () => log.files(),
      enginePort,
      loadSandbox: () => import('../sandbox/mode').then((m) => m.sandboxMode()),
    });
    const staticRoot = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
    const server = await startWebServer({
      dispatch: services.dispatch,
      log,
      staticRoot,
      port,
      subscribe: services.deps.fleet.subscribe,
    });

    const engine = services.deps.localEngine.status();
    process.stdout.write(
      `\nCDC Admin (web mode) is running. Open this URL in a browser:\n\n  ${server.openUrl}\n\n`,
    );
    process.stdout.write(
      engine.running
        ? `Local engine: ${engine.url} (data in ${dataDir})\n`
        : `Local engine not running: ${engine.reason}\n`,
    );
    process.stdout.write('The token in the URL changes at every launch. Press Ctrl+C to stop.\n');

    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(
        signal,
        () => void Promise.all([server.close(), services.close()]).then(() => process.exit(0)),
      );
    }
  },
);
