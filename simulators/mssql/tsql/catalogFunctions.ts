// Catalogue functions and views T-SQL answers at translation time: OBJECT_ID, HAS_PERMS_BY_NAME,
// CHANGETABLE and sys.databases.
import { refuseDeniedSelect, selectDenied } from './objectPermissions';
import type { SqlValue } from '../tds/dataTypes/sqlTypes';
import type { SandboxDatabase } from './database';
import { SqlError } from './basics';
import { closing, dotted, isOp, isWord, lex, nameOf, solid, splitCommas, syntax, type Token } from './lexer';
import { changesSql, isTracked, versionSql } from './changeTracking';
import { tableNamed } from './tableNames';
import { denied } from './sqlErrors';

/** OBJECT_ID('[schema.]name'): the table's id, or NULL as SQL Server answers for an unknown name. */
/** Names parsed lately: a statement of the checks names each table in six calls. */
const PARSED_NAMES = new Map<string, string[]>();

/** The parts of a dotted name given as text (`[dbo].[Orders]`, `Sales.dbo.Orders`). */
function nameParts(text: string): string[] {
  let parts = PARSED_NAMES.get(text);
  if (!parts) {
    if (PARSED_NAMES.size >= 10_000) PARSED_NAMES.clear();
    parts = lex(text)
      .filter((x) => x.kind === 'word' || x.kind === 'quoted')
      .map(nameOf);
    PARSED_NAMES.set(text, parts);
  }
  return parts;
}

export function objectId(db: SandboxDatabase, name: SqlValue): string {
  if (typeof name !== 'string') return 'NULL';
  // A temporary table is named in tempdb (`tempdb..#keys`, or `#keys` alone): the session's own.
  const temp = /#[^.]*$/.exec(name.trim())?.[0];
  if (temp) return String(db.tableObjectId(undefined, temp) ?? 'NULL');
  const parts = nameParts(name);
  const id = db.tableObjectId(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
  return id === undefined ? 'NULL' : String(id);
}

/** CHANGETABLE(CHANGES t, v) or CHANGETABLE(VERSION t, (cols), (values)) at tokens[i]. */
export function changeTable(
  tokens: Token[],
  i: number,
  db: SandboxDatabase,
  /** The statement's own translation, for CHANGETABLE's arguments. */
  sub: (tokens: Token[]) => string,
): { sql: string; next: number } {
  const open = i + 1 + tokens.slice(i + 1).findIndex((x) => x.kind !== 'space');
  if (!isOp(tokens[open], '(')) throw syntax(tokens[open]);
  const close = closing(tokens, open);
  const inner = solid(tokens.slice(open + 1, close));
  const kind = inner[0];
  const { parts, next } = dotted(inner, 1);
  const table = tableNamed(db, parts);
  if (!table)
    throw new SqlError({
      number: 208,
      state: 1,
      class: 16,
      message: `Invalid object name '${parts.join('.')}'.`,
    });
  if (!isTracked(db, table.objectId)) {
    throw new SqlError({
      number: 22105,
      state: 1,
      class: 16,
      message: `Change tracking is not enabled on table '${table.name}'.`,
    });
  }
  if (!db.rights.viewChangeTracking) throw denied('VIEW CHANGE TRACKING', db, table);
  // CHANGETABLE asks SELECT on the table's primary key columns too ("CHANGETABLE (Transact-SQL)").
  refuseDeniedSelect(db, table);
  const rest = inner.slice(next + 1);
  if (isWord(kind, 'changes')) {
    // "An expression will cause a syntax error": a variable, a number or NULL.
    const single = rest.filter((x) => !isOp(x, '(') && !isOp(x, ')'));
    if (
      single.length !== 1 ||
      !(single[0]?.kind === 'variable' || single[0]?.kind === 'number' || isWord(single[0], 'null'))
    )
      throw syntax(single[1] ?? single[0]);
    return { sql: changesSql(table, sub(single)), next: close + 1 };
  }
  if (isWord(kind, 'version')) {
    const groups = splitCommas(rest).map((g) => g.filter((x) => !isOp(x, '(') && !isOp(x, ')')));
    const half = groups.length / 2;
    const columns = groups.slice(0, half).map((g) => nameOf(g[0]));
    const values = groups.slice(half).map((g) => sub(g));
    return { sql: versionSql(table, columns, values), next: close + 1 };
  }
  throw syntax(kind);
}

/** sys.databases as a subquery of the server's databases ("sys.databases (Transact-SQL)"). */
export function serverDatabasesSql(db: SandboxDatabase): string {
  const text = (v: string) => `'${v.replaceAll("'", "''")}'`;
  const rows = db
    .serverDatabases()
    .map(
      (d) =>
        `SELECT ${text(d.name)} AS name, ${d.databaseId} AS database_id, ${d.snapshotAllowed ? 1 : 0} AS snapshot_isolation_state, ` +
        `${text(d.snapshotAllowed ? 'ON' : 'OFF')} AS snapshot_isolation_state_desc, 0 AS is_read_committed_snapshot_on, ` +
        `${text(d.caseSensitive ? 'Latin1_General_CS_AS' : 'SQL_Latin1_General_CP1_CI_AS')} AS collation_name, 0 AS state, 'ONLINE' AS state_desc`,
    );
  return `(/* catalog */ ${rows.join(' UNION ALL ')})`;
}

/** HAS_PERMS_BY_NAME(securable, class, permission): 1, 0, or NULL for a securable that does not exist. */
export function hasPermsByName(
  db: SandboxDatabase,
  securable: SqlValue,
  securableClass: SqlValue,
  permission: SqlValue,
): string {
  const kind = String(securableClass ?? '').toUpperCase();
  const perm = String(permission ?? '').toUpperCase();
  const yes = (b: boolean) => (b ? '1' : '0');
  // The server's own permissions: HAS_PERMS_BY_NAME(NULL, NULL, …), as Microsoft's examples ask it.
  if (kind === 'SERVER' || (kind === '' && securable === null)) {
    if (perm === 'VIEW SERVER STATE' || perm === 'VIEW SERVER PERFORMANCE STATE')
      return yes(db.rights.viewServerState);
    return yes(true);
  }
  if (kind === 'DATABASE') {
    if (perm === 'CREATE SCHEMA') return yes(db.rights.createSchema);
    if (perm === 'VIEW DEFINITION' || perm === 'VIEW DATABASE STATE') return yes(db.rights.viewCatalog);
    return yes(true);
  }
  if (kind === 'OBJECT') {
    const parts = nameParts(String(securable ?? ''));
    const table = tableNamed(db, parts);
    if (!table) return 'NULL';
    if (perm === 'VIEW CHANGE TRACKING') return yes(db.rights.viewChangeTracking);
    if (perm === 'INSERT' || perm === 'UPDATE' || perm === 'DELETE') return yes(db.rights.write);
    if (perm === 'SELECT') return yes(!selectDenied(db, table));
    if (perm === 'ALTER') return yes(db.rights.alter);
    return yes(true);
  }
  if (kind === 'SCHEMA') {
    const schema = nameParts(String(securable ?? '')).at(-1) ?? '';
    if (!db.hasSchema(schema)) return 'NULL';
    if (perm === 'ALTER') return yes(db.rights.alter);
    return yes(true);
  }
  return 'NULL';
}
