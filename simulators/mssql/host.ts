// The sandbox's SQL side behind the TDS server: logins, databases and sessions. Statements run through
// a small T-SQL subset (statements.ts); errors carry SQL Server's own numbers, states and classes.
import { SelectDenials } from './tsql/selectDenials';
import type { Login7 } from './tds/login7';
import type { RpcCall, RpcParam } from './tds/requests';
import type { CallResult, HostSession, LoginOutcome, StatementResult, TdsHost } from './tds/hostSession';
import type { ServerMessage } from './tds/tokens';
import { runBatch, type Parameters, type SessionContext } from './statements';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TransactionRequest } from './tds/requests';
import { SessionTransaction } from './transactions';
import {
  ALL_RIGHTS,
  SandboxDatabaseFile,
  type Rights,
  type SandboxDatabase,
  type ServerDatabase,
} from './tsql/database';
import { SqlError } from './tsql/basics';
import { spRename } from './tsql/rename';
import type { ServerSession } from './tsql/sessionViews';

export interface SandboxLogin {
  name: string;
  password: string;
  defaultDatabase?: string;
  /** Grants the login lacks (all are granted unless set to false). */
  permissions?: Partial<
    Pick<
      Rights,
      'viewCatalog' | 'viewChangeTracking' | 'createSchema' | 'write' | 'alter' | 'viewServerState'
    >
  >;
}

export interface SandboxHostOptions {
  logins: SandboxLogin[];
  databases: string[];
  /** Databases created with a case-sensitive collation (Latin1_General_CS_AS). */
  caseSensitiveDatabases?: string[];
  /** Seam: the sandbox clock (change-tracking retention), moved on by tests. */
  now?: () => Date;
}

const loginFailed = (user: string): ServerMessage => ({
  number: 18456,
  state: 1,
  class: 14,
  message: `Login failed for user '${user}'.`,
});
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export class SandboxHost implements TdsHost {
  /** One database file per name, in a folder of this server's own, shared by every session. */
  private readonly databases = new Map<string, SandboxDatabaseFile>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'cdc-sandbox-mssql-'));

  /** The server's databases: those it started with, then those CREATE DATABASE made. */
  private readonly names: string[];
  private readonly caseSensitiveNames: string[];

  constructor(private readonly options: SandboxHostOptions) {
    this.names = [...options.databases];
    this.caseSensitiveNames = [...(options.caseSensitiveDatabases ?? [])];
  }

  /** CREATE DATABASE: 262 without the permission, 1801 when the name is taken. */
  createDatabase(name: string, caseSensitive: boolean, login: SandboxLogin): ServerMessage | undefined {
    if (login.permissions?.createSchema === false || login.permissions?.write === false)
      return {
        number: 262,
        state: 1,
        class: 14,
        message: "CREATE DATABASE permission denied in database 'master'.",
      };
    if (this.hasDatabase(name) || sameName(name, 'master'))
      return {
        number: 1801,
        state: 3,
        class: 16,
        message: `Database '${name}' already exists. Choose a different database name.`,
      };
    this.names.push(name);
    if (caseSensitive) this.caseSensitiveNames.push(name);
    return undefined;
  }

  database(name: string): SandboxDatabaseFile {
    const key = name.toLowerCase();
    let file = this.databases.get(key);
    if (!file) this.databases.set(key, (file = new SandboxDatabaseFile(name, this.dir, this.options.now)));
    return file;
  }

  private nextSpid = 51;
  private readonly sessions = new Set<SandboxSession>();

  /** The sessions open now, as sys.dm_exec_sessions lists them. */
  openSessions(): ServerSession[] {
    return [...this.sessions].map((s) => ({
      spid: s.spid,
      login: s.login,
      hostName: s.hostName,
      appName: s.appName,
      database: s.database,
      databaseId: this.names.findIndex((d) => sameName(d, s.database)) + 1,
      loginTime: s.loginTime,
      transactionCount: s.transaction.count,
    }));
  }

  /** A session that ended leaves the views. */
  ended(session: SandboxSession): void {
    this.sessions.delete(session);
  }

  close(): void {
    for (const c of this.settingsConnections.values()) c.close();
    this.settingsConnections.clear();
    this.databases.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }

  login(l: Login7): LoginOutcome {
    if (l.usesSspi)
      return {
        ok: false,
        error: {
          number: 18452,
          state: 1,
          class: 14,
          message:
            'Login failed. The login is from an untrusted domain and cannot be used with Integrated authentication.',
        },
      };
    const login = this.options.logins.find((x) => sameName(x.name, l.userName));
    // SQL Server tells the client nothing more than this, whatever the cause (state 1 on the wire).
    if (!login || login.password !== l.password) return { ok: false, error: loginFailed(l.userName) };
    const wanted = l.database || login.defaultDatabase || 'master';
    const database = this.names.find((d) => sameName(d, wanted));
    if (!database) {
      return {
        ok: false,
        error: {
          number: 4060,
          state: 1,
          class: 11,
          message: `Cannot open database "${wanted}" requested by the login. The login failed.`,
        },
      };
    }
    // Session ids as SQL Server's user sessions have them: above 50, one per connection.
    const client = { spid: this.nextSpid++, hostName: l.hostName, appName: l.appName };
    const session = new SandboxSession(this, login, database, client);
    this.sessions.add(session);
    return { ok: true, session };
  }

  /**
   * One connection per database kept for reading its settings: opening one parses the database's
   * whole schema, which grows with every table (and its Change Tracking objects).
   */
  private readonly settingsConnections = new Map<string, SandboxDatabase>();

  /** sys.databases: every database of this server, with settings read from its own file. */
  serverDatabases(): ServerDatabase[] {
    return this.names.map((name, i) => {
      const key = name.toLowerCase();
      let connection = this.settingsConnections.get(key);
      if (!connection) this.settingsConnections.set(key, (connection = this.database(name).open()));
      return {
        name,
        databaseId: i + 1,
        snapshotAllowed: connection.allowsSnapshot(),
        caseSensitive: this.caseSensitive(name),
      };
    });
  }

  /** DENY SELECT ON a table TO a login, seen by every session at once. */
  readonly selectDenials = new SelectDenials();

  loginNames(): string[] {
    return this.options.logins.map((l) => l.name);
  }

  caseSensitive(database: string): boolean {
    return this.caseSensitiveNames.some((d) => sameName(d, database));
  }

  hasDatabase(name: string): string | undefined {
    return this.names.find((d) => sameName(d, name));
  }
}

