// Change Tracking as Microsoft documents it ("About Change Tracking", "Work with Change Tracking",
// CHANGETABLE, CHANGE_TRACKING_MIN_VALID_VERSION): a database-wide version that each committing
// transaction with tracked changes moves on by one, a side table per tracked table keyed by its
// primary key, net changes since a version, a context per change, and retention cleanup.
//
// Triggers record the changes. A transaction's changes all get the version it commits with: SQLite
// admits one writer at a time, so versions are handed out in commit order and a reader never skips
// a version still in flight.
import { quote, SqlError, tableSql } from './basics';
import type { DatabaseHandle, TableInfo } from './schema';
import { declaredType } from './typeNames';

export const CT_DDL = `
  CREATE TABLE __ct_db (id INTEGER PRIMARY KEY CHECK (id = 1), enabled INTEGER NOT NULL DEFAULT 0,
    retention_period INTEGER NOT NULL DEFAULT 2, retention_units TEXT NOT NULL DEFAULT 'DAYS', auto_cleanup INTEGER NOT NULL DEFAULT 1,
    current_version INTEGER NOT NULL DEFAULT 0, txn_version INTEGER, context BLOB, max_cleanup_version INTEGER NOT NULL DEFAULT 0,
    checkpoint_ts INTEGER NOT NULL DEFAULT 0);
  INSERT INTO __ct_db (id) VALUES (1);
  CREATE TABLE __ct_tables (object_id "tsql int int" PRIMARY KEY, is_track_columns_updated_on "tsql int bit" NOT NULL,
    begin_version "tsql int bigint" NOT NULL, cleanup_version "tsql int bigint" NOT NULL);
  CREATE VIEW "sys.change_tracking_databases" AS
    SELECT DB_ID() AS database_id, auto_cleanup AS is_auto_cleanup_on, retention_period,
      CASE retention_units WHEN 'MINUTES' THEN 1 WHEN 'HOURS' THEN 2 ELSE 3 END AS retention_period_units,
      retention_units AS retention_period_units_desc, max_cleanup_version
    FROM __ct_db WHERE enabled = 1;
  CREATE VIEW "sys.change_tracking_tables" AS
    SELECT object_id, is_track_columns_updated_on, max(begin_version, cleanup_version) AS min_valid_version, begin_version,
      cleanup_version
    FROM __ct_tables;
  CREATE TABLE __ct_commits (commit_ts "tsql int bigint" PRIMARY KEY, commit_time "tsql text datetime" NOT NULL);
  CREATE VIEW "sys.dm_tran_commit_table" AS
    SELECT commit_ts, commit_ts AS xdes_id, commit_ts AS commit_lbn, commit_ts AS commit_csn, commit_time FROM __ct_commits;
`;

const UNIT_MS: Record<string, number> = { MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };
const sideTable = (objectId: number) => quote(`__ct.${objectId}`);

export interface CtSettings {
  enabled: boolean;
  retentionPeriod: number;
  retentionUnits: string;
  autoCleanup: boolean;
}

export function settings(db: DatabaseHandle): CtSettings {
  const row = db.db
    .prepare<
      [],
      { enabled: bigint; retention_period: bigint; retention_units: string; auto_cleanup: bigint }
    >('SELECT * FROM __ct_db')
    .get();
  return {
    enabled: row?.enabled === 1n,
    retentionPeriod: Number(row?.retention_period ?? 2n),
    retentionUnits: row?.retention_units ?? 'DAYS',
    autoCleanup: row?.auto_cleanup === 1n,
  };
}

