// The production IbmiConnection: the `odbc` package over unixODBC and the IBM i Access ODBC Driver.
// `odbc` is an optional dependency, loaded on first use, so the app installs and runs without it;
// what is missing (the package, unixODBC, the driver) is said in plain words.
import { createRequire } from 'node:module';
import {
  IbmiError,
  type IbmiConnection,
  type IbmiRow,
  type IbmiValue,
} from '../../../../lib/ibmi/connection';
import type { DateFormat, TimeFormat } from '../../../../lib/ibmi/dateTime';
import { redactSecret } from '../../../platform/redact';

/** The part of the `odbc` package this module uses. */
interface OdbcConnection {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[] & { columns?: unknown }>;
  beginTransaction(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}
interface OdbcModule {
  connect(connectionString: string): Promise<OdbcConnection>;
}

export interface OdbcIbmiOptions {
  host: string;
  username: string;
  password: string;
  /** The relational database name (the driver's DATABASE keyword); *SYSBAS when empty. */
  databaseName?: string;
  defaultLibrary?: string;
  dateFormat: DateFormat;
  timeFormat: TimeFormat;
  /** Kilobytes per block fetch; 0 turns block fetch off. */
  blockSize: number;
  useConnectionPool: boolean;
  maxConnectionsCount: number;
  driver?: string;
  /** Replaces the generated string (tests reach another ODBC driver through the same code). */
  connectionString?: string;
  /** The statement that proves a pooled connection still answers before it is reused. */
  probeSql?: string;
}

// "Connection string keywords - Data types" (DFT, TFT) in IBM i Access ODBC Driver's numbering.
const DFT: Record<DateFormat, number> = { julian: 0, mdy: 1, dmy: 2, ymd: 3, usa: 4, iso: 5, eur: 6, jis: 7 };
const TFT: Record<TimeFormat, number> = { hms: 0, usa: 1, iso: 2, eur: 3, jis: 4 };

/** A value in braces when it holds characters the connection string syntax uses. */
const braced = (v: string) => (/[;{}=\s]/.test(v) ? `{${v.replaceAll('}', '}}')}}` : v);

export function ibmiConnectionString(o: OdbcIbmiOptions): string {
  const parts: [string, string | number][] = [
    ['DRIVER', `{${o.driver ?? 'IBM i Access ODBC Driver'}}`],
    ['SYSTEM', braced(o.host)],
    ['UID', braced(o.username)],
    ['PWD', braced(o.password)],
    ['NAM', 0],
    ['DFT', DFT[o.dateFormat]],
    ['TFT', TFT[o.timeFormat]],
    ['BLOCKFETCH', o.blockSize === 0 ? 0 : 1],
    // Autocommit as *NONE (TRUEAUTOCOMMIT=0): statements outside transaction() are not under commitment control.
    ['CMT', 0],
    ['TRUEAUTOCOMMIT', 0],
  ];
  if (o.blockSize > 0) parts.push(['BLOCKSIZE', o.blockSize]);
  if (o.databaseName) parts.push(['DATABASE', braced(o.databaseName)]);
  if (o.defaultLibrary) parts.push(['DBQ', braced(o.defaultLibrary)]);
  return parts.map(([k, v]) => `${k}=${v}`).join(';');
}

let loaded: OdbcModule | undefined;
function odbcModule(): OdbcModule {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('odbc') as OdbcModule;
    return loaded;
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    if (/libodbc/.test(text))
      throw new IbmiError(
        'ODBC-SETUP',
        'unixODBC is not installed (libodbc.so.2 is missing). Install the unixodbc package.',
      );
    throw new IbmiError(
      'ODBC-SETUP',
      'The odbc package is not installed; reinstall the app with its optional dependencies.',
    );
  }
}

/** A driver error as IbmiError: the CPF or SQL message id when IBM i gave one, never the password. */
export function mapOdbcError(e: unknown, secret: string): IbmiError {
  if (e instanceof IbmiError) return e;
  const details = (e as { odbcErrors?: { state?: string; message?: string }[] }).odbcErrors ?? [];
  const first = details[0];
  const raw = first?.message ?? (e instanceof Error ? e.message : String(e));
  const text = redactSecret(raw, secret).replace(/^(\[[^\]]*\])+\s*/, '');
  // unixODBC: IM002 when no such driver is configured, 01000 "Can't open lib" when its library is missing.
  if (first?.state === 'IM002' || /Can't open lib|Data source name not found/.test(text))
    return new IbmiError(
      'ODBC-SETUP',
      'The IBM i Access ODBC Driver is not installed (unixODBC has no such driver). Install IBM i Access Client Solutions’ ODBC package.',
    );
  const id =
    /\b(CPF[0-9A-F]{4}|CPD[0-9A-F]{4}|SQL\d{4}|CWB[A-Z]{2}\d{4})\b/.exec(text)?.[1] ??
    `ODBC-${first?.state ?? 'ERROR'}`;
  return new IbmiError(id, text.replace(new RegExp(`^${id}:?\\s*`), ''));
}