interface Prepared {
  sql: string;
  declared: string;
}

class SandboxSession implements HostSession, SessionContext {
  private prepared = new Map<number, Prepared>();
  readonly transaction = new SessionTransaction(() => this.connection());
  private connections = new Map<string, SandboxDatabase>();
  private nextHandle = 1;
  private readonly loginDatabase: string;

  readonly login: string;

  readonly spid: number;
  readonly hostName: string;
  readonly appName: string;
  /** When the login was accepted, as sys.dm_exec_sessions.login_time shows it. */
  readonly loginTime = new Date().toISOString().replace('T', ' ').slice(0, 23);

  constructor(
    private readonly host: SandboxHost,
    private readonly account: SandboxLogin,
    public database: string,
    client: { spid: number; hostName: string; appName: string },
  ) {
    this.login = account.name;
    this.spid = client.spid;
    this.hostName = client.hostName;
    this.appName = client.appName;
    this.loginDatabase = database;
  }

  /** This session's own connection to the current database. */
  private connection(): SandboxDatabase {
    const key = this.database.toLowerCase();
    let connection = this.connections.get(key);
    if (!connection) {
      connection = this.host.database(this.database).open();
      connection.rights = {
        ...ALL_RIGHTS,
        ...this.account.permissions,
        caseSensitive: this.host.caseSensitive(this.database),
      };
      connection.serverDatabases = () => this.host.serverDatabases();
      connection.serverLogins = () => this.host.loginNames();
      connection.login = this.login;
      connection.selectDenials = this.host.selectDenials;
      connection.serverSessions = () => this.host.openSessions();
      connection.sessionVariable = (name) => {
        const n = name.toLowerCase();
        return n === '@@spid' ? this.spid : n === '@@trancount' ? this.transaction.count : undefined;
      };
      this.connections.set(key, connection);
    }
    return connection;
  }

  /** The connection for statements that touch data: a snapshot transaction checks the database first. */
  tables(): SandboxDatabase {
    const connection = this.connection();
    this.transaction.checkAccess(connection);
    return connection;
  }

  transactionManager(request: TransactionRequest): StatementResult[] {
    try {
      switch (request.kind) {
        case 'begin':
          return [this.transaction.begin(request.isolation)];
        case 'commit':
        case 'rollback': {
          const ended = request.kind === 'commit' ? this.transaction.commit() : this.transaction.rollback();
          return request.beginNew ? [ended, this.transaction.begin(request.isolation)] : [ended];
        }
        case 'save':
          return [this.transaction.save(request.name)];
        default:
          return [
            {
              messages: [
                {
                  kind: 'error',
                  number: 50000,
                  state: 1,
                  class: 16,
                  message: 'The sandbox does not support this transaction manager request yet.',
                },
              ],
              failed: true,
            },
          ];
      }
    } catch (error) {
      if (error instanceof SqlError)
        return [{ messages: [{ kind: 'error', ...error.serverMessage }], failed: true }];
      throw error;
    }
  }

  /** The session is the statements' context: a USE earlier in a batch is seen by the rest of it. */
  createDatabase(name: string, caseSensitive: boolean): ServerMessage | undefined {
    return this.host.createDatabase(name, caseSensitive, this.account);
  }

  useDatabase(name: string): string | undefined {
    const found = this.host.hasDatabase(name);
    if (found) this.database = found;
    return found;
  }

  batch(sql: string, signal: AbortSignal): Promise<StatementResult[]> {
    return runBatch(sql, new Map(), this, signal);
  }

