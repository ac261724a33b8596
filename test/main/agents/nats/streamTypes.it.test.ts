// Every type of both sources' mappings through the stream, told apart from replication straight into
// the target: the same tables (SQL Server's every type with values at their edges; IBM i's CCSIDs,
// DECFLOAT, timestamps to the picosecond, BOOLEAN, ROWID, 63-digit numbers) replicated directly into
// SQLite and PostgreSQL, and captured into JetStream then applied from it into the same kind of
// target; copied, then changed. The two targets must hold the same values, cell for cell. The values
// the direct path holds are themselves checked against written-out ones by the types and charsets
// suites. SQL Server's stream sends precise decimals, IBM i's decimals as text (a DECFLOAT NaN has no
// precise form), so both modes travel.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import type { Entity } from '../../../../shared/controlApi';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { NatsSource } from '../../../../main/agents/nats/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import type { SourceAgent } from '../../../../main/agents/source';
import type { SourceOrigin } from '../../../../main/agents/spi';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import { startSandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { ctConfiguration, readySandbox, sandboxCredentials } from '../../../helpers/changeTracking';
import { createWorldFiles, WORLD_FILES, writeWorld } from '../../../helpers/ibmiWorld';
import { journalConfiguration, sandboxIbmiCredentials } from '../../../helpers/journal';
import { natsServers } from '../../../helpers/natsServer';
import { POSTGRES, postgresClient } from '../../../helpers/replica';
import {
  EXACT_CHANGES,
  KIND_CHANGES,
  LEGACY_CHANGES,
  PLACE_CHANGES,
  SETTING_CHANGES,
  SQL_SERVER_KINDS,
} from '../../../helpers/sqlServerKinds';

const SERVERS = natsServers();
const credentials = { connectionName: 'types', servers: SERVERS, tls: false };
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

interface World {
  open(pipeline: 'direct' | 'capture'): Promise<SourceAgent>;
  entities: Entity[];
  origin: SourceOrigin;
  decimalHandling: 'precise' | 'string';
  change(): Promise<void>;
}

/** The types the kinds' tables leave out: dates and times of each precision, the integers, fixed bytes. */
const CLOCKS = `
      CREATE TABLE dbo.Clocks (Id BIGINT PRIMARY KEY, Day DATE NULL, T0 TIME(0) NULL, T3 TIME(3) NULL,
        T6 TIME(6) NULL, T7 TIME(7) NULL, Old DATETIME NULL, D0 DATETIME2(0) NULL, D3 DATETIME2(3) NULL,
        Tiny TINYINT NULL, Small SMALLINT NULL, Fixed BINARY(4) NULL, Plain VARCHAR(20) NULL, Whole NUMERIC(5,0) NULL);
      ALTER TABLE dbo.Clocks ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Clocks VALUES
        (-9223372036854775808, '0001-01-01', '00:00:00', '23:59:59.999', '12:00:00.000001', '23:59:59.9999999',
         '1753-01-01 00:00:00.000', '0001-01-01 00:00:00', '9999-12-31 23:59:59.999', 0, -32768, 0x00FF10AB, 'plain', -99999),
        (9223372036854775807, '9999-12-31', '12:34:56', '00:00:00.001', '00:00:00.999999', '00:00:00.0000001',
         '9999-12-31 23:59:59.997', '1970-01-01 00:00:00', '1969-12-31 23:59:59.999', 255, 32767, 0x00000000, '', 99999),
        (0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`;
const CLOCK_CHANGES = `UPDATE dbo.Clocks SET Day = '1969-12-31', T7 = '13:14:15.1234567', Old = '2000-02-29 12:00:00.003' WHERE Id = 0;
      INSERT INTO dbo.Clocks VALUES (42, '2026-11-27', '01:02:03', '01:02:03.456', '01:02:03.456789', '01:02:03.4567891',
        '2026-11-27 01:02:03.457', '2026-11-27 01:02:03', '2026-11-27 01:02:03.456', 42, -42, 0xDEADBEEF, 'x', 42);`;

async function sqlServerWorld(): Promise<World> {
  const { sandbox, admin } = await readySandbox(`${SQL_SERVER_KINDS}${CLOCKS}`);
  cleanups.push(async () => {
    await admin.close();
    await sandbox.close();
  });
  return {
    open: (pipeline) =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sandbox),
        configuration: ctConfiguration({ snapshotChunkRows: 2 }),
        pipelineId: pipeline,
        agentId: 'src',
      }),
    entities: ['Kinds', 'Exacts', 'Legacy', 'Places', 'Settings', 'Clocks'].map((table) => ({
      source: { schema: 'dbo', table },
      target: { table: table.toLowerCase() },
      rowIdentification: { kind: 'primaryKey' },
    })),
    origin: { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
    decimalHandling: 'precise',
    change: async () => {
      for (const batch of [
        KIND_CHANGES,
        EXACT_CHANGES,
        LEGACY_CHANGES,
        PLACE_CHANGES,
        SETTING_CHANGES,
        CLOCK_CHANGES,
      ])
        await admin.request().batch(batch);
    },
  };
}