/** ALTER DATABASE … SET CHANGE_TRACKING = ON (…) | OFF | (options). */
export function alterDatabase(
  db: DatabaseHandle,
  enable: boolean | undefined,
  options: { period?: number; units?: string; autoCleanup?: boolean },
): void {
  const now = settings(db);
  if (enable === true && now.enabled) {
    throw new SqlError({
      number: 5088,
      state: 1,
      class: 16,
      message: `Change tracking is already enabled for database '${db.name}'.`,
    });
  }
  if (enable === false) {
    if (!now.enabled)
      throw new SqlError({
        number: 5089,
        state: 1,
        class: 16,
        message: `Change tracking is already disabled for database '${db.name}'.`,
      });
    const tracked = db.db.prepare<[], { n: bigint }>('SELECT count(*) AS n FROM __ct_tables').get()?.n ?? 0n;
    if (tracked > 0n) {
      throw new SqlError({
        number: 22115,
        state: 1,
        class: 16,
        message: `Change tracking is enabled for one or more tables in database '${db.name}'. Disable change tracking on each table before disabling it for the database.`,
      });
    }
    db.db.prepare('UPDATE __ct_db SET enabled = 0').run();
    return;
  }
  if (enable === undefined && !now.enabled) {
    throw new SqlError({
      number: 22117,
      state: 1,
      class: 16,
      message: `Change tracking is disabled for database '${db.name}'. Enable change tracking on the database before changing its options.`,
    });
  }
  db.db
    .prepare('UPDATE __ct_db SET enabled = 1, retention_period = ?, retention_units = ?, auto_cleanup = ?')
    .run(
      options.period ?? now.retentionPeriod,
      options.units ?? now.retentionUnits,
      (options.autoCleanup ?? now.autoCleanup) ? 1 : 0,
    );
}

function primaryKey(table: TableInfo) {
  const pk = table.keys.find((k) => k.kind === 'PK');
  return pk?.columns
    .map((name) => table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase()))
    .filter((c) => c !== undefined);
}

/** ALTER TABLE … ENABLE CHANGE_TRACKING [WITH (TRACK_COLUMNS_UPDATED = ON)]. */
export function enableTable(db: DatabaseHandle, table: TableInfo, trackColumns: boolean): void {
  if (!settings(db).enabled) {
    throw new SqlError({
      number: 4996,
      state: 1,
      class: 16,
      message: `Change tracking must be enabled on database '${db.name}' before it can be enabled on table '${table.name}'.`,
    });
  }
  const pk = primaryKey(table);
  if (!pk?.length) {
    throw new SqlError({
      number: 4997,
      state: 1,
      class: 16,
      message: `Cannot enable change tracking on table '${table.name}'. Change tracking requires a primary key on the table. Create a primary key on the table before enabling change tracking.`,
    });
  }
  if (db.db.prepare('SELECT 1 FROM __ct_tables WHERE object_id = ?').get(table.objectId)) {
    throw new SqlError({
      number: 4998,
      state: 1,
      class: 16,
      message: `Change tracking is already enabled for table '${table.name}'.`,
    });
  }
  const side = sideTable(table.objectId);
  const pkDefs = pk.map((c) => `${quote(c.name)} ${quote(declaredType(c.type))} NOT NULL`);
  const current = db.db.prepare<[], { v: bigint }>('SELECT current_version AS v FROM __ct_db').get()?.v ?? 0n;
  db.db.transaction(() => {
    db.db
      .exec(`CREATE TABLE ${side} (__seq INTEGER PRIMARY KEY, ${pkDefs.join(', ')}, __version "tsql int bigint" NOT NULL,
      __op "tsql text nchar(1)" NOT NULL, __mask INTEGER, __context "tsql blob varbinary(128)", __at TEXT NOT NULL)`);
    db.db.exec(
      `CREATE INDEX ${quote(`__ct.${table.objectId}.key`)} ON ${side} (${pk.map((c) => quote(c.name)).join(', ')}, __seq)`,
    );
    db.db.exec(`CREATE INDEX ${quote(`__ct.${table.objectId}.version`)} ON ${side} (__version)`);
    writeTriggers(db, table, trackColumns);
    db.db
      .prepare('INSERT INTO __ct_tables VALUES (?, ?, ?, ?)')
      .run(table.objectId, trackColumns ? 1 : 0, current, current);
  })();
}

/** A tracked table's change triggers dropped (before its columns change: SQLite checks them). */
export function dropTriggers(db: DatabaseHandle, objectId: number): void {
  for (const t of ['i', 'd', 'k', 'u'])
    db.db.exec(`DROP TRIGGER IF EXISTS ${quote(`__ct.${objectId}.${t}`)}`);
}

/**
 * The triggers that record a tracked table's changes, for its columns as they are now: written when
 * tracking is enabled and again after ALTER TABLE, so a column added is in SYS_CHANGE_COLUMNS.
 */
