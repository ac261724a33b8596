// `npm run sandbox -- mssql [--port N] [--tls] [--empty]`: runs a stand-in database until Ctrl+C.
import { parseArgs } from 'node:util';
import { startSandboxSqlServer } from './mssql';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '0' },
    tls: { type: 'boolean', default: false },
    empty: { type: 'boolean', default: false },
  },
});
const kind = positionals[0];
if (kind !== 'mssql') {
  process.stderr.write(
    'Usage: npm run sandbox -- mssql [--port N] [--tls] [--empty]\n' +
      '(the simulated IBM i runs inside an engine, having no network protocol: npm run engine -- --sandbox-ibmi)\n',
  );
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be a whole number from 0 to 65535; got ${values.port}\n`);
  process.exit(2);
}
const sandbox = await startSandboxSqlServer({ port, tls: values.tls, seed: !values.empty });
process.stdout.write(
  `Simulated SQL Server listening on ${sandbox.host}:${sandbox.port}\n` +
    `Logins: ${sandbox.logins.map((l) => l.name).join(', ')} (passwords in docs/sandbox-sqlserver.md)\n` +
    (values.empty
      ? 'No sample data (--empty).\n'
      : 'Sample database: Sales (Change Tracking on Customers, Orders, OrderLines).\n') +
    (sandbox.caFile
      ? `TLS on: trust the CA in ${sandbox.caFile} (certificatePath)\n`
      : 'TLS off (start with --tls to offer it)\n') +
    'Press Ctrl+C to stop.\n',
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void sandbox.close().then(() => process.exit(0)));
