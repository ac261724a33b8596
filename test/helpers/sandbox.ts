// A mssql pool to the simulated SQL Server, configured as the tests connect: plain TCP, small pool;
// and a whole session (server, pool, setup) for the simulator's own tests.
import sql from 'mssql';
import { afterAll, beforeAll } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';

export const DBA = { name: 'dba', password: 'Dba-Pa55' };

export function sandboxPool(
  sandbox: SandboxSqlServer,
  options: { user?: string; password?: string; database?: string; max?: number } = {},
): Promise<sql.ConnectionPool> {
  return new sql.ConnectionPool({
    server: '127.0.0.1',
    port: sandbox.port,
    user: options.user ?? DBA.name,
    password: options.password ?? DBA.password,
    database: options.database ?? 'Sales',
    options: { encrypt: false },
    pool: { max: options.max ?? 1, min: 0 },
  }).connect();
}

/** The error a request failed with; undefined when it succeeded. */
export const refused = (p: Promise<unknown>): Promise<sql.RequestError | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );

/**
 * A simulated SQL Server (database Sales, the DBA login) and a pool of one connection for the tests of
 * one file, started before them with `setup` run as a batch, and closed after them.
 */
export function sandboxSession(setup = ''): {
  readonly pool: sql.ConnectionPool;
  run: (text: string) => Promise<sql.IResult<unknown>>;
} {
  let sandbox: SandboxSqlServer | undefined;
  let pool: sql.ConnectionPool | undefined;
  beforeAll(async () => {
    sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
    pool = await sandboxPool(sandbox, { max: 1 });
    if (setup) await pool.request().batch(setup);
  });
  afterAll(async () => {
    await pool?.close();
    await sandbox?.close();
  });
  const open = () => {
    if (!pool) throw new Error('The sandbox session is used before it started.');
    return pool;
  };
  return {
    get pool() {
      return open();
    },
    run: (text) => open().request().batch(text),
  };
}
