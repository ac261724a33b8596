// A connection to the simulated IBM i: one host-server job, signed on as the profile given, with
// the default library as its current schema. Autocommit runs with commitment control *NONE, as the
// IBM i Access ODBC Driver does by default; transaction() runs the work under *CHG and commits or
// rolls back at the end.
import { IbmiError, type IbmiConnection, type IbmiRow, type IbmiValue } from '../../lib/ibmi/connection';
import { isMidResult } from '../faults';
import { runCommand } from './cl/commands';
import { runStatement } from './sql/statements';
import { toSqlValue } from './sql/results';
import type { Job, SimulatedIbmi } from './system/simulatedIbmi';
import { signOn } from './system/users';
import { sqlError } from './system/messages';

export interface SimulatedConnectOptions {
  user: string;
  password: string;
  /** The default library (the connection string's DBQ), the job's current schema. */
  defaultLibrary?: string;
}

export class SimulatedIbmiConnection implements IbmiConnection {
  private readonly job: Job;
  private schema: string;
  private closed = false;

  constructor(
    private readonly system: SimulatedIbmi,
    options: SimulatedConnectOptions,
  ) {
    if (system.isDown) throw new IbmiError('CWBCO1049', 'The IBM i server application is not started.');
    this.job = system.newJob(signOn(system.users, options.user, options.password));
    this.schema = (options.defaultLibrary ?? this.job.profile.name).toUpperCase();
    system.register(this.job);
  }

  get user(): string {
    return this.job.profile.name;
  }

  private open(): void {
    if (this.closed) throw new Error('The connection to the simulated IBM i is closed.');
    if (this.job.ended) throw disconnected();
  }

  query(sql: string, params: readonly IbmiValue[] = []): Promise<IbmiRow[]> {
    return this.run(sql, () =>
      runStatement(
        {
          system: this.system,
          job: this.job,
          schema: this.schema,
          setSchema: (s) => (this.schema = s),
          commit: () => this.system.commit(this.job),
          rollback: () => this.system.rollback(this.job),
        },
        sql,
        params.map(toSqlValue),
      ),
    );
  }

  command(cl: string): Promise<void> {
    return this.run(cl, () =>
      runCommand({ system: this.system, job: this.job, currentLibrary: this.schema }, cl),
    );
  }

  async transaction<T>(work: (c: IbmiConnection) => Promise<T>): Promise<T> {
    this.open();
    if (this.job.transaction) throw new Error('A transaction is already open on this connection.');
    this.job.transaction = { cycles: new Map(), undo: [] };
    try {
      const result = await work(this);
      this.open();
      this.system.commit(this.job);
      return result;
    } catch (e) {
      this.system.rollback(this.job);
      throw e;
    } finally {
      this.job.transaction = null;
    }
  }

  close(): Promise<void> {
    if (!this.closed) {
      // Ending the job rolls back whatever it left uncommitted.
      if (this.job.transaction) this.system.rollback(this.job);
      this.job.transaction = null;
      this.system.unregister(this.job);
      this.closed = true;
    }
    return Promise.resolve();
  }

  /** Runs on a later turn, as a driver call would: callers never see a synchronous answer. */
  private run<T>(text: string, work: () => T): Promise<T> {
    const fault = this.system.faults.take(text);
    this.system.requests += 1;
    const delay = (fault?.kind === 'stall' ? fault.ms : 0) + this.system.linkDelayMs;
    const later = (then: () => void) => (delay > 0 ? setTimeout(then, delay) : setImmediate(then));
    return new Promise((resolve, reject) =>
      later(() => {
        try {
          this.open();
          // CHGQRYA QRYTIMLMT: a query whose estimate passes the limit is refused before it starts.
          if (fault?.kind === 'governor') throw sqlError(-666);
          if (fault?.kind === 'drop') {
            // As the host server ending the job: its uncommitted work is rolled back.
            void this.close();
            throw disconnected();
          }
          const result = work();
          if (isMidResult(fault)) {
            // The statement ran; its rows were being fetched when the fault struck.
            if (!Array.isArray(result) || result.length < 2) this.system.faults.putBack(fault);
            else if (fault.kind === 'drop-mid-result') {
              void this.close();
              throw disconnected();
            } else throw rowInUse(text);
          }
          resolve(result);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      }),
    );
  }
}

const disconnected = () =>
  new IbmiError('CWBCO1047', 'The IBM i server application disconnected the connection.');

/** SQL0913, as a fetch meets a row another job holds past the file's wait time. */
function rowInUse(statement: string): IbmiError {
  const [, library = '*N', file = '*N'] = /\bFROM\s+"?(\w+)"?\s*[./]\s*"?(\w+)"?/i.exec(statement) ?? [];
  return new IbmiError(
    'SQL0913',
    `Row or object ${file.toUpperCase()} type *FILE in ${library.toUpperCase()} in use.`,
  );
}
