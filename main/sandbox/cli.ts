// `npm run sandbox -- mssql [--port N] [--tls] [--empty]`: runs a stand-in database until Ctrl+C.
import { portOption, runCommandLine, UsageError } from '../platform/cli';
import { startSandboxSqlServer } from '../../simulators/mssql';

const usage = `Usage: npm run sandbox -- mssql [options]

  --port N     port of the simulated SQL Server (default 0: a free one, printed)
  --tls        offer TLS, with a CA file made for it (its path is printed)
  --empty      no sample database
  -h, --help   this text

The simulated IBM i runs inside an engine, having no network protocol: npm run engine -- --sandbox-ibmi`;

runCommandLine(
  {
    usage,
    allowPositionals: true,
    options: {
      port: { type: 'string', default: '0' },
      tls: { type: 'boolean', default: false },
      empty: { type: 'boolean', default: false },
    },
  },
  async ({ values, positionals }) => {
    if (positionals.length !== 1 || positionals[0] !== 'mssql')
      throw new UsageError(`Name the database to simulate: mssql (got "${positionals.join(' ')}")`);
    const port = portOption('port', values.port);
    const sandbox = await startSandboxSqlServer({ port, tls: values.tls, seed: !values.empty });
    process.stdout.write(
      `Simulated SQL Server listening on ${sandbox.host}:${sandbox.port}\n` +
        `Logins: ${sandbox.logins.map((l) => l.name).join(', ')} (passwords in simulators/mssql/CONFORMANCE.md)\n` +
        (values.empty
          ? 'No sample data (--empty).\n'
          : 'Sample database: Sales (Change Tracking on Customers, Orders, OrderLines).\n') +
        (sandbox.caFile
          ? `TLS on: trust the CA in ${sandbox.caFile} (CA certificate file)\n`
          : 'TLS off (start with --tls to offer it)\n') +
        'Press Ctrl+C to stop.\n',
    );
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.on(signal, () => void sandbox.close().then(() => process.exit(0)));
  },
);
