// One sandbox database: a SQLite file in WAL mode, one connection per session (so each session's
// transaction is its own, and a reader's snapshot is SQL Server's SNAPSHOT isolation). The table
// `dbo.Orders` is the SQLite table "dbo.Orders"; a catalog of schemas, tables, columns and keys sits
// beside the tables for the catalog views to read.
import { SelectDenials } from './selectDenials';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import { columnSql, fits } from './columnRules';
import type { ServerSession } from './sessionViews';
import { convert, type Evaluated } from './convert';
import { BUILT_IN_TYPES, CATALOG_DDL, typeColumns } from './catalogViews';
import { typeFacts } from '../tds/typeFacts';
import { CT_DDL } from './changeTracking';
import { quote, SqlError, tableSql } from './basics';

import { typeFromDeclared } from './typeNames';
import { exactDigits, isExactNumeric, storedExact } from './exactDecimals';
import { divide } from './arithmetic';
import { dataLength } from './dataLength';
import { clrMember, clrStatic, type ClrTypeName } from './clrValues';
import { variantInstance, variantProperty } from '../tds/variant';
import type { CheckDef } from './constraints';
import { ROWVERSION_DDL, RowversionCounter } from './rowversion';
import type { ColumnDef, DatabaseHandle, KeyDef, TableInfo } from './schema';

const FIRST_OBJECT_ID = 245_575_913;

