// A table's columns on both sides, as the Tables section's story shows them: the source's own types from
// each agent's describe, and the type the pipeline's target declares (the default SQLite file, then a
// PostgreSQL target agent), through the app as the renderer asks; and on demand the first rows as the
// target gets them.
import { POSTGRES } from '../../helpers/replica';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApp, startTestApp } from '../../helpers/app';
import type { ColumnsAnswer, Entity } from '../../../shared/controlApi';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
  await callApp(app, 'startSandbox');
});
afterAll(() => app?.close());

const columnsOf = async (pipelineId: string, agentId: string, tables: string[]) =>
  (await callApp(app, 'describeEngineTableColumns', {
    profileId: 'local',
    pipelineId,
    agentId,
    tables,
  })) as ColumnsAnswer;

const byName = (answer: ColumnsAnswer, table: string) =>
  Object.fromEntries(
    (answer.tables.find((t) => t.table === table)?.columns ?? []).map((c) => [
      c.name,
      [c.sourceType, c.targetType, c.key, c.nullable],
    ]),
  );

describe('table columns', () => {
  it('says the SQL Server types and the SQLite types they become; a table not chosen is missing', async () => {
    const answer = await columnsOf('sandbox', 'sales', ['dbo.Orders', 'dbo.AuditLog']);
    expect(answer.targetType).toBe('sqlite');
    expect(answer.missing).toEqual(['dbo.AuditLog']);
    expect(answer.tables.map((t) => [t.table, t.targetTable])).toEqual([['dbo.Orders', 'orders']]);
    expect(byName(answer, 'dbo.Orders')).toMatchObject({
      OrderId: ['int', 'INTEGER', true, false],
      Total: ['decimal(12,2)', 'TEXT', false, false],
      RowGuid: ['uniqueidentifier', 'TEXT', false, false],
    });
  });

  it('says the IBM i types of a journaled file', async () => {
    const answer = await columnsOf('sandbox-ibmi', 'as400', ['SHOP.ORDERS']);
    const orders = byName(answer, 'SHOP.ORDERS');
    expect(orders.ORDERNO?.[0]).toMatch(/^bigint$/i);
    expect(orders.AMOUNT?.slice(0, 2)).toEqual([expect.stringMatching(/^numeric\(9, ?2\)$/i), 'TEXT']);
  });

  it('shows a table’s first rows as the target gets them: masked, renamed, filtered at the source', async () => {
    const { entities } = (await callApp(app, 'getEngineEntities', {
      profileId: 'local',
      pipelineId: 'sandbox-ibmi',
    })) as { entities: Entity[] };
    await callApp(app, 'saveEngineEntities', {
      profileId: 'local',
      pipelineId: 'sandbox-ibmi',
      entities: entities.map((e) =>
        e.source.table === 'ORDERS'
          ? {
              ...e,
              columns: ['ORDERNO', 'AMOUNT', 'NOTE'],
              columnShaping: { NOTE: { mask: { kind: 'keepLast', chars: 2 }, targetName: 'MEMO' } },
              rowFilter: 'AMOUNT > 100',
            }
          : e,
      ),
    });
    const plain = await columnsOf('sandbox-ibmi', 'as400', ['SHOP.ORDERS']);
    expect(plain.tables[0]?.sample).toBeNull();
    const answer = (await callApp(app, 'describeEngineTableColumns', {
      profileId: 'local',
      pipelineId: 'sandbox-ibmi',
      agentId: 'as400',
      tables: ['SHOP.ORDERS'],
      sampleRows: 3,
    })) as ColumnsAnswer;
    // Order i holds 3i + 0.25: orders 1034 on are past 100; every fourth has no note.
    expect(answer.tables[0]?.sample).toEqual({
      columns: ['ORDERNO', 'AMOUNT', 'MEMO'],
      rows: [
        ['1034', '102.25', '******34'],
        ['1035', '105.25', '******35'],
        ['1036', '108.25', null],
      ],
      // The filter went to Db2 with the copy's read: only the 7 rows past 100 were read.
      read: 7,
    });
  });

  it('follows the target agent: PostgreSQL declares its own types', async () => {
    await callApp(app, 'applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'sandbox',
      agentId: 'target',
      agentType: 'postgresql',
      role: 'target',
      hostCredentials: {
        connectionName: 'pg',
        host: '127.0.0.1',
        port: POSTGRES.port,
        databaseName: 'test',
        username: 'postgres',
        password: 'trust-ignores-it',
      },
      configuration: { schema: `columns_${process.pid}` },
      joinExisting: true,
    });
    const answer = await columnsOf('sandbox', 'sales', ['dbo.Orders']);
    expect(answer.targetType).toBe('postgresql');
    expect(byName(answer, 'dbo.Orders')).toMatchObject({
      OrderId: ['int', 'integer', true, false],
      Total: ['decimal(12,2)', 'numeric(12,2)', false, false],
      RowGuid: ['uniqueidentifier', 'uuid', false, false],
    });
  });
});