export function writeTriggers(db: DatabaseHandle, table: TableInfo, trackColumns: boolean): void {
  const pk = primaryKey(table) ?? [];
  const side = sideTable(table.objectId);
  const target = tableSql(table.schema, table.name);
  const claim = 'UPDATE __ct_db SET txn_version = current_version + 1 WHERE txn_version IS NULL;';
  const ref = (row: 'NEW' | 'OLD') => pk.map((c) => `${row}.${quote(c.name)}`).join(', ');
  const others = table.columns.filter((c) => !pk.includes(c));
  // SYS_CHANGE_COLUMNS: one bit per column id of the columns whose values changed.
  const mask =
    trackColumns && others.length
      ? others
          .map(
            (c) =>
              `(CASE WHEN OLD.${quote(c.name)} IS NOT NEW.${quote(c.name)} THEN ${1n << BigInt(c.columnId)} ELSE 0 END)`,
          )
          .join(' | ')
      : 'NULL';
  // One row per change, in order (__seq): CHANGETABLE works out each key's net change for any version.
  const record = (row: 'NEW' | 'OLD', op: 'I' | 'U' | 'D', columns = 'NULL') =>
    `INSERT INTO ${side} (${pk.map((c) => quote(c.name)).join(', ')}, __version, __op, __mask, __context, __at)
      VALUES (${ref(row)}, (SELECT txn_version FROM __ct_db), '${op}', ${columns}, (SELECT context FROM __ct_db), CT_NOW());`;
  const keyChanged = pk.map((c) => `OLD.${quote(c.name)} IS NOT NEW.${quote(c.name)}`).join(' OR ');
  dropTriggers(db, table.objectId);
  db.db.exec(
    `CREATE TRIGGER ${quote(`__ct.${table.objectId}.i`)} AFTER INSERT ON ${target} BEGIN ${claim} ${record('NEW', 'I')} END`,
  );
  db.db.exec(
    `CREATE TRIGGER ${quote(`__ct.${table.objectId}.d`)} AFTER DELETE ON ${target} BEGIN ${claim} ${record('OLD', 'D')} END`,
  );
  // A key update is a delete of the old key and an insert of the new one.
  db.db.exec(
    `CREATE TRIGGER ${quote(`__ct.${table.objectId}.k`)} AFTER UPDATE ON ${target} WHEN ${keyChanged} BEGIN ${claim} ${record('OLD', 'D')} ${record('NEW', 'I')} END`,
  );
  db.db.exec(
    `CREATE TRIGGER ${quote(`__ct.${table.objectId}.u`)} AFTER UPDATE ON ${target} WHEN NOT (${keyChanged}) BEGIN ${claim} ${record('NEW', 'U', mask)} END`,
  );
}

/** Whether a tracked table records which columns an update changed (TRACK_COLUMNS_UPDATED). */
export function tracksColumns(db: DatabaseHandle, objectId: number): boolean {
  const row = db.db
    .prepare<[number], { t: bigint }>(
      'SELECT is_track_columns_updated_on AS t FROM __ct_tables WHERE object_id = ?',
    )
    .get(objectId);
  return Number(row?.t ?? 0) === 1;
}

export function disableTable(db: DatabaseHandle, table: TableInfo): void {
  if (!db.db.prepare('SELECT 1 FROM __ct_tables WHERE object_id = ?').get(table.objectId)) {
    throw new SqlError({
      number: 4999,
      state: 1,
      class: 16,
      message: `Change tracking is not enabled on table '${table.name}'.`,
    });
  }
  db.db.transaction(() => {
    dropTriggers(db, table.objectId);
    db.db.exec(`DROP TABLE IF EXISTS ${sideTable(table.objectId)}`);
    db.db.prepare('DELETE FROM __ct_tables WHERE object_id = ?').run(table.objectId);
  })();
}

export function isTracked(db: DatabaseHandle, objectId: number): boolean {
  return db.db.prepare('SELECT 1 FROM __ct_tables WHERE object_id = ?').get(objectId) !== undefined;
}

/** After a transaction with tracked changes: its version becomes the current one (inside that transaction). */
export function finishVersion(db: DatabaseHandle): void {
  // Read first: a transaction that only read must stay a reader (a write would break its snapshot).
  const pending = db.db
    .prepare<[], { v: bigint | null; c: Buffer | null }>('SELECT txn_version AS v, context AS c FROM __ct_db')
    .get();
  if (pending?.v === null && pending.c === null) return;
  // sys.dm_tran_commit_table: each change-tracking version with the time its transaction committed.
  if (pending?.v !== null && pending?.v !== undefined)
    db.db
      .prepare('INSERT OR REPLACE INTO __ct_commits VALUES (?, ?)')
      .run(pending.v, db.now().toISOString().replace('T', ' ').slice(0, 23));
  db.db
    .prepare(
      'UPDATE __ct_db SET current_version = txn_version, txn_version = NULL, context = NULL WHERE txn_version IS NOT NULL OR context IS NOT NULL',
    )
    .run();
}

