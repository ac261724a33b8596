// `npm run engine`: the local engine without Electron. Prints the admin token on first start only.
// `--sandbox-ibmi` also starts the simulated IBM i in this process (it has no network protocol of its
// own), under a host name journal agents of this engine can use.
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../dataDir';
import { consoleLog } from '../log';
import { appVersion } from '../version';
import { openEngine } from './engine';
import { startEngineServer } from './server';
import { startSandboxIbmi } from '../sandbox/ibmi';
import { SEED_AGENT } from '../sandbox/ibmi/seed';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '1717' },
    data: { type: 'string' },
    'rotate-token': { type: 'boolean', default: false },
    'sandbox-ibmi': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be a whole number from 0 to 65535; got ${values.port}\n`);
  process.exit(2);
}
const dataDir = values.data ?? defaultDataDir();
const log = consoleLog();
const engine = openEngine({ dataDir, log, appVersion: appVersion() });

const showToken = (token: string, why: string) =>
  process.stdout.write(
    `\n${why}\n\n  ${token}\n\nIt is shown once and stored only as a hash: keep it in your password manager.\n` +
      `Send it as "Authorization: Bearer <token>". Lost it? Run: npm run engine -- --rotate-token\n\n`,
  );

if (values['rotate-token']) {
  showToken(engine.deps.tokens.rotate(), 'New admin token (the previous one no longer works):');
  await engine.close();
  process.exit(0);
}

if (engine.firstStartToken)
  showToken(engine.firstStartToken, 'First start: this is the admin token of this engine.');
if (values.host !== '127.0.0.1' && values.host !== 'localhost' && values.host !== '::1') {
  process.stderr.write(`Warning: listening on ${values.host}, not loopback: the API speaks plain HTTP.\n`);
}
const server = await startEngineServer(engine.deps, { host: values.host, port });
process.stdout.write(`Engine listening on ${server.url} (data in ${dataDir}). Press Ctrl+C to stop.\n`);
const ibmi = values['sandbox-ibmi']
  ? await startSandboxIbmi({ seed: true, host: 'sandbox-ibmi' })
  : undefined;
if (ibmi)
  process.stdout.write(
    `Simulated IBM i: host "${ibmi.host}", user ${SEED_AGENT.user} / ${SEED_AGENT.password}, libraries SHOP and LEGACY (docs/ibmi.md).\n`,
  );

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(
    signal,
    () =>
      void server
        .close()
        .then(() => engine.close())
        .then(() => ibmi?.close())
        .then(() => process.exit(0)),
  );
}
