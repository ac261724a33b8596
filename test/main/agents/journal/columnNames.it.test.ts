// IBM i field names reach SQL quoted, and the journal agent's readers name every select item by its
// position: a field named like a reserved word (ORDER) or like the readers' own items (RRN_, R, C0,
// K0, L0) copies, streams and re-reads its LOB as it is, into SQLite and PostgreSQL; a field named
// RRN on a file identified by RRN is refused at the checks and the start, naming both.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import type { Entity } from '../../../../shared/controlApi';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';

const COLUMNS = ['ID', 'ORDER', 'RRN_', 'R', 'C0', 'K0', 'L0', 'N'];
const quoted = COLUMNS.map((c) => `"${c}"`).join(', ');
let sandbox: SandboxIbmi;
let admin: IbmiConnection;

beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA NAMES');
  for (const file of ['TOSQLITE', 'TOPG'])
    await admin.query(
      `CREATE TABLE NAMES.${file} (ID INTEGER NOT NULL PRIMARY KEY, "ORDER" VARCHAR(10), RRN_ INTEGER, ` +
        'R VARCHAR(5), C0 INTEGER, K0 INTEGER, L0 CLOB(10K), N INTEGER)',
    );
  await admin.query('CREATE TABLE NAMES.BYRRN (RRN INTEGER, NOTE VARCHAR(10))');
  for (const file of ['TOSQLITE', 'TOPG', 'BYRRN'])
    await admin.command(`CHGJRNOBJ OBJ((NAMES/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

const source = (entity: Entity, pipelineId: string) =>
  openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'NAMESYNC' }),
    configuration: journalConfiguration(),
    pipelineId,
    agentId: 'src',
    entities: [entity],
  });

const rowsOf = (rows: Record<string, unknown>[]) =>
  rows.map((r) => COLUMNS.map((c) => (r[c] === null || r[c] === undefined ? null : String(r[c]))));

describe.each([
  ['SQLite', 'TOSQLITE'],
  ['PostgreSQL', 'TOPG'],
] as const)('fields named like reserved words and the readers’ items → %s', (label, file) => {
  const entity = journalEntity({ schema: 'NAMES', table: file });
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-jnames-')), 'replica.sqlite');
  const schema = `cdc_jnames_${process.pid}`;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, 'jnames')
      : new PostgresTarget({ ...POSTGRES, schema }, 'jnames');
  const run = async () => {
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => source(entity, `jnames-${file}`),
      openTarget: target,
      entities: [{ source: entity.source, target: entity.target }],
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBeNull();
    return events;
  };
  const targetRows = async () => {
    const table = entity.target.table;
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        return rowsOf(
          db.prepare(`SELECT * FROM "${table}" ORDER BY "ID"`).all() as Record<string, unknown>[],
        );
      } finally {
        db.close();
      }
    }
    const r = await (client as pg.Client).query(`SELECT * FROM "${schema}"."${table}" ORDER BY "ID"`);
    return rowsOf(r.rows as Record<string, unknown>[]);
  };
  const sourceRows = async () =>
    rowsOf(
      (await admin.query(`SELECT ${quoted} FROM NAMES.${file} ORDER BY ID`)) as Record<string, unknown>[],
    );

  beforeAll(async () => {
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
    for (let id = 1; id <= 250; id++)
      await admin.query(`INSERT INTO NAMES.${file} VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        id,
        `o${id}`,
        9_000 + id,
        `r${id}`,
        id * 2,
        id * 3,
        `lob ${id}`,
        id * 4,
      ]);
  });
  afterAll(async () => {
    await drop?.();
  });

  it('copies every row once, then streams changes, each value in its own column', async () => {
    const copied = await run();
    expect(copied.filter((e) => e.kind === 'snapshot-done')).toHaveLength(1);
    expect(await targetRows()).toEqual(await sourceRows());
    expect((await targetRows())[0]).toEqual(['1', 'o1', '9001', 'r1', '2', '3', 'lob 1', '4']);

    await admin.query(`UPDATE NAMES.${file} SET "ORDER" = 'changed', L0 = 'new lob', RRN_ = 7 WHERE ID = 2`);
    await admin.query(`INSERT INTO NAMES.${file} VALUES (251, 'x', 1, 'y', 2, 3, 'z', 4)`);
    await admin.query(`DELETE FROM NAMES.${file} WHERE ID = 3`);
    const streamed = await run();
    expect(streamed.filter((e) => e.kind === 'batch-applied')).not.toEqual([]);
    expect(await targetRows()).toEqual(await sourceRows());
    expect((await targetRows())[1]).toEqual(['2', 'changed', '7', 'r2', '4', '6', 'new lob', '8']);
  });
});

describe('a field named like a column the agent adds', () => {
  const byRrn: Entity = {
    ...journalEntity({ schema: 'NAMES', table: 'BYRRN' }),
    rowIdentification: { kind: 'rrn' },
  };

  it('RRN on a file identified by RRN fails the check and the start, naming both', async () => {
    const agent = await source(byRrn, 'jnames-rrn');
    try {
      const checks = await agent.check([byRrn]);
      const id = checks.find((c) => c.id === 'row-identification');
      expect(id?.status).toBe('failed');
      expect(id?.message).toMatch(
        /NAMES\/BYRRN has a field RRN, the name of the column RRN identification adds/,
      );
      await expect(agent.describe([byRrn.source])).rejects.toThrow(/has a field RRN/);
    } finally {
      await agent.close();
    }
  });
});
