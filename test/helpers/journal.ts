// A journal-agent harness for the source-agent contract: a schema on the simulated IBM i (or a real
// one, from IBMI_HOST), tables journaled with IMAGES(*BOTH), and agents opened with fixed identities.
import type { JournalConfiguration, JournalHostCredentials } from '../../shared/agents/journal';
import type { Entity } from '../../shared/controlApi';
import { cellText, type IbmiConnection } from '../../lib/ibmi/connection';
import type { Row, TableRef } from '../../main/agents/source';
import { openJournalSource } from '../../main/agents/journal/source';
import type { SourceHarness } from '../main/agents/contract/sourceAgent';
import { afterAll, beforeAll } from 'vitest';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_ADMIN, seedAgentCredentials } from '../../simulators/ibmi/seed';
import type { RefusedRow } from '../../main/agents/spi';
import type { Target } from '../../main/agents/target';
import type { RunnerEvent } from '../../main/runner/events';
import { PipelineRunner } from '../../main/runner/pipelineRunner';
import { ibmiFold } from '../../shared/names';

export const journalConfiguration = (over: Partial<JournalConfiguration> = {}): JournalConfiguration => ({
  dateFormat: null,
  timeFormat: null,
  invalidDecimals: 'keep-row-aside',
  invalidDates: 'keep-row-aside',
  invalidText: 'keep-row-aside',
  textOrder: 'logical',
  snapshotMode: 'initial',
  snapshotChunkRows: 10_000,
  droppedColumns: 'keep',
  onTableError: 'suspend-table',
  maxExceptions: 1000,
  schemaChanges: 'propagate',
  droppedTables: 'keep',
  heartbeatSeconds: 0,
  ...over,
});

/** The simulated IBM i as an agent's parsed hostCredentials: CDCAGENT unless told otherwise. */
export const sandboxIbmiCredentials = (
  sandbox: SandboxIbmi,
  over: Partial<JournalHostCredentials> = {},
): JournalHostCredentials => seedAgentCredentials(sandbox.host, over);

export const journalEntity = (table: TableRef, over: Partial<Entity> = {}): Entity => ({
  source: table,
  target: { table: table.table.toLowerCase() },
  rowIdentification: { kind: 'primaryKey' },
  ...over,
});

/**
 * The harness over an admin connection that may create a schema and tables in it. Tables get short
 * system names (T1, T2 …): IBM i names have at most 10 characters.
 */