  async rpc(call: RpcCall, signal: AbortSignal): Promise<CallResult> {
    const before = this.transaction.count;
    const result = await this.call(call, signal);
    return withTransactionCountCheck(result, before, this.transaction.count);
  }

  private async call(call: RpcCall, signal: AbortSignal): Promise<CallResult> {
    const name = call.procName.toLowerCase().replace(/^(?:\[?sys\]?\.)?\[?|\]$/g, '');
    const named = (p: RpcParam[]): Parameters =>
      new Map(p.map((x) => [x.name.toLowerCase(), { type: x.type, value: x.value }]));
    const [first, second, third, ...rest] = call.params;
    // SQL Server takes at most 2,100 parameters in one request ("Maximum capacity specifications").
    if (call.params.length > 2100)
      return failure({
        number: 8003,
        state: 1,
        class: 16,
        message:
          'The incoming request has too many parameters. The server supports a maximum of 2100 parameters. Reduce the number of parameters and resend the request.',
      });
    switch (name) {
      case 'sp_executesql': {
        // Parameters declared OUTPUT come back with the values the batch assigned them (SET/SELECT @p =).
        const bound = named(call.params.slice(2));
        const statements = await runBatch(String(first?.value ?? ''), bound, this, signal);
        const outputs = call.params
          .slice(2)
          .filter((p) => p.output)
          .map((p) => ({
            name: p.name,
            type: p.type,
            value: bound.get(p.name.toLowerCase())?.value ?? null,
          }));
        return { statements, outputs, returnStatus: 0 };
      }
      case 'sp_prepare':
      case 'sp_prepexec': {
        // @handle OUTPUT, @params, @stmt [, values…]
        const handle = this.nextHandle++;
        this.prepared.set(handle, { declared: String(second?.value ?? ''), sql: String(third?.value ?? '') });
        const outputs = first ? [{ name: first.name, type: { name: 'int' as const }, value: handle }] : [];
        const statements =
          name === 'sp_prepexec' ? await runBatch(String(third?.value ?? ''), named(rest), this, signal) : [];
        return { statements, outputs };
      }
      case 'sp_execute': {
        const prepared = this.prepared.get(Number(first?.value));
        if (!prepared)
          return failure({
            number: 8179,
            state: 4,
            class: 16,
            message: `Could not find prepared statement with handle ${String(first?.value)}.`,
          });
        return {
          statements: await runBatch(prepared.sql, named(call.params.slice(1)), this, signal),
        };
      }
      case 'sp_rename': {
        // @objname, @newname [, @objtype], by position or by name.
        const value = (name: string, at: number) =>
          call.params.find((p) => p.name.toLowerCase() === name)?.value ?? call.params[at]?.value ?? null;
        try {
          const done = spRename(
            this.tables(),
            String(value('@objname', 0) ?? ''),
            String(value('@newname', 1) ?? ''),
            value('@objtype', 2) === null ? null : String(value('@objtype', 2)),
          );
          return { statements: [done], returnStatus: 0 };
        } catch (error) {
          if (error instanceof SqlError) return failure(error.serverMessage);
          throw error;
        }
      }
      case 'sp_unprepare':
        this.prepared.delete(Number(first?.value));
        return { statements: [] };
      default:
        return failure({
          number: 2812,
          state: 62,
          class: 16,
          message: `Could not find stored procedure '${call.procName}'.`,
        });
    }
  }

  abortTransaction(): Buffer | undefined {
    const [ended] = this.transactionManager({ kind: 'rollback', name: '', beginNew: false, isolation: 0 });
    return ended?.failed ? undefined : ended?.transaction?.descriptor;
  }

  reset(): void {
    this.transaction.abandon();
    this.prepared.clear();
    this.database = this.loginDatabase;
  }

  close(): void {
    this.host.ended(this);
    this.transaction.abandon();
    this.prepared.clear();
    for (const c of this.connections.values()) c.close();
    this.connections.clear();
  }
}

/**
 * A procedure (sp_executesql's batch included) that leaves @@TRANCOUNT other than it found it is
 * answered with error 266 after its own results; the transaction stays as the batch left it. Not when
 * a failed statement ended the transaction (an error that rolls it back aborts the batch instead).
 */
function withTransactionCountCheck(result: CallResult, before: number, after: number): CallResult {
  if (after === before) return result;
  if (after === 0 && result.statements.some((s) => s.failed)) return result;
  const mismatch: StatementResult = {
    messages: [
      {
        kind: 'error',
        number: 266,
        state: 2,
        class: 16,
        message: `Transaction count after EXECUTE indicates a mismatching number of BEGIN and COMMIT statements. Previous count = ${before}, current count = ${after}.`,
      },
    ],
    failed: true,
  };
  return { ...result, statements: [...result.statements, mismatch] };
}

function failure(m: ServerMessage): CallResult {
  return { statements: [{ messages: [{ kind: 'error', ...m }], failed: true }], returnStatus: -6 };
}
