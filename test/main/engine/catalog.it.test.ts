// The source's catalogue through the control API, for choosing a pipeline's tables: every table with
// what would stop it and its fix, the agent's own objects left out, searched, filtered by schema and
// paged with a cursor, from the simulated SQL Server and the simulated IBM i.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../main/client/engineClient';
import type { SandboxIbmi } from '../../../simulators/ibmi';
import { seedAgentCredentials } from '../../../simulators/ibmi/seed';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import type { CatalogTable } from '../../../shared/controlApi';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { seededIbmi } from '../../helpers/ibmi';
import { DBA, sandboxPool } from '../../helpers/sandbox';

let e: RunningEngine;
let sql: SandboxSqlServer;
let ibmi: SandboxIbmi;
const ct = { pipelineId: 'ct', agentId: 'src' };
const jr = { pipelineId: 'jr', agentId: 'src' };

beforeAll(async () => {
  sql = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const pool = await sandboxPool(sql, { max: 1 });
  const many = Array.from(
    { length: 120 },
    (_, i) => `CREATE TABLE bulk.T${String(i).padStart(3, '0')} (Id INT PRIMARY KEY);`,
  );
  await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
    CREATE SCHEMA SYNC; CREATE TABLE SYNC.CT_CHECKPOINT (Id INT PRIMARY KEY);
    CREATE SCHEMA bulk;
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20)); ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
    CREATE TABLE dbo.Untracked (Id INT PRIMARY KEY);
    CREATE TABLE dbo.Keyless (Id INT);
    ${many.join('\n')}`);
  await pool.close();
  const seeded = await seededIbmi();
  ibmi = seeded.sandbox;
  await seeded.admin.command('CRTLIB LIB(PLAIN)');
  await seeded.admin.query('CREATE TABLE PLAIN.NOTES (ID INTEGER NOT NULL PRIMARY KEY, TEXT VARCHAR(20))');
  await seeded.admin.close();
  e = await startTestEngine();
  for (const [ids, type, hostCredentials] of [
    [
      ct,
      'change-tracking',
      {
        connectionName: 'sql',
        host: '127.0.0.1',
        port: sql.port,
        databaseName: 'Sales',
        username: DBA.name,
        password: DBA.password,
      },
    ],
    [jr, 'journal', seedAgentCredentials(ibmi.host)],
  ] as const) {
    await e.client.createPipeline({}, { id: ids.pipelineId, name: ids.pipelineId });
    await e.client.createAgent({ pipelineId: ids.pipelineId }, { id: ids.agentId, type, role: 'source' });
    await e.client.putCredentials(ids, { hostCredentials } as never);
    await e.client.putSpecific(ids, { configuration: {} });
  }
});
afterAll(async () => {
  await e?.stop();
  await ibmi?.close();
  await sql?.close();
});

const byName = (tables: CatalogTable[]) =>
  Object.fromEntries(tables.map((t) => [`${t.schema}.${t.table}`, t]));

describe('the change-tracking catalogue', () => {
  it('says what would stop each table, with the fix, and leaves the SYNC schema out', async () => {
    const page = await e.client.searchCatalog(ct, { schema: 'dbo' });
    const t = byName(page.tables);
    expect(Object.keys(t)).toEqual(['dbo.Keyless', 'dbo.Orders', 'dbo.Untracked']);
    expect(t['dbo.Orders']).toMatchObject({
      primaryKey: ['Id'],
      changeTracking: true,
      problem: null,
      fix: null,
    });
    expect(t['dbo.Untracked']).toMatchObject({
      changeTracking: false,
      problem: 'Change Tracking is off for the table.',
      fix: 'ALTER TABLE [dbo].[Untracked] ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);',
    });
    expect(t['dbo.Keyless']?.problem).toMatch(/^No primary key/);
    expect(page.schemas).toEqual([
      { schema: 'bulk', tables: 120 },
      { schema: 'dbo', tables: 3 },
    ]);
  });

  it('pages through thousands in order with a cursor, and searches without case', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await e.client.searchCatalog(ct, { schema: 'bulk', limit: 50, after });
      expect(page.matching).toBe(120);
      seen.push(...page.tables.map((t) => t.table));
      after = page.next;
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `T${String(i).padStart(3, '0')}`));
    const found = await e.client.searchCatalog(ct, { search: 'BULK.t11' });
    expect(found.tables.map((t) => t.table)).toEqual([
      'T110',
      'T111',
      'T112',
      'T113',
      'T114',
      'T115',
      'T116',
      'T117',
      'T118',
      'T119',
    ]);
  });

  it('refuses a cursor it did not give, naming the field', async () => {
    const refused = await e.client.searchCatalog(ct, { after: 'not a cursor' }).catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(EngineError);
    expect((refused as EngineError).status).toBe(422);
    expect((refused as EngineError).problem?.errors?.[0]?.pointer).toBe('/after');
  });
});

describe('the journal catalogue', () => {
  it('lists the files of the user libraries with rows, keys, journal and images', async () => {
    const t = byName((await e.client.searchCatalog(jr, {})).tables);
    expect(Object.keys(t).every((k) => !k.startsWith('Q') && !k.startsWith('SYNC.'))).toBe(true);
    expect(t['SHOP.CUSTOMER']).toMatchObject({
      primaryKey: ['ID'],
      journal: 'SHOP/QSQJRN',
      journalImages: '*BOTH',
      problem: null,
    });
    expect(t['SHOP.CUSTOMER']?.rows).toBeGreaterThan(0);
    expect(t['LEGACY.ITEMS']?.journal).toBe('LEGACY/JRN');
    expect(t['PLAIN.NOTES']).toMatchObject({
      journal: null,
      problem: 'Not journaled: STRJRNPF with IMAGES(*BOTH).',
      fix: 'CRTJRNRCV JRNRCV(PLAIN/JRNRCV0001)\nCRTJRN JRN(PLAIN/JRN) JRNRCV(PLAIN/JRNRCV0001)\nSTRJRNPF FILE(PLAIN/NOTES) JRN(PLAIN/JRN) IMAGES(*BOTH)',
    });
  });
});
