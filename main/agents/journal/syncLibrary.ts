// The sync library on the source (default SYNC): created by CREATE SCHEMA when absent, so it has its
// own journal (QSQJRN) and the checkpoint table is journaled and written under commitment control.
// The checkpoint table (default JOURNALSCP) holds one row per agent and table: the journal, and the
// receiver library, receiver name and sequence number reading resumes from (the spec's backlog query
// subtracts that sequence), plus the last entry applied. CHGJRN … DLTRCV(*YES) keeps the library's
// own journal receivers few.
import type { JournalHostCredentials } from '../../../shared/agents/journal';
import { IbmiError, ibmiName, type IbmiConnection } from '../../../lib/ibmi/connection';
import type { Checkpoint } from '../source';
import { formatPosition, parsePosition } from './position';
import type { JournalName } from './reader';

/** Checkpoint rows written by one statement: 2,000 parameter markers, as many as the catalog queries send at 1,000 files. */
const SAVED_PER_STATEMENT = 250;

export interface CheckpointRow {
  table: string;
  journal: JournalName;
  position: string;
}

export class SyncLibrary {
  readonly library: string;
  readonly table: string;
  private prepared: Promise<string> | null = null;
  private journaled = true;

  constructor(
    private readonly c: IbmiConnection,
    credentials: JournalHostCredentials,
    /** Who writes the rows: `pipeline/agent`. */
    readonly agent: string,
  ) {
    this.library = ibmiName(credentials.syncLibrary, 'syncLibrary');
    this.table = ibmiName(credentials.journalCheckpointTable, 'journalCheckpointTable');
  }

  get qualified(): string {
    return `${this.library}.${this.table}`;
  }

  /** The library and the checkpoint table, created when absent; answers the library's name. */
  ready(): Promise<string> {
    this.prepared ??= this.prepare().catch((error: unknown) => {
      this.prepared = null;
      throw error;
    });
    return this.prepared;
  }

  private async prepare(): Promise<string> {
    // Every start after the first finds both: one statement then, not three (each a round trip).
    const found = await this.checkpointFile().catch(() => null);
    if (found?.isTable) {
      this.journaled = found.journaled;
      return this.library;
    }
    const libraries = await this.c.query('SELECT SCHEMA_NAME FROM QSYS2.SYSSCHEMAS WHERE SCHEMA_NAME = ?', [
      this.library,
    ]);
    if (libraries.length === 0) await this.c.query(`CREATE SCHEMA ${this.library}`);
    const tables = await this.c.query(
      "SELECT TABLE_NAME FROM QSYS2.SYSTABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE IN ('T', 'P')",
      [this.library, this.table],
    );
    if (tables.length === 0)
      await this.c.query(
        `CREATE TABLE ${this.qualified} (AGENT VARCHAR(128) NOT NULL, TABLEKEY VARCHAR(258) NOT NULL, ` +
          'JRNLIB CHAR(10) NOT NULL, JRN CHAR(10) NOT NULL, RCVLIB CHAR(10) NOT NULL, RCV CHAR(10) NOT NULL, ' +
          'SEQNBR DECIMAL(21,0) NOT NULL, APPLIED VARCHAR(64) NOT NULL, UPDATED TIMESTAMP NOT NULL, ' +
          'PRIMARY KEY (AGENT, TABLEKEY))',
      );
    this.journaled = (await this.checkpointFile())?.journaled ?? false;
    return this.library;
  }

  /**
   * The checkpoint table's file, when there: whether it is a table (a physical file that SQL made or
   * DDS, not a view or index) and journaled. A library made by CRTLIB has no journal: the table is then
   * written without commitment control.
   */
  private async checkpointFile(): Promise<{ isTable: boolean; journaled: boolean } | null> {
    const [row] = await this.c.query(
      `SELECT OBJATTRIBUTE, SQL_OBJECT_TYPE, JOURNALED FROM TABLE(QSYS2.OBJECT_STATISTICS(?, '*FILE', ?)) X`,
      [this.library, this.table],
    );
    if (!row) return null;
    const sqlType = String(row.SQL_OBJECT_TYPE ?? '').trim();
    return {
      isTable: String(row.OBJATTRIBUTE ?? '').trim() === 'PF' && (sqlType === '' || sqlType === 'TABLE'),
      journaled: String(row.JOURNALED ?? 'NO').trim() === 'YES',
    };
  }

  /** The saved checkpoint; empty while the library or table does not exist (reading creates nothing). */
  async load(): Promise<Checkpoint> {
    const rows = await this.c
      .query(`SELECT TABLEKEY, RCVLIB, RCV, SEQNBR, APPLIED FROM ${this.qualified} WHERE AGENT = ?`, [
        this.agent,
      ])
      .catch((error: unknown) => {
        if (error instanceof IbmiError && error.messageId === 'SQL0204') return [];
        throw error;
      });
    const checkpoint: Checkpoint = {};
    for (const r of rows) {
      const restart = {
        library: String(r.RCVLIB).trim(),
        receiver: String(r.RCV).trim(),
        sequence: Number(r.SEQNBR),
      };
      checkpoint[String(r.TABLEKEY)] = formatPosition({
        restart,
        applied: parsePosition(String(r.APPLIED)).restart,
      });
    }
    return checkpoint;
  }

  /**
   * All rows in one commit cycle: a crash leaves the old checkpoint or the new one, never half. Two
   * statements per slice of rows, not two per table: at 1,000 files and 30 ms a round trip, a save
   * per table would cost a minute.
   */
  async save(rows: readonly CheckpointRow[]): Promise<void> {
    await this.ready();
    const write = async (c: IbmiConnection) => {
      for (let at = 0; at < rows.length; at += SAVED_PER_STATEMENT) {
        const slice = rows.slice(at, at + SAVED_PER_STATEMENT);
        await c.query(
          `DELETE FROM ${this.qualified} WHERE AGENT = ? AND TABLEKEY IN (${slice.map(() => '?').join(', ')})`,
          [this.agent, ...slice.map((r) => r.table)],
        );
        await c.query(
          `INSERT INTO ${this.qualified} VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, CURRENT TIMESTAMP)').join(', ')}`,
          slice.flatMap((row) => {
            const p = parsePosition(row.position);
            return [
              this.agent,
              row.table,
              row.journal.library,
              row.journal.name,
              p.restart.library,
              p.restart.receiver,
              String(p.restart.sequence),
              formatPosition({ restart: p.applied, applied: p.applied }),
            ];
          }),
        );
      }
    };
    if (this.journaled) await this.c.transaction(write);
    else await write(this.c);
  }

  /** Agents other than this one that keep checkpoints here: the library is theirs too. */
  async otherAgents(): Promise<string[]> {
    const rows = await this.c.query(`SELECT DISTINCT AGENT FROM ${this.qualified} WHERE AGENT <> ?`, [
      this.agent,
    ]);
    return rows.map((r) => String(r.AGENT));
  }

  /** Detaches the sync library journal's receiver; DLTRCV(*YES) has the system delete the old ones. */
  async rotateJournal(): Promise<void> {
    if (!this.journaled) return;
    await this.c.command(`CHGJRN JRN(${this.library}/QSQJRN) JRNRCV(*GEN) DLTRCV(*YES)`);
  }
}
