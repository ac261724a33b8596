// `npm run web`: the main-process services in plain Node, serving the built renderer to a browser.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../dataDir';
import { consoleLog } from '../log';
import { startAppServices } from '../services';
import { appVersion } from '../version';
import { startWebServer } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'engine-port': { type: 'string', default: '1717' },
    data: { type: 'string' },
  },
});
function portOption(name: string, text: string | undefined): number {
  const port = Number(text);
  if (Number.isInteger(port) && port >= 0 && port <= 65535) return port;
  process.stderr.write(
    `--${name} must be a whole number from 0 to 65535 (0 picks a free port); got ${text}\n`,
  );
  process.exit(2);
}
const port = portOption('port', values.port);
const enginePort = portOption('engine-port', values['engine-port']);

const log = consoleLog();
const dataDir = values.data ?? defaultDataDir();
const services = await startAppServices({ mode: 'web', appVersion: appVersion(), dataDir, log, enginePort });
const staticRoot = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const server = await startWebServer({ dispatch: services.dispatch, log, staticRoot, port });

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
  process.on(signal, () => void Promise.all([server.close(), services.close()]).then(() => process.exit(0)));
}
