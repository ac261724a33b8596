// PostgreSQL for the run: the machine's server on 127.0.0.1:5432 when it answers (trust, as CI and the
// README set it up), else one of the run's own, started from the machine's server binaries on a free
// port in test/artifacts/, and stopped at the end. Tests reach it through test/helpers/replica.ts's
// POSTGRES, which reads the port this sets.
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres';

const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));
export const PORT_VARIABLE = 'CDC_TEST_PGPORT';

async function answers(port: number): Promise<pg.Client | undefined> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: process.env.PGUSER ?? 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    return client;
  } catch {
    await client.end().catch(() => undefined);
    return undefined;
  }
}

async function ensureTestDatabase(client: pg.Client): Promise<void> {
  const found = await client.query("SELECT 1 FROM pg_database WHERE datname = 'test'");
  if (found.rowCount === 0) await client.query('CREATE DATABASE test');
  await client.end();
}

let own: PrivatePostgres | undefined;

export async function setup(): Promise<void> {
  const shared = await answers(5432);
  if (shared) return ensureTestDatabase(shared);
  mkdirSync(ARTIFACTS, { recursive: true });
  own = await startPrivatePostgres(ARTIFACTS);
  process.env[PORT_VARIABLE] = String(own.port);
  process.stdout.write(
    `No PostgreSQL answers on 127.0.0.1:5432: the run uses its own, on port ${own.port}.\n`,
  );
  const client = await answers(own.port);
  if (!client) throw new Error(`The run's own PostgreSQL on port ${own.port} does not answer.`);
  await ensureTestDatabase(client);
}

export function teardown(): void {
  own?.destroy();
}