async function ibmiWorld(): Promise<World> {
  const sandbox = await startSandboxIbmi({ seed: true });
  const admin = await sandbox.connect({ ...SEED_ADMIN });
  cleanups.push(async () => {
    await admin.close();
    await sandbox.close();
  });
  await createWorldFiles(admin);
  await writeWorld(admin, 'copied');
  return {
    open: (pipeline) =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: pipeline.toUpperCase() }),
        configuration: journalConfiguration(),
        pipelineId: pipeline,
        agentId: 'src',
        entities: WORLD_FILES,
      }),
    entities: WORLD_FILES,
    origin: { connector: 'ibmi', server: 'sandbox', database: null },
    decimalHandling: 'string',
    change: () => writeWorld(admin, 'journaled'),
  };
}

const caughtUp = async (runner: PipelineRunner) => {
  await runner.runUntilCaughtUp();
  expect(runner.failure).toBeNull();
};

describe.each([
  ['SQL Server', sqlServerWorld],
  ['IBM i', ibmiWorld],
] as const)('%s types through JetStream', (label, makeWorld) => {
  it.each(['SQLite', 'PostgreSQL'] as const)(
    'hold in %s what replication straight into it holds, copied and changed',
    { timeout: 120_000 },
    async (targetKind) => {
      const world = await makeWorld();
      const tag = `${label === 'SQL Server' ? 'ss' : 'ib'}${targetKind === 'SQLite' ? 'sq' : 'pg'}${process.pid}`;
      const stream = `TYPES_${tag}`;
      const prefix = `types${tag}`;
      const dir = mkdtempSync(join(tmpdir(), 'cdc-stream-types-'));
      let client: pg.Client | undefined;
      if (targetKind === 'PostgreSQL') {
        const c = await postgresClient();
        client = c;
        for (const s of ['direct', 'applied']) await c.query(`DROP SCHEMA IF EXISTS "${tag}_${s}" CASCADE`);
        cleanups.push(async () => {
          for (const s of ['direct', 'applied']) await c.query(`DROP SCHEMA IF EXISTS "${tag}_${s}" CASCADE`);
          await c.end();
        });
      }
      cleanups.push(async () => {
        const nc = await connect({ servers: SERVERS });
        const jsm = await jetstreamManager(nc);
        await jsm.streams.delete(stream).catch(() => undefined);
        await jsm.streams.delete(`KV_cdc_leases_${stream}`).catch(() => undefined);
        await nc.close();
      });
      const targetFor = (side: 'direct' | 'applied'): Target =>
        targetKind === 'SQLite'
          ? new SqliteTarget(join(dir, `${side}.sqlite`), side)
          : new PostgresTarget({ ...POSTGRES, schema: `${tag}_${side}` }, side);
      const entities = world.entities.map((e) => ({ source: e.source, target: e.target }));
      const direct = () =>
        new PipelineRunner({
          openSource: () => world.open('direct'),
          openTarget: async () => targetFor('direct'),
          entities,
        });
      const capture = () =>
        new PipelineRunner({
          openSource: () => world.open('capture'),
          openTarget: async () =>
            new NatsTarget({
              credentials,
              configuration: natsConfiguration.schema.parse({
                stream,
                subjectPrefix: prefix,
                decimalHandling: world.decimalHandling,
              }),
              pipelineId: 'capture',
              origin: world.origin,
            }),
          entities,
        });
      const apply = () =>
        new PipelineRunner({
          openSource: () =>
            NatsSource.open({
              credentials,
              configuration: natsConfiguration.schema.parse({
                stream,
                subjectPrefix: prefix,
                ...(world.origin.database && { sourceDatabase: world.origin.database }),
              }),
              pipelineId: 'applied',
            }),
          openTarget: async () => targetFor('applied'),
          entities,
        });
      const rows = async (side: 'direct' | 'applied', table: string): Promise<unknown[][]> => {
        if (!client) {
          const db = new Database(join(dir, `${side}.sqlite`), { readonly: true });
          try {
            return db.prepare(`SELECT * FROM "${table}" ORDER BY 1`).raw().all() as unknown[][];
          } finally {
            db.close();
          }
        }
        const columns = await client.query<{ column_name: string }>(
          'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
          [`${tag}_${side}`, table],
        );
        const r = await client.query({
          text: `SELECT ${columns.rows.map((c) => `"${c.column_name}"::text`).join(', ')} FROM "${tag}_${side}"."${table}" ORDER BY 1`,
          rowMode: 'array',
        });
        return r.rows as unknown[][];
      };
      const same = async () => {
        for (const e of entities) {
          const straight = await rows('direct', e.target.table);
          expect(straight.length, e.target.table).toBeGreaterThan(0);
          expect(await rows('applied', e.target.table), e.target.table).toEqual(straight);
        }
      };
      for (const r of [direct(), capture(), apply()]) await caughtUp(r);
      await same();
      await world.change();
      for (const r of [direct(), capture(), apply()]) await caughtUp(r);
      await same();
    },
  );
});