const DATETIMEOFFSET_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? [+-]\d{2}:\d{2}$/;
const DATETIME2_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** A stored value with the type its canonical form shows (temporal values are kept as T-SQL's text). */
function storedValue(value: SqlValue): Evaluated {
  if (value === null) return { type: { name: 'int' }, value };
  if (typeof value === 'bigint') return { type: { name: 'bigint' }, value };
  if (typeof value === 'number')
    return Number.isInteger(value)
      ? { type: { name: 'bigint' }, value: BigInt(value) }
      : { type: { name: 'float' }, value, guessed: true };
  if (Buffer.isBuffer(value)) return { type: { name: 'varbinary', length: 'max' }, value };
  if (typeof value === 'string' && DATETIMEOFFSET_TEXT.test(value))
    return { type: { name: 'datetimeoffset', scale: 7 }, value };
  if (typeof value === 'string' && DATETIME2_TEXT.test(value))
    return { type: { name: 'datetime2', scale: 7 }, value };
  return { type: { name: 'nvarchar', length: 'max' }, value };
}

/** The database's file, made once per sandbox database; every session opens its own connection to it. */
export class SandboxDatabaseFile {
  readonly path: string;

  constructor(
    readonly name: string,
    dir: string,
    /** Seam: the sandbox clock, which tests move on to expire change-tracking retention. */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.path = join(dir, `${name.toLowerCase()}.sqlite`);
    const db = new Database(this.path);
    db.pragma('journal_mode = WAL');
    db.exec(CATALOG_DDL);
    db.exec(CT_DDL);
    db.exec(ROWVERSION_DDL);
    // SQL Server's fixed schema ids: dbo is 1; user schemas start at 5.
    db.prepare("INSERT INTO __schemas (schema_id, name) VALUES (1, 'dbo')").run();
    const type = db.prepare('INSERT INTO __types VALUES (?, ?, ?, 4, ?, ?, ?, ?, 1, 0)');
    for (const t of BUILT_IN_TYPES) {
      const f = typeFacts(t);
      type.run(
        f.typeName,
        f.systemTypeId,
        f.userTypeId ?? f.systemTypeId,
        f.maxLength,
        f.precision,
        f.scale,
        f.collation,
      );
    }
    db.close();
  }

  open(): SandboxDatabase {
    return new SandboxDatabase(this.name, this.path, this.now);
  }
}

/** What the session's login may do here; the sandbox's stand-in for grants and collation. */
export interface Rights {
  /** Reading catalog views (sys.*, INFORMATION_SCHEMA.*); without it they are "invalid objects" (208). */
  viewCatalog: boolean;
  viewChangeTracking: boolean;
  createSchema: boolean;
  /** INSERT, UPDATE, DELETE and TRUNCATE on tables. */
  write: boolean;
  /**
   * ALTER on the schemas and their tables: enabling or disabling a table's Change Tracking needs it
   * ("you must have permission to modify the table"); without it SQL Server answers 4902.
   */
  alter: boolean;
  /**
   * VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from 2022): without it sys.dm_tran_commit_table
   * shows only the commits a CHECKPOINT has written out, as Microsoft documents for read-only users.
   */
  viewServerState: boolean;
  /** A case-sensitive database collation: catalog view names must be written in lower case. */
  caseSensitive: boolean;
}

export const ALL_RIGHTS: Rights = {
  viewCatalog: true,
  viewChangeTracking: true,
  createSchema: true,
  write: true,
  alter: true,
  viewServerState: true,
  caseSensitive: false,
};

/** A row of sys.databases, which the server answers from all its databases. */
export interface ServerDatabase {
  name: string;
  databaseId: number;
  snapshotAllowed: boolean;
  caseSensitive: boolean;
}

const WHOLE_TYPES = new Set(['tinyint', 'smallint', 'int', 'bigint']);

export class SandboxDatabase implements DatabaseHandle {
  readonly db: Database.Database;
  /** The catalogue lookups every statement makes, prepared once per connection. */
  private readonly lookups = new Map<string, Database.Statement>();
  private lookup(text: string): Database.Statement {
    let statement = this.lookups.get(text);
    if (!statement) this.lookups.set(text, (statement = this.db.prepare(text)));
    return statement;
  }
  rights: Rights = ALL_RIGHTS;
  /** How table names compare: without case under the default collation, exactly under a _CS_ one. */
  private get nameCollation(): string {
    return this.rights.caseSensitive ? 'COLLATE BINARY' : 'COLLATE NOCASE';
  }
  /** @@DBTS while a write to a table with a rowversion column runs (rowversion.ts). */
  readonly rowversions = new RowversionCounter();
  /** Set by the session: the server's databases, for sys.databases. */
  serverDatabases: () => ServerDatabase[] = () => [];
  /** Set by the session: the server's logins, each a user of every database (sys.database_principals). */
  serverLogins: () => string[] = () => [];
  /** Set by the session: the server's open sessions (sys.dm_exec_sessions, sys.dm_exec_connections). */
  serverSessions: () => ServerSession[] = () => [];
  /** Set by the session: its login, and the server's denials of SELECT (objectPermissions.ts). */
  login = 'sa';
  selectDenials = new SelectDenials();
  /** Set by the session: @@SPID, @@TRANCOUNT and the like inside statements that read tables. */
  sessionVariable: (name: string) => number | string | undefined = () => undefined;

  constructor(
    readonly name: string,
    path: string,
    readonly now: () => Date = () => new Date(),
  ) {
    this.db = new Database(path);
    this.db.defaultSafeIntegers(true);
    // The server is single-threaded: a write that would wait for another session's lock cannot wait,
    // so it fails at once with SQL Server's lock-timeout error (1222) rather than stall every session.
    this.db.pragma('busy_timeout = 0');
    this.registerFunctions();
  }

  /** The server's clock as T-SQL writes a datetime2(7): the sandbox's seam, as change tracking's commit times are. */
  private stamp(): string {
    return this.now().toISOString().replace('T', ' ').replace('Z', '0000');
  }

  private registerFunctions(): void {
    // A statement names its types as JSON text, and calls these once per row: each text parsed once.
    const types = new Map<string, SqlType>();
    const typeOf = (text: unknown): SqlType => {
      const key = String(text);
      let type = types.get(key);
      if (!type) types.set(key, (type = JSON.parse(key) as SqlType));
      return type;
    };
    const f = (name: string, fn: (...args: unknown[]) => unknown) =>
      this.db.function(name, { varargs: true, deterministic: false }, fn);
    // The server's clock: the sandbox's seam, the one change tracking's commit times are stamped by.
    const now = () => this.stamp();
    f('GETDATE', () => now().slice(0, 23));
    f('GETUTCDATE', () => now().slice(0, 23));
    f('SYSDATETIME', () => now());
    f('SYSUTCDATETIME', () => now());
    f('NEWID', () => randomUUID().toUpperCase());
    // In CHECK constraints, so deterministic (SQLite refuses others there).
    this.db.function('TSQL_FITS', { deterministic: true }, (value, type, table, column) =>
      fits(this.name, value as SqlValue, typeOf(type), String(table), String(column)),
    );
    f('TSQL_CONVERT', (value, type, style, from) => {
      const to = typeOf(type);
      // `from`: the exact numeric column the value was read from, whose scale its stored form lost,
      // or the char(n) column, whose padding it lost (the sandbox pads a char as it sends it).
      const column = from === undefined || from === null || value === null ? undefined : typeOf(from);
      const given = !column
        ? storedValue(value as SqlValue)
        : column.name === 'char' || column.name === 'nchar'
          ? { type: column, value: String(value).padEnd(Number('length' in column ? column.length : 0)) }
          : { type: column, value: exactDigits(column, value as SqlValue) };
      const done = convert(given, to, style === null ? null : Number(style)).value;
      // Whole-number types leave as SQLite integers, so an expression over them stays whole (CAST(x AS
      // int) + 1 is an int), as a column of the type holds them.
      if (typeof done === 'boolean') return done ? 1n : 0n;
      if (typeof done === 'number' && WHOLE_TYPES.has(to.name)) return BigInt(done);
      return isExactNumeric(to) ? storedExact(to, done) : done;
    });
    f('TSQL_ROWVERSION', () => this.rowversions.draw());
    f('TSQL_DATALENGTH', (value, type) => dataLength(value as SqlValue, typeOf(type)));
    // Deterministic, so a CHECK constraint may divide.
    this.db.function('TSQL_DIVIDE', { deterministic: true }, (a, b) =>
      divide(a as SqlValue, b as SqlValue, false),
    );
    this.db.function('TSQL_MODULO', { deterministic: true }, (a, b) =>
      divide(a as SqlValue, b as SqlValue, true),
    );
    // A value written into a sql_variant column, with the base type the statement declared, if any.
    f('TSQL_VARIANT', (value, base) => {
      if (value === null) return null;
      const given = storedValue(value as SqlValue);
      if (base === null) return convert(given, { name: 'sql_variant' }).value;
      const type = typeOf(base);
      return variantInstance(type, convert(given, type).value);
    });
    f('SQL_VARIANT_PROPERTY', (value, property) =>
      Buffer.isBuffer(value) ? variantProperty(value, String(property)) : null,
    );
    f('TSQL_CLR_STATIC', (type, method, ...args) => clrStatic(type as ClrTypeName, String(method), args));
    f('TSQL_CLR_METHOD', (value, type, member) => clrMember(type as ClrTypeName, value, String(member)));
    f('TSQL_CLR_CONVERT', (value, type, to, style) => {
      const from = { type: { name: type as ClrTypeName | 'sql_variant' }, value: value as SqlValue };
      const done = convert(from, typeOf(to), style === null ? null : Number(style));
      return typeof done.value === 'boolean' ? Number(done.value) : done.value;
    });
    f('ISNULL', (a, b) => (a === null ? b : a));
    // Deterministic, so a CHECK constraint may call it (SQLite refuses other functions there).
    this.db.function('LEN', { deterministic: true }, (a) =>
      a === null ? null : BigInt(String(a).replace(/ +$/, '').length),
    );
    f('DB_NAME', () => this.name);
    f('DB_ID', (name) => {
      const wanted = String(name ?? this.name).toLowerCase();
      const found = this.serverDatabases().find((d) => d.name.toLowerCase() === wanted);
      return found ? BigInt(found.databaseId) : null;
    });
    f('CT_NOW', () => this.now().toISOString());
    // SYS_CHANGE_COLUMNS is opaque to clients; here it is the column-id bit mask, 8 bytes little-endian.
    f('CT_MASK', (mask) => {
      if (mask === null || mask === undefined) return null;
      const out = Buffer.alloc(8);
      out.writeBigUInt64LE(BigInt(mask as bigint));
      return out;
    });
    this.db.aggregate('CT_OR', {
      start: 0n,
      step: (acc: bigint, v: unknown) => acc | (v === null ? 0n : BigInt(v as bigint)),
    });
    f('CT_IN_MASK', (columnId, mask) => {
      if (mask === null || columnId === null || !Buffer.isBuffer(mask)) return 0n;
      // Bit `columnId` of the 8-byte little-endian mask, read from its byte (called per row and column).
      const id = Number(columnId);
      if (id < 0 || id >= mask.length * 8) return 0n;
      return (mask[id >> 3] as number) & (1 << (id & 7)) ? 1n : 0n;
    });
  }

  /** The SQLite name of a catalog view such as sys.tables, matched without regard to case. */
  /** The catalogue's views by lower-case name: made with the database file, read once per connection. */
  private views: Map<string, string> | undefined;

  catalogView(schema: string, name: string): string | undefined {
    // Each look-up used to prepare a query scanning sqlite_master, which holds every table, index and
    // trigger: at 1,000 tables a statement naming sys.objects 250 times spent most of its time there.
    this.views ??= new Map(
      this.db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'view'")
        .all()
        .map((v) => [v.name.toLowerCase(), v.name]),
    );
    return this.views.get(`${schema}.${name}`.toLowerCase());
  }

  /** ALTER DATABASE … SET ALLOW_SNAPSHOT_ISOLATION: off by default, as in SQL Server. */
  allowsSnapshot(): boolean {
    return (
      this.db
        .prepare<[], { value: string }>("SELECT value FROM __options WHERE name = 'allow_snapshot_isolation'")
        .get()?.value === 'on'
    );
  }

  setOption(name: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO __options (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value);
  }

  schemaName(name: string | undefined): string {
    const wanted = name ?? 'dbo';
    const row = this.db
      .prepare<[string], { name: string }>('SELECT name FROM __schemas WHERE name = ?')
      .get(wanted);
    if (!row) {
      throw new SqlError({
        number: 2760,
        state: 1,
        class: 16,
        message: `The specified schema name "${wanted}" either does not exist or you do not have permission to use it.`,
      });
    }
    return row.name;
  }

  hasSchema(name: string): boolean {
    return this.db.prepare('SELECT 1 FROM __schemas WHERE name = ?').get(name) !== undefined;
  }

  createSchema(name: string): void {
    if (this.db.prepare('SELECT 1 FROM __schemas WHERE name = ?').get(name)) {
      throw new SqlError({
        number: 2714,
        state: 6,
        class: 16,
        message: `There is already an object named '${name}' in the database.`,
      });
    }
    const last =
      this.db.prepare<[], { id: bigint }>('SELECT max(schema_id) AS id FROM __schemas').get()?.id ?? 4n;
    this.db
      .prepare('INSERT INTO __schemas (schema_id, name) VALUES (?, ?)')
      .run((last < 4n ? 4n : last) + 1n, name);
  }

  /**
   * Tables and object ids looked up while statements are translated (translation changes no table).
   * Outside a transaction the memory outlives its statement for as long as no row of this database has
   * changed, on this connection or another: the checks of 1,000 tables look each one up in several
   * statements. Inside one it lasts a statement, since a rollback undoes changes it cannot see.
   */
  private kept:
    | {
        stamp: string | undefined;
        tables: Map<string, TableInfo | undefined>;
        ids: Map<string, number | undefined>;
      }
    | undefined;
  private translating = false;

  /** What moves whenever a row changes: this connection's count of changes and SQLite's data version. */
  private catalogueStamp(): string {
    const changes = this.lookup('SELECT total_changes()').pluck().get();
    const version = this.lookup('PRAGMA data_version').pluck().get();
    return `${String(changes)}:${String(version)}`;
  }

  /** Runs `work` with table look-ups remembered (nested calls share the memory). */
  rememberingTables<T>(work: () => T): T {
    if (this.translating) return work();
    const stamp = this.db.inTransaction ? undefined : this.catalogueStamp();
    if (stamp === undefined || this.kept?.stamp !== stamp)
      this.kept = { stamp, tables: new Map(), ids: new Map() };
    this.translating = true;
    try {
      return work();
    } finally {
      this.translating = false;
      if (stamp === undefined) this.kept = undefined;
    }
  }

  private get memo() {
    return this.translating ? this.kept : undefined;
  }

  table(schema: string | undefined, name: string): TableInfo | undefined {
    if (name.startsWith('#')) return this.tempTable(name);
    const memo = this.memo?.tables;
    if (!memo) return this.catalogTable(schema, name);
    const key = `${schema ?? ''}\u0000${name}\u0000${this.nameCollation}`;
    if (!memo.has(key)) memo.set(key, this.catalogTable(schema, name));
    return memo.get(key);
  }

  /** A user table's object id alone (OBJECT_ID): one look-up, not the table's columns and keys. */
  tableObjectId(schema: string | undefined, name: string): number | undefined {
    if (name.startsWith('#')) return this.tempTable(name) ? this.tempObjectId(name) : undefined;
    const memo = this.memo?.tables;
    const key = `${schema ?? ''}\u0000${name}\u0000${this.nameCollation}`;
    if (memo?.has(key)) return memo.get(key)?.objectId;
    const ids = this.memo?.ids;
    if (ids?.has(key)) return ids.get(key);
    const object = this.catalogObject(schema, name);
    const id = object ? Number(object.object_id) : undefined;
    ids?.set(key, id);
    return id;
  }

  private catalogObject(schema: string | undefined, name: string) {
    return this.lookup(
      `SELECT object_id, schema_name, name FROM __objects WHERE schema_name = ? COLLATE NOCASE AND name = ? ${this.nameCollation} AND type = 'U'`,
    ).get(schema ?? 'dbo', name) as { object_id: bigint; schema_name: string; name: string } | undefined;
  }

  private catalogTable(schema: string | undefined, name: string): TableInfo | undefined {
    const object = this.catalogObject(schema, name);
    if (!object) return undefined;
    const objectId = Number(object.object_id);
    const columns = this.lookup('SELECT * FROM __columns WHERE object_id = ? ORDER BY column_id').all(
      objectId,
    ) as {
      column_id: bigint;
      name: string;
      type: string;
      is_nullable: bigint;
      is_identity: bigint;
      seed: bigint | null;
      increment: bigint | null;
    }[];
    const keyRows = this.lookup('SELECT * FROM __keys WHERE object_id = ? ORDER BY name, key_ordinal').all(
      objectId,
    ) as { name: string; kind: 'PK' | 'UQ'; clustered: bigint; column_name: string }[];
    const keys: KeyDef[] = [];
    for (const k of keyRows) {
      let key = keys.find((x) => x.name === k.name);
      if (!key) keys.push((key = { name: k.name, kind: k.kind, clustered: k.clustered === 1n, columns: [] }));
      key.columns.push(k.column_name);
    }
    return {
      objectId,
      sqlName: tableSql(object.schema_name, object.name),
      schema: object.schema_name,
      name: object.name,
      keys,
      columns: columns.map((c) => ({
        columnId: Number(c.column_id),
        name: c.name,
        type: JSON.parse(c.type) as SqlType,
        nullable: c.is_nullable === 1n,
        ...(c.is_identity === 1n && { identity: { seed: c.seed ?? 1n, increment: c.increment ?? 1n } }),
      })),
    };
  }

  createTable(
    schemaName: string | undefined,
    name: string,
    columns: ColumnDef[],
    keys: KeyDef[],
    checks: CheckDef[] = [],
  ): void {
    const schema = this.schemaName(schemaName);
    if (
      this.db
        .prepare(`SELECT 1 FROM __objects WHERE schema_name = ? AND name = ? ${this.nameCollation}`)
        .get(schema, name)
    ) {
      throw new SqlError({
        number: 2714,
        state: 6,
        class: 16,
        message: `There is already an object named '${name}' in the database.`,
      });
    }
    const pk = keys.find((k) => k.kind === 'PK');
    for (const c of pk?.columns ?? []) {
      const col = columns.find((x) => x.name.toLowerCase() === c.toLowerCase());
      if (!col)
        throw new SqlError({
          number: 1911,
          state: 1,
          class: 16,
          message: `Column name '${c}' does not exist in the target table or view.`,
        });
      col.nullable = false;
    }
    const defs = columns.map((c) => columnSql(c, `${schema}.${name}`));
    for (const k of keys)
      defs.push(`${k.kind === 'PK' ? 'PRIMARY KEY' : 'UNIQUE'} (${k.columns.map(quote).join(', ')})`);
    for (const c of checks) defs.push(`CONSTRAINT ${quote(c.name)} CHECK (${c.sql})`);
    this.db.transaction(() => {
      // Object ids as SQL Server hands them out: large, spaced, never reused.
      const last = this.db
        .prepare<[], { id: bigint | null }>(
          'SELECT object_id AS id FROM __objects ORDER BY rowid DESC LIMIT 1',
        )
        .get()?.id;
      const objectId = this.nextObjectId(last === null || last === undefined ? null : Number(last));
      this.db.exec(`CREATE TABLE ${tableSql(schema, name)} (${defs.join(', ')})`);
      this.db
        .prepare("INSERT INTO __objects VALUES (?, ?, ?, 'U', ?, ?)")
        .run(objectId, schema, name, this.stamp().slice(0, 23), this.stamp().slice(0, 23));
      const column = this.db.prepare(
        'INSERT INTO __columns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
      );
      columns.forEach((c, i) => {
        column.run(
          objectId,
          i + 1,
          c.name,
          ...typeColumns(c.type),
          c.nullable ? 1 : 0,
          c.identity ? 1 : 0,
          c.identity?.seed ?? null,
          c.identity?.increment ?? null,
          c.aliasTypeId ?? null,
        );
      });
      // Index ids as SQL Server numbers them: 1 for the clustered index, 2 and on for the others.
      const key = this.db.prepare('INSERT INTO __keys VALUES (?, ?, ?, ?, ?, ?, ?)');
      let nextIndexId = 2;
      for (const k of keys) {
        const indexId = k.clustered ? 1 : nextIndexId++;
        k.columns.forEach((col, i) =>
          key.run(objectId, k.name, k.kind, k.clustered ? 1 : 0, indexId, i + 1, col),
        );
      }
    })();
  }

  /**
   * A local temporary table (#name): the session's own, as SQLite's TEMP tables are the connection's.
   * Like SQL Server's, it lives in tempdb, not in this database's catalog views.
   */
  createTempTable(name: string, columns: ColumnDef[], keys: KeyDef[]): void {
    if (this.tempTable(name)) {
      throw new SqlError({
        number: 2714,
        state: 6,
        class: 16,
        message: `There is already an object named '${name}' in the database.`,
      });
    }
    const defs = columns.map((c) => columnSql(c, name));
    for (const k of keys)
      defs.push(`${k.kind === 'PK' ? 'PRIMARY KEY' : 'UNIQUE'} (${k.columns.map(quote).join(', ')})`);
    this.db.exec(`CREATE TEMP TABLE ${quote(name)} (${defs.join(', ')})`);
  }

  /**
   * The next object id after the last one given: spaced as SQL Server's look, and an int, as
   * sys.objects.object_id is (past 2,147,483,647 the ids go round, skipping those taken).
   */
  private nextObjectId(last: number | null): number {
    if (last === null) return FIRST_OBJECT_ID;
    const taken = this.db.prepare<[number], { n: bigint }>(
      'SELECT count(*) AS n FROM __objects WHERE object_id = ?',
    );
    let id = last;
    do {
      id += 16_000_057;
      if (id > 2_147_483_647) id = (id % 2_147_483_647) + 1;
    } while ((taken.get(id)?.n ?? 0n) > 0n);
    return id;
  }

  /** A temporary table's object id: negative, as SQL Server numbers tempdb's session tables. */
  tempObjectId(name: string): number {
    const row = this.db
      .prepare<[string], { id: bigint }>(
        "SELECT rowid AS id FROM sqlite_temp_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
      )
      .get(name);
    return -1_000_000 - Number(row?.id ?? 0);
  }

  private tempTable(name: string): TableInfo | undefined {
    const columns = this.db
      .prepare<[string], { cid: bigint; name: string; type: string; notnull: bigint }>(
        'SELECT cid, name, type, "notnull" FROM pragma_table_info(?, \'temp\')',
      )
      .all(name);
    if (columns.length === 0) return undefined;
    return {
      objectId: -1,
      sqlName: quote(name),
      schema: 'dbo',
      name,
      keys: [],
      columns: columns.map((c) => ({
        columnId: Number(c.cid) + 1,
        name: c.name,
        type: typeFromDeclared(c.type) ?? { name: 'nvarchar', length: 'max' },
        nullable: c.notnull === 0n,
      })),
    };
  }

  dropTable(schemaName: string | undefined, name: string, ifExists: boolean): void {
    if (name.startsWith('#')) {
      if (this.tempTable(name)) this.db.exec(`DROP TABLE temp.${quote(name)}`);
      else if (!ifExists)
        throw new SqlError({
          number: 3701,
          state: 5,
          class: 11,
          message: `Cannot drop the table '${name}', because it does not exist or you do not have permission.`,
        });
      return;
    }
    const table = this.table(schemaName, name);
    if (!table) {
      if (ifExists) return;
      throw new SqlError({
        number: 3701,
        state: 5,
        class: 11,
        message: `Cannot drop the table '${schemaName ? `${schemaName}.` : ''}${name}', because it does not exist or you do not have permission.`,
      });
    }
    this.db.transaction(() => {
      this.db.exec(`DROP TABLE ${tableSql(table.schema, table.name)}`);
      for (const t of ['__objects', '__columns', '__keys', '__indexes'])
        this.db.prepare(`DELETE FROM ${t} WHERE object_id = ?`).run(table.objectId);
    })();
  }

  /** The next identity values of a table's identity column, reserved at once. */
  nextIdentities(table: TableInfo, count: number): bigint[] {
    const column = table.columns.find((c) => c.identity);
    if (!column?.identity) return [];
    const row = this.db
      .prepare<[number, number], { last_value: bigint | null }>(
        'SELECT last_value FROM __columns WHERE object_id = ? AND column_id = ?',
      )
      .get(table.objectId, column.columnId);
    const { seed, increment } = column.identity;
    const values = Array.from(
      { length: count },
      (_, i) =>
        (row?.last_value === null || row?.last_value === undefined ? seed : row.last_value + increment) +
        BigInt(i) * increment,
    );
    if (values.length > 0)
      this.db
        .prepare('UPDATE __columns SET last_value = ? WHERE object_id = ? AND column_id = ?')
        .run(values.at(-1), table.objectId, column.columnId);
    return values;
  }

  close(): void {
    this.db.close();
  }
}
