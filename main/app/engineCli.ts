// `npm run engine`: the local engine without Electron. Prints the admin token on first start only.
// `--sandbox-ibmi` also starts the simulated IBM i in this process (it has no network protocol of its
// own), under a host name journal agents of this engine can use.
import { defaultDataDir } from '../platform/dataDir';
import { ENGINE_SETTING_HELP, engineSettingsSchema } from '../../shared/engineSettings';
import { portOption, runCommandLine, UsageError } from '../platform/cli';
import { consoleLog } from '../platform/log';
import { appVersion } from '../platform/version';
import { openEngine } from '../engine/engine';
import { certificateFromFiles, ownCertificate } from './engineCertificate';
import { startEngineServer } from '../engine/server';

type SettingKey = keyof typeof ENGINE_SETTING_HELP;
const SETTING_KEYS = Object.keys(ENGINE_SETTING_HELP) as SettingKey[];
/** keepEventDays → keep-event-days. */
const optionOf = (key: SettingKey) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const usage = `Usage: npm run engine -- [options]

  --host HOST        address to listen on (default 127.0.0.1, loopback only); any other address
                     speaks HTTPS only, never the token over plain HTTP
  --tls-cert FILE    the certificate (PEM) for HTTPS; with --tls-key
  --tls-key FILE     its private key (PEM). Beyond loopback without them, the engine makes a
                     certificate of its own once (DATA/tls/) and prints its SHA-256 fingerprint
  --port N           port of the control API (default 1717; 0 picks a free one)
  --data DIR         data folder (default: the OS's app data folder)
  --rotate-token     make a new admin token, print it once, and exit
  --sandbox-ibmi     also run the simulated IBM i, as host "sandbox-ibmi" (simulators/ibmi/CONFORMANCE.md)
${SETTING_KEYS.map((k) => `  --${optionOf(k)} N  ${ENGINE_SETTING_HELP[k].what}: ${ENGINE_SETTING_HELP[k].rule}`).join('\n')}
  -h, --help         this text`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** HTTPS when a certificate is given, and always beyond loopback (with the engine's own when none is). */
async function tlsFor(host: string, dataDir: string, certFile?: string, keyFile?: string) {
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError('--tls-cert and --tls-key go together: give both, or neither');
  if (certFile && keyFile) {
    try {
      return { ...certificateFromFiles(certFile, keyFile), made: false };
    } catch (error) {
      throw new UsageError(`Cannot read the certificate or key: ${(error as Error).message}`);
    }
  }
  return LOOPBACK.has(host) ? undefined : ownCertificate(dataDir, host);
}

runCommandLine(
  {
    usage,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '1717' },
      data: { type: 'string' },
      'rotate-token': { type: 'boolean', default: false },
      'sandbox-ibmi': { type: 'boolean', default: false },
      ...Object.fromEntries(SETTING_KEYS.map((k) => [optionOf(k), { type: 'string' as const }])),
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
    },
  },
  async ({ values }) => {
    const port = portOption('port', values.port);
    const given = (k: SettingKey) => {
      const v = (values as Record<string, unknown>)[optionOf(k)];
      return typeof v === 'string' ? v : undefined;
    };
    const settings = engineSettingsSchema.safeParse(
      Object.fromEntries(SETTING_KEYS.map((k) => [k, given(k) === undefined ? undefined : Number(given(k))])),
    );
    if (!settings.success) {
      const key = SETTING_KEYS.find((k) => k === settings.error.issues[0]?.path[0]) ?? 'keepEvents';
      throw new UsageError(
        `--${optionOf(key)} (${ENGINE_SETTING_HELP[key].what}) must be ${ENGINE_SETTING_HELP[key].rule}; got "${given(key)}"`,
      );
    }
    const dataDir = values.data ?? defaultDataDir();
    const tls = await tlsFor(values.host, dataDir, values['tls-cert'], values['tls-key']);
    const log = consoleLog();
    // Before the engine opens: it resumes running pipelines at once, and a sandbox journal pipeline
    // needs its simulated IBM i to exist by then.
    const sandbox = values['sandbox-ibmi']
      ? await import('../sandbox/engineIbmi').then((m) => m.startEngineIbmi('sandbox-ibmi'))
      : undefined;
    const ibmi = sandbox?.ibmi;
    // A certificate and key given by path are the engine's own files too: never a replica's file.
    const ownFiles = [values['tls-cert'], values['tls-key']].filter((f): f is string => f !== undefined);
    const engine = openEngine({ dataDir, log, appVersion: appVersion(), settings: settings.data, ownFiles });

    const showToken = (token: string, why: string) =>
      process.stdout.write(
        `\n${why}\n\n  ${token}\n\nIt is shown once and stored only as a hash: keep it in your password manager.\n` +
          `Send it as "Authorization: Bearer <token>". Lost it? Run: npm run engine -- --rotate-token\n\n`,
      );

    if (values['rotate-token']) {
      showToken(engine.deps.tokens.rotate(), 'New admin token (the previous one no longer works):');
      await engine.close();
      await ibmi?.close();
      process.exit(0);
    }

    if (engine.firstStartToken)
      showToken(engine.firstStartToken, 'First start: this is the admin token of this engine.');
    if (tls)
      process.stdout.write(
        `HTTPS with ${tls.made ? 'a new certificate of this engine' : 'the certificate'} whose SHA-256 fingerprint is\n  ${tls.fingerprint256}\n` +
          'Compare it with what the app shows when it first connects (it pins it, and says when it changes).\n',
      );
    const server = await startEngineServer(engine.deps, { host: values.host, port, tls });
    process.stdout.write(`Engine listening on ${server.url} (data in ${dataDir}). Press Ctrl+C to stop.\n`);
    if (sandbox) process.stdout.write(sandbox.signOn);

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
  },
);
