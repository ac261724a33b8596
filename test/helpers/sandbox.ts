// A mssql pool to the simulated SQL Server, configured as the tests connect: plain TCP, small pool.
import sql from 'mssql';
import type { SandboxSqlServer } from '../../main/sandbox/mssql';

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