export function journalHarness(
  admin: IbmiConnection,
  credentials: JournalHostCredentials,
  options: { schema: string; pipelineId?: string },
): SourceHarness & { prepare(): Promise<void> } {
  const schema = options.schema;
  let count = 0;
  const made: TableRef[] = [];
  return {
    async prepare() {
      const found = await admin.query('SELECT SCHEMA_NAME FROM QSYS2.SYSSCHEMAS WHERE SCHEMA_NAME = ?', [
        schema,
      ]);
      if (found.length === 0) await admin.query(`CREATE SCHEMA ${schema}`);
    },
    async createTable() {
      const table = { schema, table: `T${++count}` };
      made.push(table);
      // A live run may find a table of an earlier run.
      await admin.query(`DROP TABLE ${schema}.${table.table}`).catch(() => undefined);
      await admin.query(
        `CREATE TABLE ${schema}.${table.table} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(50) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL)`,
      );
      await admin.command(`CHGJRNOBJ OBJ((${schema}/${table.table} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
      return table;
    },
    async insert(table, rows) {
      for (const r of rows)
        await admin.query(`INSERT INTO ${table.schema}.${table.table} (ID, NAME, AMOUNT) VALUES (?, ?, ?)`, [
          r.id,
          r.name,
          r.amount,
        ]);
    },
    async update(table, id, name) {
      await admin.query(`UPDATE ${table.schema}.${table.table} SET NAME = ? WHERE ID = ?`, [name, id]);
    },
    async remove(table, id) {
      await admin.query(`DELETE FROM ${table.schema}.${table.table} WHERE ID = ?`, [id]);
    },
    async insertTogether(table, rows) {
      await admin.transaction(async (c) => {
        for (const r of rows)
          await c.query(`INSERT INTO ${table.schema}.${table.table} (ID, NAME, AMOUNT) VALUES (?, ?, ?)`, [
            r.id,
            r.name,
            r.amount,
          ]);
      });
    },
    async addNoteColumn(table) {
      await admin.query(`ALTER TABLE ${table.schema}.${table.table} ADD COLUMN NOTE VARCHAR(20)`);
    },
    async dropColumn(table, column) {
      await admin.query(`ALTER TABLE ${table.schema}.${table.table} DROP COLUMN ${column.toUpperCase()}`);
    },
    async dropTable(table) {
      await admin.query(`DROP TABLE ${table.schema}.${table.table}`);
    },
    // The agent reads new tables through *PUBLIC: taken from *PUBLIC and the agent's own profile, then
    // given to the agent's profile alone.
    async revokeRead(table) {
      await admin.command(
        `RVKOBJAUT OBJ(${table.schema}/${table.table}) OBJTYPE(*FILE) USER(*PUBLIC ${credentials.username.toUpperCase()}) AUT(*ALL)`,
      );
    },
    async grantRead(table) {
      await admin.command(
        `GRTOBJAUT OBJ(${table.schema}/${table.table}) OBJTYPE(*FILE) USER(${credentials.username.toUpperCase()}) AUT(*USE)`,
      );
    },
    beforeImages: true,
    // With the entities of the tables made, as the engine opens it (the journal's ends are noted per entity).
    open: () =>
      openJournalSource({
        credentials,
        configuration: journalConfiguration(),
        pipelineId: options.pipelineId ?? 'contract',
        agentId: 'source',
        entities: made.map((t) => journalEntity(t)),
      }),
    entity: (table) => journalEntity(table),
    normalize: (row: Row) => ({ id: Number(row.ID), name: String(row.NAME), amount: String(row.AMOUNT) }),
    async close() {
      for (const t of made) await admin.query(`DROP TABLE ${t.schema}.${t.table}`).catch(() => undefined);
      await admin.close();
    },
  };
}

/**
 * A runner of `list` from the simulated IBM i, its sync library named for the pipeline, retrying once;
 * rows refused kept in `kept` when given (else the runner's default: none kept).
 */
export function journalRunner(
  sandbox: SandboxIbmi,
  pipeline: string,
  list: Entity[],
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  options: { configuration?: Partial<JournalConfiguration>; kept?: RefusedRow[]; idleMs?: number } = {},
): PipelineRunner {
  const { kept } = options;
  return new PipelineRunner({
    openSource: () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: ibmiFold(pipeline) }),
        configuration: journalConfiguration(options.configuration),
        pipelineId: pipeline,
        agentId: 'src',
        entities: list,
      }),
    openTarget,
    entities: list.map((e) => ({ source: e.source, target: e.target })),
    onEvent: (e) => events.push(e),
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
    // As the engine runs a pipeline: the configuration's snapshot mode is the runner's.
    ...(options.configuration?.snapshotMode && { snapshotMode: options.configuration.snapshotMode }),
    ...(kept && {
      onRowsRefused: (refused: readonly RefusedRow[]) => {
        kept.push(...refused);
        return Object.fromEntries(
          refused.map((r) => [r.table, kept.filter((k) => k.table === r.table).length]),
        );
      },
    }),
  });
}

/**
 * A seeded simulated IBM i and an admin connection for the tests of one file, with `library` made:
 * started before them and closed after them.
 */
export function ibmiLibrarySession(library: string): {
  readonly sandbox: SandboxIbmi;
  readonly admin: IbmiConnection;
} {
  let sandbox: SandboxIbmi | undefined;
  let admin: IbmiConnection | undefined;
  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query(`CREATE SCHEMA ${library}`);
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('The simulated IBM i is not started: use it inside a test.');
    return v;
  };
  return {
    get sandbox() {
      return started(sandbox);
    },
    get admin() {
      return started(admin);
    },
  };
}

/**
 * The record entries (journal code R) of a file whose key is its first INTEGER, in journal order:
 * each one's type, local time, position and the key it wrote; `type` narrows them (PT: inserts).
 */
export async function recordEntriesOf(admin: IbmiConnection, library: string, file: string, type = '') {
  const rows = await admin.query(
    'SELECT JOURNAL_ENTRY_TYPE, ENTRY_TIMESTAMP, SEQUENCE_NUMBER, JOURNAL_RECEIVER_LIBRARY, JOURNAL_RECEIVER_NAME, ENTRY_DATA ' +
      "FROM TABLE(QSYS2.DISPLAY_JOURNAL(?, 'QSQJRN', '', '*CURCHAIN', NULL, NULL, 'R', ?, ?, ?)) X ORDER BY SEQUENCE_NUMBER",
    [library, type, library, file],
  );
  return rows.map((r) => {
    const data = r.ENTRY_DATA as Uint8Array;
    return {
      type: cellText(r.JOURNAL_ENTRY_TYPE).trim(),
      time: cellText(r.ENTRY_TIMESTAMP).trim(),
      position: `${cellText(r.JOURNAL_RECEIVER_LIBRARY).trim()}/${cellText(r.JOURNAL_RECEIVER_NAME).trim()}/${Number(r.SEQUENCE_NUMBER)}`,
      key: new DataView(data.buffer, data.byteOffset).getInt32(0),
    };
  });
}
