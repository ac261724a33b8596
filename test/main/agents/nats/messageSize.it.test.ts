// Events against the servers' max_payload: the check names the tables whose declared columns can make
// an event past it (failed for a declared width, a warning for a column without a bound), and at run
// time a row past it is kept as an exception, never cut or dropped, while its table waits (suspended)
// and the pipeline's other tables go on. A NATS server of the test's own, with a 4 KiB max_payload.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { measuredValues, payloadChecks } from '../../../../main/agents/nats/payloadCheck';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { startSandboxSqlServer } from '../../../../simulators/mssql';
import { configureSeedPipeline } from '../../../helpers/changeTracking';
import { startTestEngine } from '../../../helpers/engine';
import { seededIbmi } from '../../../helpers/ibmi';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { sandboxPool } from '../../../helpers/sandbox';
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

let cluster: NatsCluster;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  cluster = await startNatsCluster(1, ARTIFACTS, { maxPayload: 4096 });
});
afterAll(() => cluster?.destroy());

describe('the message size check with the values held now', () => {
  it('fails a table whose value now makes an event past the limit, and says each largest value', () => {
    const docs = shape('Docs', [
      ['Body', 'nvarchar(max)'],
      ['Memo', 'varchar(max)'],
    ]);
    const now = (body: number, memo: number | null) =>
      payloadChecks(
        [docs],
        config,
        origin,
        16 * 1024,
        measuredValues([
          { ref: docs.ref, column: 'Body', bytes: body },
          { ref: docs.ref, column: 'Memo', bytes: memo },
        ]),
      )[0];
    // 40,000 bytes of UTF-16 are at least 20,000 bytes of UTF-8: past 16 KiB whatever the text.
    expect(now(40_000, 10)).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(
        'Rows of dbo.Docs (Body: largest now 39 KiB at the source, 20 KiB to 59 KiB in an event, Memo: largest now 10 B at the source, 10 B to 30 B in an event) make events past',
      ),
    });
    // 4,000 bytes fit now, but nothing bounds the next value: a warning that says what is there.
    expect(now(4_000, null)).toMatchObject({
      status: 'warning',
      message: expect.stringContaining(
        'dbo.Docs (Body: largest now 3.9 KiB at the source, 2.0 KiB to 5.9 KiB in an event, Memo: no value now) have no size bound',
      ),
    });
    const unread = payloadChecks([docs], config, origin, 16 * 1024, measuredValues([], 'Login failed.'))[0];
    expect(unread?.message).toContain('Their largest values could not be read: Login failed.');
  });
});

describe('the largest values, read at each source', () => {
  it('SQL Server: the check through the control API names the column and its largest value now', async () => {
    const sandbox = await startSandboxSqlServer({ seed: true });
    const admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
    const e = await startTestEngine();
    try {
      await admin.request().batch(`USE Sales;
        CREATE TABLE dbo.Notes (Id INT PRIMARY KEY, Body NVARCHAR(MAX) NULL, Memo VARCHAR(MAX) NULL);
        ALTER TABLE dbo.Notes ENABLE CHANGE_TRACKING;
        INSERT INTO dbo.Notes VALUES (1, N'${'ü'.repeat(5000)}', 'short'), (2, N'x', NULL);`);
      const ids = { pipelineId: 'sized', agentId: 'sales' };
      await configureSeedPipeline(e.client, sandbox, ids, ['Notes']);
      const target = { pipelineId: 'sized', agentId: 'stream' };
      await e.client.createAgent(
        { pipelineId: 'sized' },
        { id: 'stream', type: 'nats-jetstream', role: 'target' },
      );
      await e.client.putCredentials(target, {
        hostCredentials: { connectionName: 'small', servers: cluster.servers },
      });
      await e.client.putSpecific(target, { configuration: { stream: 'SIZED', subjectPrefix: 'sized' } });
      const { checks } = await e.client.testAgent(target);
      // 5,000 ü are 10,000 bytes in nvarchar, at least 5,000 in an event: past 4,096 for any text.
      expect(checks.at(-1)).toMatchObject({
        id: 'message-size',
        status: 'failed',
        message: expect.stringContaining(
          'Rows of dbo.Notes (Body: largest now 9.8 KiB at the source, 4.9 KiB to 15 KiB in an event, Memo: largest now 5 B at the source, 5 B to 15 B in an event)',
        ),
      });
    } finally {
      await e.stop();
      await admin.close();
      await sandbox.close();
    }
  });

  it('IBM i: bytes in each column’s CCSID over every member, graphic text as two bytes a character', async () => {
    const { sandbox, admin } = await seededIbmi();
    try {
      await admin.query('CREATE SCHEMA DOCS');
      await admin.query(
        'CREATE TABLE DOCS.NOTES (ID INTEGER NOT NULL PRIMARY KEY, BODY CLOB(1M) CCSID 37, WIDE NCLOB(1M), PIC BLOB(1M), DOC XML)',
      );
      await admin.query(
        'INSERT INTO DOCS.NOTES (ID, BODY, WIDE, PIC) VALUES (1, ?, ?, ?), (2, ?, NULL, NULL)',
        ['ä'.repeat(3000), 'Käse😀', Buffer.alloc(700), 'ä'.repeat(5000)],
      );
      const ref = { schema: 'DOCS', table: 'NOTES' };
      const source = await openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox),
        configuration: journalConfiguration(),
        pipelineId: 'sized',
        agentId: 'ibmi',
        entities: [journalEntity(ref)],
      });
      try {
        expect(await source.largestValues([{ ref, columns: ['BODY', 'WIDE', 'PIC', 'DOC'] }])).toEqual([
          { ref, column: 'BODY', bytes: 5000 },
          { ref, column: 'WIDE', bytes: 12 },
          { ref, column: 'PIC', bytes: 700 },
        ]);
      } finally {
        await source.close();
      }
    } finally {
      await sandbox.close();
    }
  });
});

describe('a row past max_payload at run time', () => {
  let sandbox: Awaited<ReturnType<typeof readySandbox>>;
  beforeAll(async () => {
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
