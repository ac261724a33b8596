// The stream beyond one machine, under failure: a three-node JetStream cluster started here (three
// nats-server processes on loopback ports, an R3 stream), 105,000 change events captured from the
// simulated SQL Server (30,000 rows copied, then 75,000 inserted, updated and deleted) while the node
// leading the stream is killed (SIGKILL) and kept down 12 s, the third node frozen for the first 4 s of
// it (no quorum, so the engine surely meets a stream with no leader), the engine left alone meanwhile
// (it must retry through the election, never fail, and apply again with the node still down), then
// the node started again; the capture engine is killed with
// SIGKILL twice, outside that window. Every change is in the stream exactly once — by message id and by content —
// a consumer written against Debezium's envelope ends with the source's rows, and so does the apply
// side (the stream applied into SQLite).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type sql from 'mssql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsSource } from '../../../../main/agents/nats/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { applyEvents, readStream } from '../../../helpers/debeziumConsumer';
import { startNatsCluster, type NatsCluster, type NatsNode } from '../../../helpers/natsServer';
import { DBA, sandboxPool } from '../../../helpers/sandbox';
import { until } from '../../../helpers/until';

const CHILD = fileURLToPath(new URL('./clusterChild.ts', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../../artifacts', import.meta.url));
const COPIED = 30_000;
const STATEMENTS = 80;
const PER_STATEMENT = 1000;
const STREAM = 'DRILL';
/** How long the stream's leader stays down with no engine restart: the election is the engine's alone to ride out. */
const LEADER_DOWN_MS = 12_000;
/** How long, from the leader's loss, the stream has no quorum (the bystander frozen). */
const NO_QUORUM_MS = 4_000;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let cluster: NatsCluster;

function capture(mode?: string): { process: ChildProcess; events: string[] } {
  // One process (node with tsx's loader), so SIGKILL kills the engine itself, not a wrapper.
  const p = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, String(sandbox.port), cluster.servers, STREAM, ...(mode ? [mode] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const events: string[] = [];
  createInterface({ input: p.stdout as NodeJS.ReadableStream }).on('line', (l) => events.push(l));
  return { process: p, events };
}

const exited = (p: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    p.exitCode !== null ? resolve(p.exitCode) : p.once('exit', resolve),
  );

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  cluster = await startNatsCluster(3, ARTIFACTS);
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  admin = await sandboxPool(sandbox, { max: 2 });
  await admin.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE TABLE dbo.Ledger (Id INT PRIMARY KEY, Owner NVARCHAR(40) NOT NULL, Amount DECIMAL(14, 2) NOT NULL, At DATETIME2(7) NOT NULL);
    ALTER TABLE dbo.Ledger ENABLE CHANGE_TRACKING;`);
  for (let from = 0; from < COPIED; from += 1000) {
    const rows = Array.from(
      { length: 1000 },
      (_, i) =>
        `(${from + i}, N'owner ${from + i} ✓', ${(from + i) % 997}.25, '2026-01-01 10:00:00.1234567')`,
    );
    await admin.request().batch(`INSERT INTO dbo.Ledger VALUES ${rows.join(', ')}`);
  }
}, 120_000);

afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
  cluster?.destroy();
});

/** The node the capture engine's connection is on, from each node's monitoring (/connz). */
async function engineNode(): Promise<number> {
  const seen: string[] = [];
  for (let tries = 0; tries < 100; tries++) {
    for (const [i, node] of cluster.nodes.entries()) {
      const answer = await fetch(`http://127.0.0.1:${node.monitorPort}/connz`).catch(() => undefined);
      const connz = (await answer?.json().catch(() => undefined)) as
        { connections?: { name?: string }[] } | undefined;
      const names = connz?.connections?.map((c) => c.name ?? '') ?? [];
      if (names.includes('cdc-admin drill')) return i;
      seen.push(`n${i}: ${names.join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`No node has the engine's connection; seen ${seen.slice(-3).join('; ')}`);
}

/**
 * The node that leads the stream's replicas, killed while the engine is connected to another: its
 * publishes then meet the election itself (503, no responders) rather than a reconnect. When the
 * engine sits on the leader, the leader steps down first. The third node (the bystander) is frozen
 * at once, for NO_QUORUM_MS: with one replica of three answering no leader can be elected, so the
 * engine is sure to meet a stream with no leader (an election between two live nodes can end before
 * the engine's next publish, and then the drill would prove nothing).
 */
async function killStreamLeader(): Promise<{ lost: NatsNode; bystander: NatsNode }> {
  const nc = await connect({ servers: cluster.servers.split(',') });
  const jsm = await jetstreamManager(nc);
  const leaderOf = async () => Number(((await jsm.streams.info(STREAM)).cluster?.leader ?? 'n0').slice(1));
  let leader = await leaderOf();
  const engineOn = await engineNode();
  while (leader === engineOn) {
    await nc
      .request(`$JS.API.STREAM.LEADER.STEPDOWN.${STREAM}`, undefined, { timeout: 5000 })
      .catch(() => undefined);
    await until(
      'a new stream leader',
      async () => (await leaderOf().catch(() => engineOn)) !== engineOn,
      30_000,
    );
    leader = await leaderOf();
  }
  await nc.close();
  const lost = cluster.nodes[leader] as NatsNode;
  const bystander = cluster.nodes.find((_, i) => i !== leader && i !== engineOn) as NatsNode;
  lost.kill();
  bystander.freeze();
  return { lost, bystander };
}

/** Statement `n` of the change load: 1,000 rows inserted, updated or deleted at once (one version). */
function statement(n: number): string {
  const block = n * PER_STATEMENT;
  if (n % 4 === 0 || n % 4 === 2) {
    const rows = Array.from(
      { length: PER_STATEMENT },
      (_, i) => `(${100_000 + block + i}, N'new ${block + i}', -${i}.05, '2026-02-02 02:02:02.2222222')`,
    );
    return `INSERT INTO dbo.Ledger VALUES ${rows.join(', ')}`;
  }
  const first = (Math.floor(n / 4) * 2 + (n % 4 === 1 ? 0 : 1)) * PER_STATEMENT;
  return n % 4 === 1
    ? `UPDATE dbo.Ledger SET Amount = Amount + 1.01, Owner = N'changed ${n}' WHERE Id >= ${first % COPIED} AND Id < ${(first % COPIED) + PER_STATEMENT}`
    : `DELETE FROM dbo.Ledger WHERE Id >= ${first % COPIED} AND Id < ${(first % COPIED) + PER_STATEMENT}`;
}

it(
  'streams 100,000 changes into an R3 stream exactly once through a node’s loss and two SIGKILLs',
  { timeout: 900_000 },
  async () => {
    let engine = capture();
    let lost: NatsNode | undefined;
    let leaderDown = { at: 0, from: 0, thawed: Promise.resolve(0) };
    await until('the copy', () => engine.events.some((l) => l.includes('"snapshot-done"')), 300_000);
    for (let n = 0; n < STATEMENTS; n++) {
      await admin.request().batch(statement(n));
      if (n === 20 || n === 60) {
        engine.process.kill('SIGKILL');
        await exited(engine.process);
        engine = capture();
      }
      if (n === 35) {
        // Streaming again after the restart at 20, so the loss meets publishes, not a start.
        const current = engine;
        await until(
          'the restarted engine streams',
          () => current.events.some((l) => l.includes('"batch-applied"')),
          120_000,
        );
        const killed = await killStreamLeader();
        lost = killed.lost;
        const at = Date.now();
        const thawed = new Promise<number>((resolve) =>
          setTimeout(() => {
            killed.bystander.thaw();
            resolve(current.events.length);
          }, NO_QUORUM_MS),
        );
        leaderDown = { at, from: engine.events.length, thawed };
      }
      if (n === 50) {
        // The engine rides out the election by itself: nothing restarts it while the node is down.
        const healedFrom = await leaderDown.thawed;
        const current = engine;
        await until(
          'changes applied again with the leader still down',
          () => current.events.slice(healedFrom).some((l) => l.includes('"batch-applied"')),
          120_000,
        );
        await new Promise((r) => setTimeout(r, Math.max(0, leaderDown.at + LEADER_DOWN_MS - Date.now())));
        const during = engine.events.slice(leaderDown.from);
        expect(engine.process.exitCode, 'the engine lived through the leader’s loss').toBeNull();
        expect(during.filter((l) => l.includes('"kind":"failed"'))).toEqual([]);
        const retries = during.filter((l) => l.includes('"kind":"retrying"'));
        expect(retries.length, 'retries recorded while the leader was down').toBeGreaterThan(0);
        for (const r of retries) expect(r).not.toMatch(/jetstream is not enabled/i);
        expect(retries.join('\n')).toMatch(
          /(No JetStream server answered for|The JetStream cluster cannot serve) stream DRILL/,
        );
        await lost?.start();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    engine.process.kill('SIGKILL');
    await exited(engine.process);
    const last = capture('--until-caught-up');
    expect(await exited(last.process)).toBe(0);

    const events = (await readStream(cluster.servers, STREAM, 'drill.Sales.dbo.Ledger')).filter(
      (e) => e.value !== null,
    );
    const ids = events.map((e) => e.msgId);
    expect(new Set(ids).size).toBe(ids.length);
    const contents = events.map((e) =>
      JSON.stringify({
        ...e.value,
        ts_ms: 0,
        ts_us: 0,
        ts_ns: 0,
        source: (e.value?.source as { change_lsn?: string })?.change_lsn,
      }),
    );
    expect(new Set(contents).size).toBe(contents.length);
    const changes = events.filter((e) => e.value?.op !== 't').length;
    expect(changes).toBeGreaterThanOrEqual(100_000);

    const { recordset } = await admin
      .request()
      .query<{ Id: number; Owner: string; Amount: string }>(
        'SELECT Id, Owner, CONVERT(varchar(20), Amount) AS Amount FROM dbo.Ledger ORDER BY Id',
      );
    const expected = recordset.map((r) => `${r.Id}|${r.Owner}|${r.Amount}`);
    const consumed = [...(applyEvents(events).get('dbo.Ledger')?.values() ?? [])]
      .map((r) => `${String(r.Id)}|${String(r.Owner)}|${String(r.Amount)}`)
      .sort((a, b) => Number(a.split('|')[0]) - Number(b.split('|')[0]));
    expect(consumed).toEqual(expected);

    // The apply side: the stream into SQLite, equal to the source.
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-drill-apply-')), 'replica.sqlite');
    const applier = new PipelineRunner({
      openSource: () =>
        NatsSource.open({
          credentials: { connectionName: 'drill', servers: cluster.servers, tls: false },
          configuration: natsConfiguration.schema.parse({
            stream: STREAM,
            subjectPrefix: 'drill',
            sourceDatabase: 'Sales',
          }),
          pipelineId: 'drill-apply',
        }),
      openTarget: async () => new SqliteTarget(path, 'drill-apply'),
      entities: [{ source: { schema: 'dbo', table: 'Ledger' }, target: { table: 'Ledger' } }],
      idleMs: 20,
    });
    await applier.runUntilCaughtUp();
    const db = new Database(path, { readonly: true });
    const applied = (
      db.prepare('SELECT Id, Owner, Amount FROM Ledger ORDER BY Id').all() as {
        Id: number;
        Owner: string;
        Amount: string;
      }[]
    ).map((r) => `${r.Id}|${r.Owner}|${r.Amount}`);
    db.close();
    expect(applied).toEqual(expected);
  },
);