/** CHECKPOINT: the commits so far are written out, and readers without VIEW SERVER STATE see them. */
export function checkpoint(db: DatabaseHandle): void {
  db.db
    .prepare('UPDATE __ct_db SET checkpoint_ts = (SELECT coalesce(max(commit_ts), 0) FROM __ct_commits)')
    .run();
}

/** sys.dm_tran_commit_table as a login without VIEW SERVER STATE reads it: checkpointed commits only. */
export const CHECKPOINTED_COMMITS =
  '(SELECT * FROM "sys.dm_tran_commit_table" WHERE commit_ts <= (SELECT checkpoint_ts FROM __ct_db))';

export function setContext(db: DatabaseHandle, context: Buffer | null): void {
  db.db.prepare('UPDATE __ct_db SET context = ?').run(context);
}

/** The version a transaction has claimed, if any: TRUNCATE gives back what its row deletes claimed. */
export function claimedVersion(db: DatabaseHandle): bigint | null {
  return db.db.prepare<[], { v: bigint | null }>('SELECT txn_version AS v FROM __ct_db').get()?.v ?? null;
}

/**
 * TRUNCATE TABLE records no row changes: every change recorded for the table is gone, and
 * CHANGE_TRACKING_MIN_VALID_VERSION ("if the table was truncated") moves to the truncating
 * transaction's version, which commits like any other. So every client whose last sync version comes
 * before the truncation — one that was caught up included — finds its version below the minimum and
 * must reinitialise, as Microsoft's validation check says.
 */
export function truncated(db: DatabaseHandle, objectId: number, claimedBefore: bigint | null): void {
  db.db.prepare('UPDATE __ct_db SET txn_version = ?').run(claimedBefore);
  if (!isTracked(db, objectId)) return;
  db.db.exec(`DELETE FROM ${sideTable(objectId)}`);
  db.db.exec('UPDATE __ct_db SET txn_version = current_version + 1 WHERE txn_version IS NULL');
  db.db
    .prepare('UPDATE __ct_tables SET cleanup_version = (SELECT txn_version FROM __ct_db) WHERE object_id = ?')
    .run(objectId);
}

/** Retention: changes older than the period go, and the minimum valid version moves past them. */
export function cleanup(db: DatabaseHandle, now: Date): void {
  const s = settings(db);
  if (!s.enabled || !s.autoCleanup) return;
  const cutoff = new Date(
    now.getTime() - s.retentionPeriod * (UNIT_MS[s.retentionUnits] ?? UNIT_MS.DAYS ?? 0),
  ).toISOString();
  // "sys.dm_tran_commit_table": its rows are cleaned up by the same retention as the changes.
  db.db.prepare('DELETE FROM __ct_commits WHERE commit_time < ?').run(cutoff.replace('T', ' ').slice(0, 23));
  const tables = db.db.prepare<[], { object_id: bigint }>('SELECT object_id FROM __ct_tables').all();
  for (const { object_id } of tables) {
    const side = sideTable(Number(object_id));
    const expired = db.db
      .prepare<[string], { v: bigint | null }>(`SELECT max(__version) AS v FROM ${side} WHERE __at < ?`)
      .get(cutoff)?.v;
    if (expired === null || expired === undefined) continue;
    db.db.prepare(`DELETE FROM ${side} WHERE __version <= ?`).run(expired);
    db.db
      .prepare('UPDATE __ct_tables SET cleanup_version = max(cleanup_version, ?) WHERE object_id = ?')
      .run(expired, object_id);
    db.db.prepare('UPDATE __ct_db SET max_cleanup_version = max(max_cleanup_version, ?)').run(expired);
  }
}