const toParam = (v: IbmiValue): unknown => (v instanceof Uint8Array ? Buffer.from(v) : v);

/** A CL command as the driver runs it: QCMDEXC with the command bound as its parameter. */
const QCMDEXC = 'CALL QSYS2.QCMDEXC(?)';

function toRow(r: Record<string, unknown>): IbmiRow {
  const row: IbmiRow = {};
  for (const [k, v] of Object.entries(r)) {
    row[k.toUpperCase()] =
      v === null || v === undefined
        ? null
        : Buffer.isBuffer(v) || v instanceof ArrayBuffer
          ? new Uint8Array(v as ArrayBuffer)
          : typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint'
            ? v
            : String(v);
  }
  return row;
}

async function run(c: OdbcConnection, sql: string, params: readonly IbmiValue[]): Promise<IbmiRow[]> {
  return (await c.query(sql, params.map(toParam))).map(toRow);
}

/** Closes a connection whatever state it is in (a dropped one may throw rather than reject). */
async function quietly(c: OdbcConnection): Promise<void> {
  try {
    await c.close();
  } catch {
    // Already closed or dropped: nothing is left to release.
  }
}

/** Connections kept for reuse, each proved alive before it is handed out; at most `max` at once. */
class ConnectionPool {
  private readonly idle: OdbcConnection[] = [];
  private open = 0;
  private readonly waiting: ((c: OdbcConnection) => void)[] = [];

  constructor(
    private readonly connect: () => Promise<OdbcConnection>,
    private readonly probe: string,
    private readonly max: number,
    private readonly keep: boolean,
  ) {}

  /** Seam for tests: the connections waiting for reuse. */
  idleConnections(): readonly OdbcConnection[] {
    return this.idle;
  }

  async acquire(): Promise<OdbcConnection> {
    while (this.idle.length) {
      const c = this.idle.pop() as OdbcConnection;
      try {
        await c.query(this.probe);
        return c;
      } catch {
        // Dropped while idle: let it go and try the next, or open a new one.
        this.open--;
        await quietly(c);
      }
    }
    if (this.open < this.max) {
      this.open++;
      try {
        return await this.connect();
      } catch (e) {
        this.open--;
        throw e;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async release(c: OdbcConnection, broken = false): Promise<void> {
    const next = this.waiting.shift();
    if (next && !broken) return next(c);
    if (broken || !this.keep) {
      this.open--;
      await quietly(c);
      if (next) void this.acquire().then(next);
      return;
    }
    this.idle.push(c);
  }

  async close(): Promise<void> {
    const all = this.idle.splice(0);
    this.open -= all.length;
    await Promise.all(all.map(quietly));
  }
}

export class OdbcIbmiConnection implements IbmiConnection {
  readonly pool: ConnectionPool;
  private readonly secret: string;

  constructor(private readonly options: OdbcIbmiOptions) {
    const odbc = odbcModule();
    const connectionString = options.connectionString ?? ibmiConnectionString(options);
    this.secret = options.password;
    this.pool = new ConnectionPool(
      () => odbc.connect(connectionString),
      options.probeSql ?? 'VALUES 1',
      options.useConnectionPool ? Math.max(1, options.maxConnectionsCount) : 1,
      options.useConnectionPool,
    );
  }

  private async with<T>(work: (c: OdbcConnection) => Promise<T>): Promise<T> {
    let c: OdbcConnection;
    try {
      c = await this.pool.acquire();
    } catch (e) {
      throw mapOdbcError(e, this.secret);
    }
    try {
      const result = await work(c);
      await this.pool.release(c);
      return result;
    } catch (e) {
      const mapped = mapOdbcError(e, this.secret);
      await this.pool.release(c, mapped.messageId.startsWith('ODBC-08'));
      throw mapped;
    }
  }

  query(sql: string, params: readonly IbmiValue[] = []): Promise<IbmiRow[]> {
    return this.with((c) => run(c, sql, params));
  }

  async command(cl: string): Promise<void> {
    await this.query(QCMDEXC, [cl]);
  }

  transaction<T>(work: (c: IbmiConnection) => Promise<T>): Promise<T> {
    return this.with(async (raw) => {
      await raw.beginTransaction();
      const bound: IbmiConnection = {
        query: (sql, params = []) => run(raw, sql, params),
        command: async (cl) => void (await run(raw, QCMDEXC, [cl])),
        transaction: () => Promise.reject(new Error('A transaction is already open on this connection.')),
        close: () => Promise.resolve(),
      };
      try {
        const result = await work(bound);
        await raw.commit();
        return result;
      } catch (e) {
        await raw.rollback().catch(() => undefined);
        throw e;
      }
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Opens the production connection and proves it answers, so a bad setup fails here in plain words. */
export async function openOdbcIbmi(options: OdbcIbmiOptions): Promise<OdbcIbmiConnection> {
  const c = new OdbcIbmiConnection(options);
  await c.query(options.probeSql ?? 'VALUES 1');
  return c;
}
