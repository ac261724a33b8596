// `npm run web`: the main-process services in plain Node, serving the built renderer to a browser.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDispatch } from '../dispatch';
import { handlers } from '../handlers';
import { consoleLog } from '../log';
import { appVersion } from '../version';
import { startWebServer } from './server';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(
    `--port must be a whole number from 0 to 65535 (0 picks a free port); got ${values.port}\n`,
  );
  process.exit(2);
}

const log = consoleLog();
const dispatch = createDispatch(handlers, { mode: 'web', appVersion: appVersion() }, log);
const staticRoot = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const server = await startWebServer({ dispatch, log, staticRoot, port });

process.stdout.write(
  `\nCDC Admin (web mode) is running. Open this URL in a browser:\n\n  ${server.openUrl}\n\n`,
);
process.stdout.write('The token in the URL changes at every launch. Press Ctrl+C to stop.\n');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().then(() => process.exit(0)));
}
