// Values of SQL Server's types through the change-tracking agent into SQLite and PostgreSQL, by copy
// and by change, compared with what is written out here: a datetimeoffset keeps its +05:30 and its
// 100 ns at SQLite (PostgreSQL's timestamptz keeps the instant, to the microsecond), non-Latin text
// and emoji survive, datetime2(7) keeps seven digits at SQLite, rowversion is eight bytes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../main/connectors/changeTracking/source';
import { PostgresTarget } from '../../main/connectors/postgresql/target';
import { SqliteTarget } from '../../main/connectors/sqlite/target';
import type { Target } from '../../main/connectors/target';
import { PipelineRunner, type RunnerEvent } from '../../main/runner/pipelineRunner';
import type { SandboxSqlServer } from '../../main/sandbox/mssql';
import { ctConfiguration, readySandbox, sandboxCredentials } from '../helpers/changeTracking';
import { POSTGRES, scratchSchema } from '../helpers/replica';

describe.each(['SQLite', 'PostgreSQL'] as const)('SQL Server types → %s', (label) => {
  let sandbox: SandboxSqlServer;
  let admin: sql.ConnectionPool;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-ct-types-')), 'replica.sqlite');
  const schema = `cdc_ct_types_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, 'types')
      : new PostgresTarget({ ...POSTGRES, schema }, 'types');
  const runUntilCaughtUp = async () => {
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () =>
        openChangeTrackingSource({
          credentials: sandboxCredentials(sandbox),
          configuration: ctConfiguration(),
          pipelineId: 'types',
          agentId: 'src',
        }),
      openTarget: target,
      entities: [{ source: { schema: 'dbo', table: 'Kinds' }, target: { table: 'kinds' } }],
      onEvent: (e) => events.push(e),
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBeNull();
  };
  const rows = async (): Promise<unknown[][]> => {
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .prepare('SELECT "Id", "At", "Said", "Exact", "Bytes" FROM "kinds" ORDER BY "Id"')
          .raw()
          .all() as unknown[][];
      } finally {
        db.close();
      }
    }
    const c = client as pg.Client;
    await c.query("SET TIME ZONE 'UTC'");
    const r = await c.query({
      text: `SELECT "Id", "At"::text, "Said", "Exact"::text, "Bytes" FROM "${schema}"."kinds" ORDER BY "Id"`,
      rowMode: 'array',
    });
    return r.rows as unknown[][];
  };

  beforeAll(async () => {
    ({ sandbox, admin } = await readySandbox(`
      CREATE TABLE dbo.Kinds (Id INT PRIMARY KEY, At DATETIMEOFFSET(7) NULL, Said NVARCHAR(40) NULL,
        Exact DATETIME2(7) NULL, Bytes VARBINARY(8) NULL);
      ALTER TABLE dbo.Kinds ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Kinds VALUES (1, '2026-11-24 10:00:00.1234567 +05:30', N'Zürich — 東京 🚀', '2026-11-24 23:59:59.9999999', 0x00FF10);`));
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('arrive as written, by the copy and by changes', async () => {
    await runUntilCaughtUp();
    await admin.request()
      .batch(`INSERT INTO dbo.Kinds VALUES (2, '1999-12-31 23:00:00.0000001 -08:00', N'Ελληνικά ✓', '0001-01-01 00:00:00.0000000', 0x);
      UPDATE dbo.Kinds SET Said = N'שלום 👋' WHERE Id = 1;`);
    await runUntilCaughtUp();
    const bytes = (hex: string) => (label === 'SQLite' ? Buffer.from(hex, 'hex') : Buffer.from(hex, 'hex'));
    expect(await rows()).toEqual(
      label === 'SQLite'
        ? [
            [
              1,
              '2026-11-24T10:00:00.1234567+05:30',
              'שלום 👋',
              '2026-11-24 23:59:59.9999999',
              bytes('00ff10'),
            ],
            [2, '1999-12-31T23:00:00.0000001-08:00', 'Ελληνικά ✓', '0001-01-01 00:00:00.0000000', bytes('')],
          ]
        : [
            [1, '2026-11-24 04:30:00.123457+00', 'שלום 👋', '2026-11-24 23:59:59.999999', bytes('00ff10')],
            [2, '2000-01-01 07:00:00+00', 'Ελληνικά ✓', '0001-01-01 00:00:00', bytes('')],
          ],
    );
  });
});
