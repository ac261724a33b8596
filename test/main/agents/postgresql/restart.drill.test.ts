// PostgreSQL, the target, stopped and started under a running pipeline (a server of the test's own, so
// the machine's shared one is never touched). Stopped briefly: the runner retries and catches up.
// Down past the retries: the runner stops with a reason that names the target, and a restart
// resumes from the checkpoint. Either way the target ends equal to the source.
import type sql from 'mssql';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeTables } from '../../../../main/agents/drivers/mssql/shape';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openSeedAgentSource } from '../../../helpers/changeTracking';
import {
  postgresBinaries,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../../helpers/privatePostgres';
import { postgresReplica, sourceReplica } from '../../../helpers/replica';
import { sandboxPool } from '../../../helpers/sandbox';
import { until } from '../../../helpers/until';

const customers = { schema: 'dbo', table: 'Customers' };
const SCHEMA = 'replica';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let server: PrivatePostgres;
beforeEach(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  server = await startPrivatePostgres();
});
afterEach(async () => {
  await admin.close();
  await sandbox.close();
  server.destroy();
});

function runner(
  events: RunnerEvent[],
  retry: { firstDelayMs: number; maxDelayMs: number; maxAttempts: number },
) {
  return new PipelineRunner({
    openSource: () => openSeedAgentSource(sandbox, 'pg-restart'),
    openTarget: async () =>
      new PostgresTarget(
        {
          host: server.host,
          port: server.port,
          database: server.database,
          user: server.user,
          schema: SCHEMA,
        },
        'pg-restart',
      ),
    entities: [{ source: customers, target: { table: 'customers' } }],
    onEvent: (e) => events.push(e),
    idleMs: 20,
    maxRows: 4,
    retry,
  });
}

let round = 0;
/** Inserts two customers and updates and deletes one, as an application would meanwhile. */
async function changeSource(): Promise<void> {
  round++;
  await admin.request().batch(`
    INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'Round ${round} a', NULL, 'CH', '2026-11-22 10:00:00');
    INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'Round ${round} b', 'b${round}@example.com', 'DE', '2026-11-22 11:00:00');
    UPDATE dbo.Customers SET Email = 'changed${round}@example.com' WHERE CustomerId = 1;
    DELETE FROM dbo.Customers WHERE Name = N'Round ${round - 1} a';`);
}

async function replicas() {
  const [shape] = await describeTables(admin, [customers]);
  if (!shape) throw new Error('no shape');
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    database: server.database,
  });
  await client.connect();
  try {
    return {
      target: await postgresReplica(client, SCHEMA, 'customers', shape),
      source: await sourceReplica(admin, shape, 6),
    };
  } finally {
    await client.end();
  }
}

const count = (events: RunnerEvent[], kind: RunnerEvent['kind']) =>
  events.filter((e) => e.kind === kind).length;

const binaries = postgresBinaries();
if (!binaries)
  process.stdout.write(
    'PostgreSQL restart drill skipped: no PostgreSQL server binaries under /usr/lib/postgresql ' +
      '(sudo npm run setup installs it).\n',
  );

describe.skipIf(!binaries)('PostgreSQL stopped and started under a running pipeline', () => {
  it('stopped for a while (pg_ctl stop -m fast): the runner retries, then catches up with nothing lost', async () => {
    const events: RunnerEvent[] = [];
    const running = runner(events, { firstDelayMs: 50, maxDelayMs: 400, maxAttempts: 100 });
    const loop = running.start();
    await until('the snapshot', () => count(events, 'snapshot-done') === 1);
    await changeSource();
    await until('the first batch', () => count(events, 'batch-applied') >= 1);

    server.stop('fast');
    for (let i = 0; i < 3; i++) await changeSource();
    await until('three retries', () => count(events, 'retrying') >= 3);
    const applied = count(events, 'batch-applied');
    server.start();
    await until('the catch-up', () => count(events, 'batch-applied') > applied);
    await until('the target to equal the source', async () => {
      const { target, source } = await replicas();
      return target.checksum === source.checksum;
    });
    await running.stop();
    await loop;

    expect(running.failure).toBeNull();
    const reasons = events.flatMap((e) => (e.kind === 'retrying' ? [e.reason] : []));
    expect(reasons.every((r) => /ECONNREFUSED|terminating connection|Connection terminated/.test(r))).toBe(
      true,
    );
    const { target, source } = await replicas();
    expect(target).toEqual(source);
  });

  it('down past the retries (pg_ctl stop -m immediate): the runner stops naming the target, and a restart resumes', async () => {
    const events: RunnerEvent[] = [];
    const first = runner(events, { firstDelayMs: 20, maxDelayMs: 50, maxAttempts: 4 });
    const loop = first.start();
    await until('the snapshot', () => count(events, 'snapshot-done') === 1);
    server.stop('immediate');
    await changeSource();
    await loop;
    expect(first.state).toBe('failed');
    expect(first.failure).toMatch(new RegExp(`PostgreSQL 127\\.0\\.0\\.1:${server.port}.*ECONNREFUSED`));
    expect(count(events, 'retrying')).toBe(4);

    server.start();
    await changeSource();
    const second = runner(events, { firstDelayMs: 20, maxDelayMs: 50, maxAttempts: 4 });
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    // The snapshot was not taken again: the checkpoint survived the crash.
    expect(count(events, 'snapshot-done')).toBe(1);
    const { target, source } = await replicas();
    expect(target).toEqual(source);
  });
});