/**
 * CHANGETABLE(CHANGES t, v) as a subquery: one row per key changed after v (every kept change when
 * v is NULL), with its net change: D when its last change deleted it; I when its first change after
 * v inserted it (it did not exist at v); U otherwise (so insert-then-update is I, and delete-then-
 * re-insert of an older row is U). SYS_CHANGE_COLUMNS is the union of the columns those updates
 * changed, or NULL when an insert or delete came between or columns are not tracked.
 */
export function changesSql(table: TableInfo, lastSync: string): string {
  const pk = (primaryKey(table) ?? []).map((c) => quote(c.name));
  const side = sideTable(table.objectId);
  const v = `(${lastSync})`;
  const same = (a: string, b: string) => pk.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ');
  // A side-table row recorded after v (every kept row when v is NULL).
  const newer = (alias: string) => `(${v} IS NULL OR ${alias}.__version > ${v})`;
  // The union of the updates' column masks: one update's own mask, else OR-ed in a subquery that runs
  // only for keys updated more than once (an aggregate over every change called JavaScript per row).
  const maskAll = `CASE WHEN g.__changes = 1 THEN g.__mask_max ELSE (SELECT CT_OR(m.__mask) FROM ${side} m WHERE ${same('m', 'g')} AND ${newer('m')}) END`;
  // The first and last change's operation from the aggregate itself rather than a lookup each (and
  // the operation is used twice): __seq is unique, so the row with the highest __seq * 3 + code is the
  // last change, and % 3 gives back its code (D 2, I 1, U 0). Rowids stay far below 2^63 / 3.
  const code = `(CASE __op WHEN 'D' THEN 2 WHEN 'I' THEN 1 ELSE 0 END)`;
  const op = `(CASE WHEN g.__last_op = 2 THEN 'D' WHEN g.__first_op = 1 THEN 'I' ELSE 'U' END)`;
  return `(SELECT g.__max_version AS SYS_CHANGE_VERSION,
      (SELECT max(a.__version) FROM ${side} a WHERE ${same('a', 'g')} AND a.__op = 'I') AS SYS_CHANGE_CREATION_VERSION,
      ${op} AS SYS_CHANGE_OPERATION,
      CASE WHEN ${op} = 'U' AND g.__unmasked = 0 THEN CT_MASK(${maskAll}) END AS SYS_CHANGE_COLUMNS,
      (SELECT __context FROM ${side} x WHERE x.__seq = g.__last_seq) AS SYS_CHANGE_CONTEXT,
      ${pk.map((c) => `g.${c}`).join(', ')}
    FROM (SELECT ${pk.join(', ')}, max(__version) AS __max_version, max(__seq) AS __last_seq,
            max(__seq * 3 + ${code}) % 3 AS __last_op, min(__seq * 3 + ${code}) % 3 AS __first_op,
            sum(CASE WHEN __mask IS NULL THEN 1 ELSE 0 END) AS __unmasked, count(*) AS __changes, max(__mask) AS __mask_max
          FROM ${side} s WHERE ${newer('s')} GROUP BY ${pk.join(', ')}) g)`;
}

/** CHANGETABLE(VERSION t, (pk cols), (values)): the row's last change, or NULLs when none is kept. */
export function versionSql(table: TableInfo, columns: string[], values: string[]): string {
  const pk = primaryKey(table) ?? [];
  const side = sideTable(table.objectId);
  const valueOf = (c: { name: string }) =>
    values[columns.findIndex((x) => x.toLowerCase() === c.name.toLowerCase())] ?? 'NULL';
  const given = pk.map((c) => `${valueOf(c)} AS ${quote(c.name)}`).join(', ');
  const same = pk.map((c) => `s.${quote(c.name)} = k.${quote(c.name)}`).join(' AND ');
  const last = `(SELECT max(__seq) FROM ${side} s WHERE ${same})`;
  return `(SELECT (SELECT __version FROM ${side} WHERE __seq = ${last}) AS SYS_CHANGE_VERSION,
      (SELECT __context FROM ${side} WHERE __seq = ${last}) AS SYS_CHANGE_CONTEXT, ${pk.map((c) => `k.${quote(c.name)}`).join(', ')}
    FROM (SELECT ${given}) k)`;
}

export const CT_COLUMN_TYPES: Record<string, string> = {
  sys_change_version: 'bigint',
  sys_change_creation_version: 'bigint',
  sys_change_operation: 'nchar(1)',
  sys_change_columns: 'varbinary(4100)',
  sys_change_context: 'varbinary(128)',
};
