// Events against the servers' max_payload: the check names the tables whose declared columns can make
// an event past it (failed for a declared width, a warning for a column without a bound), and at run
// time a row past it is kept as an exception, never cut or dropped, while its table waits (suspended)
// and the pipeline's other tables go on. A NATS server of the test's own, with a 4 KiB max_payload.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { payloadChecks } from '../../../../main/agents/nats/payloadCheck';
import { NatsTarget } from '../../../../main/agents/nats/target';
import type { RefusedRow } from '../../../../main/agents/spi';
import type { TableShape } from '../../../../main/agents/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { readySandbox, changeTrackingHarness, sandboxCredentials } from '../../../helpers/changeTracking';
import { readStream } from '../../../helpers/debeziumConsumer';
import { startNatsCluster, type NatsCluster } from '../../../helpers/natsServer';
import { until } from '../../../helpers/until';

const ARTIFACTS = fileURLToPath(new URL('../../../artifacts', import.meta.url));
const config = natsConfiguration.schema.parse({ stream: 'SIZES', subjectPrefix: 'sizes' });
const origin = { connector: 'sqlserver', server: 'sandbox', database: 'Sales' } as const;
const shape = (table: string, columns: [string, string][]): TableShape => ({
  ref: { schema: 'dbo', table },
  key: ['Id'],
  columns: [['Id', 'int'], ...columns].map(([name, sourceType]) => ({
    name: name as string,
    sourceType: sourceType as string,
    nullable: name !== 'Id',
  })),
});

describe('the message size check', () => {
  it('passes tables that fit, fails a declared width past the limit, warns of columns without a bound', () => {
    expect(
      payloadChecks([shape('Small', [['Name', 'nvarchar(50)']])], config, origin, 1024 * 1024)[0],
    ).toMatchObject({
      status: 'passed',
    });
    const wide = payloadChecks(
      [
        shape('Wide', [
          ['Note', 'nvarchar(4000)'],
          ['Code', 'char(5)'],
        ]),
      ],
      config,
      origin,
      16 * 1024,
    )[0];
    expect(wide).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/dbo\.Wide \(up to \d+ bytes; widest: Note nvarchar\(4000\)/),
    });
    expect(wide?.remedy).toMatch(/max_payload in nats-server\.conf/);
    const endless = payloadChecks(
      [
        shape('Docs', [
          ['Body', 'nvarchar(max)'],
          ['Doc', 'xml'],
        ]),
      ],
      config,
      origin,
      1024 * 1024,
    )[0];
    expect(endless).toMatchObject({
      status: 'warning',
      message: expect.stringContaining('dbo.Docs (Body, Doc) have no size bound'),
    });
  });
});

describe('a row past max_payload at run time', () => {
  let cluster: NatsCluster;
  let sandbox: Awaited<ReturnType<typeof readySandbox>>;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    cluster = await startNatsCluster(1, ARTIFACTS, { maxPayload: 4096 });
    sandbox = await readySandbox(`
      CREATE TABLE dbo.Notes (Id INT PRIMARY KEY, Body NVARCHAR(MAX) NULL);
      ALTER TABLE dbo.Notes ENABLE CHANGE_TRACKING;
      CREATE TABLE dbo.Plain (Id INT PRIMARY KEY, Name NVARCHAR(20) NULL);
      ALTER TABLE dbo.Plain ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Notes VALUES (1, N'short');
      INSERT INTO dbo.Plain VALUES (1, N'one');`);
  });
  afterAll(async () => {
    await sandbox?.admin.close();
    await sandbox?.sandbox.close();
    cluster?.destroy();
  });

  it('is kept as an exception, whole, and its table waits while the others go on', async () => {
    const h = await changeTrackingHarness(sandboxCredentials(sandbox.sandbox), { pipelineId: 'sizes' });
    const events: RunnerEvent[] = [];
    const kept: RefusedRow[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials: { connectionName: 'sizes', servers: cluster.servers, tls: false },
          configuration: config,
          pipelineId: 'sizes',
          origin,
        }),
      entities: ['Notes', 'Plain'].map((table) => ({ source: { schema: 'dbo', table }, target: { table } })),
      onEvent: (e) => events.push(e),
      onRowsRefused: (rows) => {
        kept.push(...rows);
        return Object.fromEntries(rows.map((r) => [r.table, kept.filter((k) => k.table === r.table).length]));
      },
      idleMs: 20,
    });
    void runner.start();
    try {
      await until('copied', () => events.filter((e) => e.kind === 'snapshot-done').length === 2);
      const big = 'ü'.repeat(5000);
      await sandbox.admin
        .request()
        .batch(
          `UPDATE dbo.Notes SET Body = N'${big}' WHERE Id = 1; INSERT INTO dbo.Plain VALUES (2, N'two');`,
        );
      await until('the big row kept', () => kept.length === 1);
      expect(kept[0]).toMatchObject({
        table: 'dbo.Notes',
        op: 'update',
        error: expect.stringMatching(/over the servers' max_payload of 4096/),
      });
      expect(kept[0]?.values?.Body).toBe(big);
      await until('Notes waits', () =>
        events.some((e) => e.kind === 'table-suspended' && e.table === 'dbo.Notes'),
      );
      await sandbox.admin
        .request()
        .batch(`INSERT INTO dbo.Plain VALUES (3, N'three'); INSERT INTO dbo.Notes VALUES (2, N'later');`);
      await until('Plain goes on', async () => {
        const plain = await readStream(cluster.servers, 'SIZES', 'sizes.Sales.dbo.Plain');
        return plain.some((e) => (e.value?.after as { Id?: number } | null)?.Id === 3);
      });
      // Nothing of Notes after the row kept aside reached the stream.
      const notes = await readStream(cluster.servers, 'SIZES', 'sizes.Sales.dbo.Notes');
      expect(notes.map((e) => e.value?.op)).toEqual(['t', 'r']);
    } finally {
      await runner.stop();
      await h.close();
    }
  });
});
