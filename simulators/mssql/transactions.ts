// A session's transaction, as SQL Server keeps it: @@TRANCOUNT nesting (only the outermost COMMIT
// commits), an 8-byte descriptor the client echoes in ALL_HEADERS, and an isolation level. The
// SQLite connection's own transaction carries the work; in WAL mode its reads see one snapshot.
import { randomBytes } from 'node:crypto';
import type { StatementResult } from './tds/hostSession';
import { ISOLATION } from './tds/requests';
import { finishVersion } from './tsql/changeTracking';
import { type SandboxDatabase } from './tsql/database';
import { quote, SqlError } from './tsql/basics';

export const ISOLATION_NAMES: Record<string, number> = {
  'read uncommitted': ISOLATION.READ_UNCOMMITTED,
  'read committed': ISOLATION.READ_COMMITTED,
  'repeatable read': ISOLATION.REPEATABLE_READ,
  serializable: ISOLATION.SERIALIZABLE,
  snapshot: ISOLATION.SNAPSHOT,
};

export class SessionTransaction {
  count = 0;
  isolation: number = ISOLATION.READ_COMMITTED;
  /** SET XACT_ABORT: an error in a statement rolls the whole transaction back and ends the batch. */
  xactAbort = false;
  private descriptor = Buffer.alloc(8);
  private connection: SandboxDatabase | undefined;
  private name = '';
  private savepoints: string[] = [];

  constructor(private readonly connect: () => SandboxDatabase) {}

  begin(isolation: number = ISOLATION.UNCHANGED, name = ''): StatementResult {
    if (isolation !== ISOLATION.UNCHANGED) this.isolation = isolation;
    this.count++;
    if (this.count > 1) return {};
    this.name = name;
    this.savepoints = [];
    this.connection = this.connect();
    this.connection.db.exec('BEGIN');
    this.descriptor = randomBytes(8);
    return { transaction: { kind: 'begin', descriptor: this.descriptor } };
  }

  commit(): StatementResult {
    if (this.count === 0) {
      throw new SqlError({
        number: 3902,
        state: 1,
        class: 16,
        message: 'The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.',
      });
    }
    this.count--;
    if (this.count > 0) return {};
    // Tracked changes take the version this transaction commits with.
    if (this.connection?.db.inTransaction) finishVersion(this.connection);
    this.end('COMMIT');
    return { transaction: { kind: 'commit', descriptor: this.descriptor } };
  }

  /** SAVE TRANSACTION name: a point to roll back to without ending the transaction. */
  save(name: string): StatementResult {
    if (this.count === 0 || !this.connection) {
      throw new SqlError({
        number: 628,
        state: 0,
        class: 16,
        message: 'Cannot issue SAVE TRANSACTION when there is no active transaction.',
      });
    }
    this.connection.db.exec(`SAVEPOINT ${quote(name)}`);
    this.savepoints.push(name);
    return {};
  }

  rollback(name = ''): StatementResult {
    // ROLLBACK TRANSACTION savepoint: back to it; the transaction and @@TRANCOUNT stay as they are.
    if (name && this.count > 0 && name.toLowerCase() !== this.name.toLowerCase()) {
      const at = this.savepoints.map((x) => x.toLowerCase()).lastIndexOf(name.toLowerCase());
      if (at === -1 || !this.connection) {
        throw new SqlError({
          number: 6401,
          state: 1,
          class: 16,
          message: `Cannot roll back ${name}. No transaction or savepoint of that name was found.`,
        });
      }
      this.connection.db.exec(`ROLLBACK TO ${quote(this.savepoints[at] ?? name)}`);
      this.savepoints = this.savepoints.slice(0, at + 1);
      return {};
    }
    if (this.count === 0) {
      throw new SqlError({
        number: 3903,
        state: 1,
        class: 16,
        message: 'The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.',
      });
    }
    this.count = 0;
    this.end('ROLLBACK');
    return { transaction: { kind: 'rollback', descriptor: this.descriptor } };
  }

  /** Before data is touched: a snapshot transaction needs the database to allow snapshot isolation. */
  checkAccess(db: SandboxDatabase): void {
    if (this.count > 0 && this.isolation === ISOLATION.SNAPSHOT && !db.allowsSnapshot()) {
      throw new SqlError({
        number: 3952,
        state: 1,
        class: 16,
        message: `Snapshot isolation transaction failed accessing database '${db.name}' because snapshot isolation is not allowed in this database. Use ALTER DATABASE to allow snapshot isolation.`,
      });
    }
  }

  /**
   * Metadata is not versioned, so SQL Server refuses ALTER TABLE, CREATE INDEX and DROP INDEX after
   * BEGIN TRANSACTION under snapshot isolation (MSSQLSERVER_3961's page); CREATE TABLE is allowed.
   */
  refuseSnapshotDdl(): void {
    if (this.count > 0 && this.isolation === ISOLATION.SNAPSHOT)
      throw new SqlError({
        number: 3964,
        state: 1,
        class: 16,
        message:
          'Transaction failed because this DDL statement is not allowed inside a snapshot isolation transaction. Since metadata is not versioned, a metadata change can lead to inconsistency if mixed within snapshot isolation.',
      });
  }

  /** On disconnect or connection reset: whatever is open is rolled back. */
  abandon(): void {
    if (this.count > 0) this.end('ROLLBACK');
    this.count = 0;
    this.isolation = ISOLATION.READ_COMMITTED;
    this.xactAbort = false;
  }

  private end(how: 'COMMIT' | 'ROLLBACK'): void {
    const db = this.connection?.db;
    this.connection = undefined;
    if (db?.inTransaction) db.exec(how);
  }
}
