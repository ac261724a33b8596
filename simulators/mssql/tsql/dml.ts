// Tables in the sandbox: CREATE SCHEMA/TABLE, DROP TABLE, INSERT, UPDATE, DELETE, TRUNCATE and
// SELECT … FROM, translated token by token to SQLite. Columns keep their T-SQL types in answers.
import type { StatementResult } from '../tds/hostSession';
import type { Column } from '../tds/tokens';
import type { SqlType, SqlValue } from '../tds/types';
import { type SandboxDatabase } from './database';
import { quote, SqlError } from './basics';
import type { ColumnDef, KeyDef, TableInfo } from './schema';
import {
  closing,
  dotted,
  isOp,
  isWord,
  lex,
  nameOf,
  solid,
  splitCommas,
  syntax,
  textOf,
  type Token,
} from './lexer';
import { undeclared } from './basics';
import { alterColumns } from './alterTable';
import { columnDef } from './columnDefs';
import { checkAt, generatedName } from './constraintText';
import type { CheckDef } from './constraints';
import { castType, convert } from './convert';
import { clrCalls, clrColumnsOf } from './clrCalls';
import { divisions } from './arithmetic';
import { aliasType, createType, dropType } from './aliasTypes';
import { isClrType, toClr } from './clrValues';
import { createIndex, dropIndex } from './indexes';
import { sessionViewSql } from './sessionViews';
import { databasePrincipalsSql, myPermissions, myPermissionsSql } from './security';
import { parseTypeName, typeFromDeclared } from './typeNames';
import { rowversionColumn, withRowversionSet } from './rowversion';
import { conversionParts, selectListTypes } from './selectTypes';
import {
  comparedColumnType,
  exactAssignments,
  exactColumnsOf,
  exactDigits,
  exactValues,
  isExactNumeric,
  roundedByDouble,
  storedExact,
} from './exactDecimals';
import {
  changesSql,
  claimedVersion,
  cleanup,
  CT_COLUMN_TYPES,
  disableTable,
  enableTable,
  finishVersion,
  isTracked,
  setContext,
  truncated,
  versionSql,
} from './changeTracking';

export type Parameters = Map<string, { type: SqlType; value: SqlValue }>;

const paramName = (variable: string) => `p_${variable.slice(1).toLowerCase().replace(/[^\w]/g, '_')}`;

function bindings(params: Parameters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, { type, value }] of params)
    out[paramName(name)] =
      typeof value === 'boolean'
        ? value
          ? 1n
          : 0n
        : isExactNumeric(type)
          ? storedExact(type, value)
          : value;
  return out;
}

/** Reads `[schema.]name` (or `db.schema.name`, `#temp`) starting at tokens[i]. */
function readName(tokens: Token[], i: number): { schema?: string; name: string; next: number } {
  const { parts, next } = dotted(tokens, i);
  if (parts.length === 0) throw syntax(tokens[i]);
  return { schema: parts.length >= 2 ? parts.at(-2) : undefined, name: parts.at(-1) ?? '', next };
}

/** The table a dotted name (as `dotted` reads it) names: the last part, and the one before as schema. */
function tableNamed(db: SandboxDatabase, parts: string[]): TableInfo | undefined {
  return db.table(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
}

/** 4701 (TRUNCATE) and 4902 (ALTER TABLE) share SQL Server's wording. */
const cannotFind = (number: number, name: string) =>
  new SqlError({
    number,
    state: 1,
    class: 16,
    message: `Cannot find the object "${name}" because it does not exist or you do not have permissions.`,
  });

const TABLE_REF_AFTER = new Set(['from', 'join', 'into', 'update', 'table']);
/** Words that can follow a table reference without being its alias. */
const NOT_ALIAS = new Set(
  'where join inner left right full cross outer on group order having union except intersect set values output with option select default when then as'.split(
    ' ',
  ),
);
const CLAUSE_END = new Set(
  'where group order having union except intersect on set values option select output'.split(' '),
);

/** The index of the ')' that closes the '(' at tokens[open]. */

/** CAST(expr AS type) or CONVERT(type, expr[, style]) as a call of the TSQL_CONVERT function. */
function conversion(
  isCast: boolean,
  inner: Token[],
  params: Parameters,
  db: SandboxDatabase,
  exactColumns: ReadonlyMap<string, SqlType>,
): string {
  const { expr, type, style } = conversionParts(isCast, inner);
  if (isCast && type.length === 0) throw syntax(inner[0]);
  const target = castType(textOf(solid(type)));
  const styleSql = style ? translate(style, params, db) : 'NULL';
  const json = (t: SqlType) => `'${JSON.stringify(t).replaceAll("'", "''")}'`;
  // A decimal or money column's value reaches the function as SQLite keeps it (12.5 for 12.50): its
  // column's type goes along, so CONVERT shows the column's scale as SQL Server does ('12.50').
  const from = exactColumnOf(solid(expr), exactColumns);
  return `TSQL_CONVERT(${translate(expr, params, db)}, ${json(target)}, ${styleSql}${from ? `, ${json(from)}` : ''})`;
}

/** The decimal, numeric, money or smallmoney column an expression is, when it is one column alone. */
function exactColumnOf(s: Token[], exactColumns: ReadonlyMap<string, SqlType>): SqlType | undefined {
  const named = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'quoted';
  const alone = s.length === 1 && named(s[0]);
  const qualified = s.length === 3 && named(s[0]) && isOp(s[1], '.') && named(s[2]);
  if (!alone && !qualified) return undefined;
  const type = exactColumns.get(nameOf(s.at(-1)).toLowerCase());
  return isExactNumeric(type) ? type : undefined;
}

/** A literal or parameter value at translation time (OBJECT_ID, context), for names and blobs. */
function constant(tokens: Token[], params: Parameters): SqlValue {
  const t = solid(tokens)[0];
  if (!t || isWord(t, 'null')) return null;
  if (t.kind === 'variable') {
    const p = params.get(t.text.toLowerCase());
    if (!p) throw undeclared(t.text);
    return p.value;
  }
  if (t.kind === 'string' || t.kind === 'nstring') return t.value;
  if (t.kind === 'number' && /^0x[0-9a-f]*$/i.test(textOf(solid(tokens))))
    return Buffer.from(textOf(solid(tokens)).slice(2), 'hex');
  if (t.kind === 'number') return t.text;
  throw syntax(t);
}

/** OBJECT_ID('[schema.]name'): the table's id, or NULL as SQL Server answers for an unknown name. */
function objectId(db: SandboxDatabase, name: SqlValue): string {
  if (typeof name !== 'string') return 'NULL';
  // A temporary table is named in tempdb (`tempdb..#keys`, or `#keys` alone): the session's own.
  const temp = /#[^.]*$/.exec(name.trim())?.[0];
  if (temp) return db.table(undefined, temp) ? String(db.tempObjectId(temp)) : 'NULL';
  const parts = lex(name)
    .filter((x) => x.kind === 'word' || x.kind === 'quoted')
    .map(nameOf);
  const table = tableNamed(db, parts);
  return table ? String(table.objectId) : 'NULL';
}

/** CHANGETABLE(CHANGES t, v) or CHANGETABLE(VERSION t, (cols), (values)) at tokens[i]. */
function changeTable(
  tokens: Token[],
  i: number,
  params: Parameters,
  db: SandboxDatabase,
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
  const rest = inner.slice(next + 1);
  if (isWord(kind, 'changes')) {
    // "An expression will cause a syntax error": a variable, a number or NULL.
    const single = rest.filter((x) => !isOp(x, '(') && !isOp(x, ')'));
    if (
      single.length !== 1 ||
      !(single[0]?.kind === 'variable' || single[0]?.kind === 'number' || isWord(single[0], 'null'))
    )
      throw syntax(single[1] ?? single[0]);
    return { sql: changesSql(table, translate(single, params, db)), next: close + 1 };
  }
  if (isWord(kind, 'version')) {
    const groups = splitCommas(rest).map((g) => g.filter((x) => !isOp(x, '(') && !isOp(x, ')')));
    const half = groups.length / 2;
    const columns = groups.slice(0, half).map((g) => nameOf(g[0]));
    const values = groups.slice(half).map((g) => translate(g, params, db));
    return { sql: versionSql(table, columns, values), next: close + 1 };
  }
  throw syntax(kind);
}

/** sys.databases as a subquery of the server's databases ("sys.databases (Transact-SQL)"). */
function serverDatabasesSql(db: SandboxDatabase): string {
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

/** Error 229, as SQL Server words a denied object permission. */
function denied(permission: string, db: SandboxDatabase, table: TableInfo): SqlError {
  return new SqlError({
    number: 229,
    state: 5,
    class: 14,
    message: `The ${permission} permission was denied on the object '${table.name}', database '${db.name}', schema '${table.schema}'.`,
  });
}

/** HAS_PERMS_BY_NAME(securable, class, permission): 1, 0, or NULL for a securable that does not exist. */
function hasPermsByName(
  db: SandboxDatabase,
  securable: SqlValue,
  securableClass: SqlValue,
  permission: SqlValue,
): string {
  const kind = String(securableClass ?? '').toUpperCase();
  const perm = String(permission ?? '').toUpperCase();
  const yes = (b: boolean) => (b ? '1' : '0');
  if (kind === 'DATABASE') {
    if (perm === 'CREATE SCHEMA') return yes(db.rights.createSchema);
    if (perm === 'VIEW DEFINITION' || perm === 'VIEW DATABASE STATE') return yes(db.rights.viewCatalog);
    return yes(true);
  }
  if (kind === 'OBJECT') {
    const parts = lex(String(securable ?? ''))
      .filter((x) => x.kind === 'word' || x.kind === 'quoted')
      .map(nameOf);
    if (!tableNamed(db, parts)) return 'NULL';
    if (perm === 'VIEW CHANGE TRACKING') return yes(db.rights.viewChangeTracking);
    if (perm === 'INSERT' || perm === 'UPDATE' || perm === 'DELETE') return yes(db.rights.write);
    return yes(true);
  }
  return 'NULL';
}

/** The table a write names (INSERT INTO t, UPDATE t, DELETE [FROM] t, TRUNCATE TABLE t). */
function writeTarget(s: Token[], db: SandboxDatabase): TableInfo | undefined {
  let i = 1;
  if (isWord(s[i], 'into', 'from', 'table')) i++;
  const { parts } = dotted(s, i);
  return tableNamed(db, parts);
}

const nextSolid = (tokens: Token[], i: number) => {
  let j = i;
  while (tokens[j]?.kind === 'space' || tokens[j]?.kind === 'comment') j++;
  return j;
};

/**
 * T-SQL tokens to SQLite text: table references resolved to the sandbox's tables (with the bare
 * table name as alias when none is given, so `Orders.Id` still works), names quoted the SQLite way,
 * N'' strings plain, variables bound, TOP moved to a LIMIT.
 */
function translate(given: Token[], params: Parameters, db: SandboxDatabase): string {
  const out: string[] = [];
  let limit: string | undefined;
  let expectTable = false;
  let inFromList = false;
  let depth = 0;
  const ctes = new Set<string>();
  const named = solid(given);
  const tables = named.flatMap((t, k) =>
    t.kind === 'word' && TABLE_REF_AFTER.has(t.text.toLowerCase())
      ? [tableNamed(db, dotted(named, k + 1).parts)]
      : [],
  );
  // Methods of hierarchyid, geography and geometry values become the sandbox's functions.
  // … and / and % fail on zero (8134) as T-SQL's do.
  const tokens = divisions(clrCalls(given, clrColumnsOf(tables)));
  const first = solid(tokens);
  // Variables compared with a decimal, money or CLR column are converted to its type, as SQL Server does.
  const exactColumns = exactColumnsOf(tables);
  if (isWord(first[0], 'with')) {
    for (let k = 1; k < first.length; k++)
      if (isWord(first[k + 1], 'as') && isOp(first[k + 2], '(')) ctes.add(nameOf(first[k]).toLowerCase());
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (isOp(t, '(')) depth++;
    if (isOp(t, ')')) depth--;
    if (t.kind === 'word' && TABLE_REF_AFTER.has(t.text.toLowerCase())) {
      expectTable = true;
      inFromList = t.text.toLowerCase() === 'from';
      out.push(t.text);
      continue;
    }
    if (t.kind === 'word' && CLAUSE_END.has(t.text.toLowerCase())) inFromList = false;
    if (isOp(t, ',') && inFromList && depth === 0) expectTable = true;
    // TYPE_NAME(id) and TYPE_ID(name) read sys.types (a function may not query while SQLite runs one).
    if (isWord(t, 'type_name', 'type_id') && isOp(tokens[nextSolid(tokens, i + 1)], '(')) {
      const open = nextSolid(tokens, i + 1);
      const close = closing(tokens, open);
      const argument = translate(tokens.slice(open + 1, close), params, db);
      out.push(
        isWord(t, 'type_name')
          ? `(SELECT name FROM __types WHERE user_type_id = (${argument}))`
          : `(SELECT user_type_id FROM __types WHERE name = (${argument}) COLLATE NOCASE)`,
      );
      i = close;
      continue;
    }
    // CAST and CONVERT run T-SQL's conversion (convert.ts) in SQLite, not SQLite's own CAST.
    if (isWord(t, 'cast', 'convert') && isOp(tokens[nextSolid(tokens, i + 1)], '(')) {
      const open = nextSolid(tokens, i + 1);
      const close = closing(tokens, open);
      out.push(conversion(isWord(t, 'cast'), tokens.slice(open + 1, close), params, db, exactColumns));
      i = close;
      continue;
    }
    if (expectTable && isWord(t, 'changetable')) {
      expectTable = false;
      const { sql, next } = changeTable(tokens, i, params, db);
      out.push(sql);
      i = next - 1;
      continue;
    }
    if (expectTable && (t.kind === 'word' || t.kind === 'quoted') && !isWord(t, 'select')) {
      expectTable = false;
      const { parts, next } = dotted(tokens, i);
      const name = parts.at(-1) ?? '';
      const schema = parts.length >= 2 ? (parts.at(-2) ?? 'dbo') : undefined;
      if (/^fn_my_permissions$/i.test(name) && isOp(tokens[nextSolid(tokens, next)], '(')) {
        const open = nextSolid(tokens, next);
        const [securable = [], securableClass = []] = splitCommas(
          tokens.slice(open + 1, closing(tokens, open)),
        );
        const target = constant(securable, params);
        const parts = lex(String(target ?? ''))
          .filter((x) => x.kind === 'word' || x.kind === 'quoted')
          .map(nameOf);
        const rows = myPermissions(
          db.rights,
          String(constant(securableClass, params) ?? ''),
          db.name,
          target === null ? undefined : tableNamed(db, parts),
        );
        out.push(myPermissionsSql(rows));
        i = closing(tokens, open);
        const after = tokens[nextSolid(tokens, i + 1)];
        if (!(
          after?.kind === 'quoted' ||
          (after?.kind === 'word' && !NOT_ALIAS.has(after.text.toLowerCase()))
        ))
          out.push(` AS ${quote(name)}`);
        continue;
      }
      if (schema && /^(sys|information_schema)$/i.test(schema)) {
        // sys.databases and sys.database_principals are answered from the server's databases and logins.
        const serverView =
          /^sys$/i.test(schema) &&
          /^(databases|database_principals|dm_exec_sessions|dm_exec_connections)$/i.test(name);
        const view = serverView ? `sys.${name.toLowerCase()}` : db.catalogView(schema, name);
        // Without catalog access, or in upper case under a case-sensitive collation, SQL Server sees no such object.
        if (view && (!db.rights.viewCatalog || (db.rights.caseSensitive && view !== `${schema}.${name}`))) {
          throw new SqlError({
            number: 208,
            state: 1,
            class: 16,
            message: `Invalid object name '${schema}.${name}'.`,
          });
        }
        // A view SQL Server has and the sandbox lacks must not look like a misspelling: say so instead of 208.
        if (!view) {
          throw new SqlError({
            number: 50000,
            state: 1,
            class: 16,
            message: `The sandbox does not support the catalog view ${schema}.${name} yet.`,
          });
        }
        if (view === 'sys.dm_exec_sessions' || view === 'sys.dm_exec_connections')
          out.push(sessionViewSql(view, db.serverSessions()));
        else if (serverView)
          out.push(
            view === 'sys.databases' ? serverDatabasesSql(db) : databasePrincipalsSql(db.serverLogins()),
          );
        else out.push(quote(view));
        const after = tokens[nextSolid(tokens, next)];
        const aliased =
          after !== undefined &&
          (after.kind === 'quoted' || (after.kind === 'word' && !NOT_ALIAS.has(after.text.toLowerCase())));
        if (!aliased) out.push(` AS ${quote(name)}`);
        i = next - 1;
        continue;
      }
      if (!schema && ctes.has(name.toLowerCase())) {
        out.push(quote(name));
      } else {
        const table = db.table(schema, name);
        // An unknown table is written as given, so SQLite's "no such table" names it as the statement did.
        out.push(table ? table.sqlName : quote(schema ? `${schema}.${name}` : name));
        const after = tokens[nextSolid(tokens, next)];
        const aliased =
          after !== undefined &&
          (after.kind === 'quoted' ||
            (after.kind === 'word' && !NOT_ALIAS.has(after.text.toLowerCase())) ||
            isWord(after, 'as'));
        const target = isWord(solid(tokens)[0], 'insert');
        if (table && !aliased && !target) out.push(` AS ${quote(table.name)}`);
      }
      i = next - 1;
      continue;
    }
    if (t.kind === 'temp') {
      expectTable = false;
      out.push(quote(t.text));
      continue;
    }
    const call = t.kind === 'word' ? tokens[nextSolid(tokens, i + 1)] : undefined;
    if (t.kind === 'word' && isOp(call, '(')) {
      const open = tokens.indexOf(call as Token);
      const name = t.text.toLowerCase();
      const args = () => splitCommas(tokens.slice(open + 1, closing(tokens, open)));
      let sql: string | undefined;
      if (name === 'change_tracking_current_version')
        sql = '(SELECT CASE WHEN enabled = 1 THEN current_version END FROM __ct_db)';
      else if (name === 'change_tracking_min_valid_version') {
        // Without VIEW CHANGE TRACKING the answer is NULL, not an error (CHANGE_TRACKING_MIN_VALID_VERSION).
        sql = db.rights.viewChangeTracking
          ? `(SELECT max(begin_version, cleanup_version) FROM __ct_tables WHERE object_id = (${translate(args()[0] ?? [], params, db)}))`
          : 'NULL';
      } else if (name === 'has_perms_by_name') {
        const [securable = [], securableClass = [], permission = []] = args();
        sql = hasPermsByName(
          db,
          constant(securable, params),
          constant(securableClass, params),
          constant(permission, params),
        );
      } else if (name === 'object_id') sql = objectId(db, constant(args()[0] ?? [], params));
      else if (name === 'columnproperty') {
        const [obj = [], column = [], property = []] = args();
        if (String(constant(property, params)).toLowerCase() !== 'columnid') throw syntax(property[0]);
        sql = `(SELECT column_id FROM __columns WHERE object_id = (${translate(obj, params, db)}) AND name = ${translate(column, params, db)} COLLATE NOCASE)`;
      } else if (name === 'change_tracking_is_column_in_mask') {
        const given = args();
        if (given.length !== 2)
          throw new SqlError({
            number: 174,
            state: 1,
            class: 15,
            message: 'The change_tracking_is_column_in_mask function requires 2 argument(s).',
          });
        const [column, mask] = given.map((a) => translate(a, params, db));
        // Inserts and deletes carry no mask: answered in SQLite, without a call into JavaScript per row.
        sql = `(CASE WHEN (${mask}) IS NULL THEN 0 ELSE CT_IN_MASK(${column}, ${mask}) END)`;
      }
      if (sql !== undefined) {
        out.push(sql);
        i = closing(tokens, open);
        continue;
      }
    }
    if (t.kind === 'word' || t.kind === 'quoted') {
      // A three-part column reference (schema.table.column) is table.column against the alias.
      const { parts, next } = dotted(tokens, i);
      if (parts.length >= 3) {
        out.push(parts.slice(-2).map(quote).join('.'));
        i = next - 1;
        continue;
      }
    }
    const comparedClr =
      t.kind === 'string' || t.kind === 'nstring'
        ? comparedColumnType(tokens.slice(0, i), exactColumns)
        : undefined;
    if (t.kind === 'quoted') out.push(quote(t.value));
    // A string compared with a hierarchyid or spatial column is converted to its type, as SQL Server does.
    else if (isClrType(comparedClr))
      out.push(`TSQL_CONVERT('${t.value.replaceAll("'", "''")}', '${JSON.stringify(comparedClr)}', NULL)`);
    // 0x… is binary in T-SQL, an integer in SQLite: written as SQLite's blob literal.
    else if (t.kind === 'number' && /^0x/i.test(t.text)) {
      const hex = t.text.slice(2);
      out.push(`X'${hex.length % 2 ? `0${hex}` : hex}'`);
    } else if (t.kind === 'nstring') out.push(`'${t.value.replaceAll("'", "''")}'`);
    // A literal with more digits than a double holds is kept as its digits (exactDecimals.ts).
    else if (t.kind === 'number' && roundedByDouble(t.text)) {
      // A unary minus belongs to the digits: -'…' would make SQLite round them to a double.
      const minus = out.findLastIndex((x) => x.trim() !== '');
      const before = solid(tokens.slice(0, i)).at(-2);
      const unary =
        out[minus] === '-' &&
        (!before ||
          (before.kind === 'op' && before.text !== ')') ||
          isWord(
            before,
            'select',
            'values',
            'where',
            'and',
            'or',
            'not',
            'when',
            'then',
            'else',
            'set',
            'return',
            'between',
            'in',
            'like',
          ));
      if (unary) out.splice(minus);
      out.push(`'${unary ? '-' : ''}${t.text}'`);
    } else if (t.kind === 'variable') {
      if (!params.has(t.text.toLowerCase())) throw undeclared(t.text);
      const compared = comparedColumnType(tokens.slice(0, i), exactColumns);
      out.push(
        compared
          ? `TSQL_CONVERT(@${paramName(t.text)}, '${JSON.stringify(compared)}', NULL)`
          : `@${paramName(t.text)}`,
      );
    } else if (t.kind === 'sysvar' && db.sessionVariable(t.text) !== undefined) {
      const value = db.sessionVariable(t.text);
      out.push(typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value));
    } else if (t.kind === 'sysvar') {
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: `The sandbox does not support ${t.text} in this statement yet.`,
      });
    } else if (isWord(t, 'top') && limit === undefined) {
      // TOP n | TOP (n) | TOP (@p): moved to a LIMIT at the end.
      const rest = solid(tokens.slice(i + 1));
      const head = rest[0];
      let taken: Token[];
      if (isOp(head, '(')) {
        const close = rest.findIndex((x) => isOp(x, ')'));
        taken = rest.slice(1, close);
        i = tokens.indexOf(rest[close] as Token);
      } else {
        taken = head ? [head] : [];
        i = tokens.indexOf(head as Token);
      }
      limit = translate(taken, params, db);
    } else if (
      isWord(t, 'with') &&
      isOp(solid(tokens.slice(i + 1))[0], '(') &&
      isWord(solid(tokens.slice(i + 1))[1], 'nolock', 'readpast', 'updlock', 'rowlock', 'holdlock', 'tablock')
    ) {
      // Table hints change locking, which the sandbox does not model: dropped.
      const close = tokens.findIndex((x, k) => k > i && isOp(x, ')'));
      depth--;
      i = close;
    } else out.push(t.text);
  }
  return out.join('') + (limit !== undefined ? ` LIMIT ${limit}` : '');
}

/** SQLite's errors in SQL Server's words and numbers. */
function mapError(error: unknown, context: { table?: string; db: SandboxDatabase; verb?: string }): SqlError {
  if (error instanceof SqlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  let m: RegExpExecArray | null;
  if ((error as { code?: string }).code === 'SQLITE_BUSY_SNAPSHOT') {
    // A snapshot transaction writing rows another transaction changed after its snapshot began.
    return new SqlError({
      number: 3960,
      state: 2,
      class: 16,
      message: `Snapshot isolation transaction aborted due to update conflict. You cannot use snapshot isolation to access table '${context.table ?? '?'}' directly or indirectly in database '${context.db.name}' to update, delete, or insert the row that has been modified or deleted by another transaction. Retry the transaction or change the isolation level for the update/delete statement.`,
    });
  }
  if (/database is locked|SQLITE_BUSY/.test(message))
    return new SqlError({
      number: 1222,
      state: 51,
      class: 16,
      message: 'Lock request time out period exceeded.',
    });
  // SQL Server names the object as the statement wrote it, schema and all.
  if ((m = /no such table: (.+)$/.exec(message)))
    return new SqlError({ number: 208, state: 1, class: 16, message: `Invalid object name '${m[1]}'.` });
  if ((m = /no such column: (?:.+\.)?(.+)$/.exec(message)) || (m = /has no column named (.+)$/.exec(message)))
    return new SqlError({ number: 207, state: 1, class: 16, message: `Invalid column name '${m[1]}'.` });
  if ((m = /NOT NULL constraint failed: (?:.+\.)?(.+)$/.exec(message))) {
    return new SqlError({
      number: 515,
      state: 2,
      class: 16,
      message: `Cannot insert the value NULL into column '${m[1]}', table '${context.db.name}.${context.table ?? '?'}'; column does not allow nulls. INSERT fails.`,
    });
  }
  if ((m = /UNIQUE constraint failed: (.+)$/.exec(message))) {
    const index = uniqueIndexNamed(context.db, context.table, m[1] ?? '');
    if (index)
      return new SqlError({
        number: 2601,
        state: 1,
        class: 14,
        message: `Cannot insert duplicate key row in object '${index.table}' with unique index '${index.name}'.`,
      });
    return new SqlError({
      number: 2627,
      state: 1,
      class: 14,
      message: `Violation of PRIMARY KEY or UNIQUE constraint. Cannot insert duplicate key in object '${context.table ?? '?'}'.`,
    });
  }
  if ((m = /near "(.+?)": syntax error/.exec(message)))
    return new SqlError({ number: 102, state: 1, class: 15, message: `Incorrect syntax near '${m[1]}'.` });
  if ((m = /no such function: (\w+)/.exec(message)))
    return new SqlError({
      number: 195,
      state: 10,
      class: 15,
      message: `'${m[1]}' is not a recognized built-in function name.`,
    });
  if ((m = /CHECK constraint failed: (.+)$/.exec(message))) {
    const constraint = m[1] ?? '';
    return new SqlError({
      number: 547,
      state: 0,
      class: 16,
      message: `The ${context.verb ?? 'INSERT'} statement conflicted with the CHECK constraint "${constraint}". The conflict occurred in database "${context.db.name}", table "${context.table ?? '?'}".`,
    });
  }
  // Never another engine's words: what SQLite could not do is a feature the sandbox lacks.
  return new SqlError({
    number: 50000,
    state: 1,
    class: 16,
    message: 'The sandbox does not support this statement yet.',
  });
}

/** The CREATE UNIQUE INDEX whose columns SQLite names in a UNIQUE failure (2601, not a constraint's 2627). */
function uniqueIndexNamed(
  db: SandboxDatabase,
  tableName: string | undefined,
  failed: string,
): { table: string; name: string } | undefined {
  const table = tableName ? tableNamed(db, tableName.split('.')) : undefined;
  if (!table || table.objectId < 0) return undefined;
  const columns = failed
    .split(', ')
    .map((c) => c.slice(c.lastIndexOf('.') + 1).toLowerCase())
    .join(',');
  const rows = db.db
    .prepare<[number], { name: string; cols: string }>(
      'SELECT name, group_concat(lower(column_name)) AS cols FROM (SELECT * FROM __indexes WHERE object_id = ? AND is_unique = 1 ORDER BY key_ordinal) GROUP BY name',
    )
    .all(table.objectId);
  const found = rows.find((r) => r.cols === columns);
  return found ? { table: `${table.schema}.${table.name}`, name: found.name } : undefined;
}

/**
 * Runs translated SQL. `expressionTypes`, by result column, types the columns SQLite declares no type
 * for as SQL Server would (selectTypes.ts); ignored unless it counts the result's columns.
 */
function run(
  db: SandboxDatabase,
  sql: string,
  params: Parameters,
  table?: string,
  expressionTypes?: readonly (SqlType | undefined)[],
): StatementResult {
  let statement;
  try {
    statement = db.db.prepare(sql);
  } catch (error) {
    throw mapError(error, { db, table });
  }
  const verb = /^\s*update\b/i.test(sql) ? 'UPDATE' : /^\s*delete\b/i.test(sql) ? 'DELETE' : 'INSERT';
  const bound = bindings(params);
  const used = Object.fromEntries(Object.entries(bound).filter(([k]) => sql.includes(`@${k}`)));
  try {
    if (!statement.reader) {
      const info = statement.run(used);
      return { rowCount: info.changes };
    }
    const declared = statement.columns();
    const rows = statement.raw(true).all(used) as SqlValue[][];
    const hints = expressionTypes?.length === declared.length ? expressionTypes : undefined;
    const columns: Column[] = declared.map((c, i) => ({
      name: c.name,
      type: resultType(sql, c, () => hints?.[i] ?? inferType(rows, i)),
      nullable: true,
    }));
    // Each column's conversion chosen once, not per value, and a column SQLite gives as it is skipped.
    columns.forEach((c, i) => {
      const convert = sqliteReader(c.type);
      if (convert) for (const r of rows) r[i] = convert(r[i] ?? null);
    });
    return { resultSet: { columns, rows }, rowCount: rows.length };
  } catch (error) {
    throw mapError(error, { db, table, verb });
  }
}

/**
 * A result column's type as SQL Server types it: declared, else `inferred()` from its values (or
 * undefined when they are not at hand); every is_* column of a catalog view bit, since the views
 * compute their flags; a CHANGETABLE column its documented type.
 */
function resultType<Inferred extends SqlType | undefined>(
  sql: string,
  c: { name: string; type: string | null },
  inferred: () => Inferred,
): SqlType | Inferred {
  const ctType = sql.includes('"__ct.') ? CT_COLUMN_TYPES[c.name.toLowerCase()] : undefined;
  if (ctType) return parseTypeName(ctType);
  const type = typeFromDeclared(c.type) ?? inferred();
  const readsCatalog = /"(sys|INFORMATION_SCHEMA)\./i.test(sql) || sql.includes('/* catalog */');
  return readsCatalog && type?.name === 'int' && /^is_/i.test(c.name) ? { name: 'bit' } : type;
}

/** An expression column's type from its values, as close to SQL Server's as values allow. */
function inferType(rows: readonly SqlValue[][], column: number): SqlType {
  // One pass over the column: results run to many thousands of rows.
  let present = 0;
  let allIntegers = true;
  let allNumbers = true;
  let allBuffers = true;
  let fitsInt = true;
  for (const row of rows) {
    const v = row[column] ?? null;
    if (v === null) continue;
    present++;
    const isInteger = typeof v === 'bigint';
    if (!isInteger) allIntegers = false;
    else if (v < -2147483648n || v > 2147483647n) fitsInt = false;
    if (!isInteger && typeof v !== 'number') allNumbers = false;
    if (!Buffer.isBuffer(v)) allBuffers = false;
  }
  if (present === 0) return { name: 'int' };
  if (allIntegers) return fitsInt ? { name: 'int' } : { name: 'bigint' };
  if (allNumbers) return { name: 'float' };
  if (allBuffers) return { name: 'varbinary', length: 'max' };
  return { name: 'nvarchar', length: 'max' };
}

type SqliteReader = (v: SqlValue) => SqlValue;

/** How a column's values come back from SQLite as the column's type holds them; undefined: as they are. */
function sqliteReader(t: SqlType | undefined): SqliteReader | undefined {
  if (!t) return undefined;
  if (t.name === 'bit') return (v) => (v === null ? v : Number(v) !== 0);
  if (t.name === 'tinyint' || t.name === 'smallint' || t.name === 'int')
    return (v) => (v === null ? v : Number(v));
  if (t.name === 'float' || t.name === 'real') return (v) => (v === null ? v : Number(v));
  if (isExactNumeric(t)) return (v) => (v === null ? v : exactDigits(t, v));
  return undefined;
}

// ---------- statements ----------

function createTable(db: SandboxDatabase, tokens: Token[]): StatementResult {
  const s = solid(tokens);
  const { schema, name, next } = readName(s, 2);
  if (!isOp(s[next], '(') || !isOp(s.at(-1), ')')) throw syntax(s[next]);
  const body = tokens.slice(tokens.indexOf(s[next] as Token) + 1, tokens.lastIndexOf(s.at(-1) as Token));
  const columns: ColumnDef[] = [];
  const keys: KeyDef[] = [];
  const keyName = (kind: 'PK' | 'UQ') => `${kind}_${name}${keys.length ? `_${keys.length + 1}` : ''}`;
  const checks: CheckDef[] = [];
  for (const def of splitCommas(body).map(solid)) {
    let i = 0;
    let constraintName: string | undefined;
    if (isWord(def[0], 'constraint')) {
      constraintName = nameOf(def[1]);
      i = 2;
    }
    if (isWord(def[i], 'check')) {
      checks.push({ name: constraintName ?? generatedName('CK', name), sql: checkAt(def, i).sql });
      continue;
    }
    if (isWord(def[i], 'primary', 'unique')) {
      const kind = isWord(def[i], 'primary') ? 'PK' : 'UQ';
      const open = def.findIndex((t) => isOp(t, '('));
      const cols = splitCommas(def.slice(open + 1, -1)).map((c) => nameOf(solid(c)[0]));
      keys.push({
        name: constraintName ?? keyName(kind),
        kind,
        clustered: !def.some((t) => isWord(t, 'nonclustered')) && kind === 'PK',
        columns: cols,
      });
      continue;
    }
    const column = columnDef(
      def,
      columns.length + 1,
      (kind, clustered, col, keyed) =>
        keys.push({ name: keyed ?? keyName(kind), kind, clustered, columns: [col] }),
      (alias) => aliasType(db, alias),
    );
    for (const c of column.checks ?? [])
      checks.push({ name: c.name ?? generatedName('CK', name, column.name), sql: c.sql });
    columns.push(column);
  }
  if (keys.filter((k) => k.kind === 'PK').length > 1) {
    throw new SqlError({
      number: 8110,
      state: 0,
      class: 16,
      message: `Cannot add multiple PRIMARY KEY constraints to table '${name}'.`,
    });
  }
  if (name.startsWith('#')) db.createTempTable(name, columns, keys);
  else db.createTable(schema, name, columns, keys, checks);
  return {};
}

function insert(db: SandboxDatabase, tokens: Token[], params: Parameters): StatementResult {
  const s = solid(tokens);
  let i = 1;
  if (isWord(s[i], 'into')) i++;
  const target = readName(s, i);
  const table = db.table(target.schema, target.name);
  if (!table)
    throw new SqlError({
      number: 208,
      state: 1,
      class: 16,
      message: `Invalid object name '${target.schema ? `${target.schema}.` : ''}${target.name}'.`,
    });
  let k = target.next;
  let columns: string[];
  if (isOp(s[k], '(')) {
    const close = s.findIndex((t, x) => x > k && isOp(t, ')'));
    columns = splitCommas(s.slice(k + 1, close)).map((c) => nameOf(c[0]));
    k = close + 1;
  } else {
    // Values for every column but the identity and the rowversion, which the server fills.
    columns = table.columns.filter((c) => !c.identity && c.type.name !== 'rowversion').map((c) => c.name);
  }
  const identity = table.columns.find((c) => c.identity);
  if (identity && columns.some((c) => c.toLowerCase() === identity.name.toLowerCase())) {
    throw new SqlError({
      number: 544,
      state: 1,
      class: 16,
      message: `Cannot insert explicit value for identity column in table '${table.name}' when IDENTITY_INSERT is set to OFF.`,
    });
  }
  const rest = tokens.slice(tokens.indexOf(s[k] as Token));
  const targetSql = table.sqlName;
  const columnList = [...columns, ...(identity ? [identity.name] : [])].map(quote).join(', ');
  if (isWord(s[k], 'values')) {
    const open = rest.findIndex((t) => isOp(t, '('));
    const tuples = splitCommas(rest.slice(open)).map((tuple) => solid(tuple));
    const ids = identity ? db.nextIdentities(table, tuples.length) : [];
    const rows = tuples.map((tuple, n) => {
      if (!isOp(tuple[0], '(') || !isOp(tuple.at(-1), ')')) throw syntax(tuple[0]);
      const inner = translate(exactValues(tuple.slice(1, -1), columns, table, params), params, db);
      return `(${inner}${identity ? `, ${String(ids[n])}` : ''})`;
    });
    return run(
      db,
      `INSERT INTO ${targetSql} (${columnList}) VALUES ${rows.join(', ')}`,
      params,
      `${table.schema}.${table.name}`,
    );
  }
  // INSERT … SELECT: the identity values follow the rows the SELECT gives.
  const selectSql = translate(rest, params, db);
  const direct = insertSelected(db, table, columns, selectSql, params);
  if (direct) return direct;
  const selected = run(db, selectSql, params);
  return insertRows(db, table, columns, selected.resultSet?.rows ?? []);
}

/** Types whose values are converted between the SELECT's rows and the target's (not plain copies). */
const converted = (t: SqlType | undefined) =>
  !t || t.name === 'bit' || t.name === 'sql_variant' || isExactNumeric(t) || isClrType(t);

/**
 * INSERT … SELECT done inside SQLite when nothing on the way is converted: no identity to draw, and
 * no column on either side whose values insertRows() would change (bits, exact numerics, sql_variant,
 * CLR types, a type only the values tell). The rows are then the same as row by row, read once
 * instead of twice (a catch-up's pending keys are such a copy). Null: take the row-by-row way.
 */
function insertSelected(
  db: SandboxDatabase,
  table: TableInfo,
  columns: string[],
  selectSql: string,
  params: Parameters,
): StatementResult | null {
  if (table.columns.some((c) => c.identity)) return null;
  const targetTypes = columns.map(
    (c) => table.columns.find((d) => d.name.toLowerCase() === c.toLowerCase())?.type,
  );
  if (targetTypes.some(converted)) return null;
  let select;
  try {
    select = db.db.prepare(selectSql);
  } catch {
    return null;
  }
  const declared = select.reader ? select.columns() : [];
  // A column whose type only its values tell is not known here: converted, so row by row.
  const selectedTypes = declared.map((c) => resultType(selectSql, c, () => undefined));
  if (declared.length !== columns.length || selectedTypes.some(converted)) return null;
  return run(
    db,
    `INSERT INTO ${table.sqlName} (${columns.map(quote).join(', ')}) ${selectSql}`,
    params,
    `${table.schema}.${table.name}`,
  );
}

/** Rows a SELECT gave, into a table: identities drawn as the rows arrive, all or nothing. */
function insertRows(
  db: SandboxDatabase,
  table: TableInfo,
  columns: string[],
  rows: SqlValue[][],
): StatementResult {
  const identity = table.columns.find((c) => c.identity);
  const ids = identity ? db.nextIdentities(table, rows.length) : [];
  const columnList = [...columns, ...(identity ? [identity.name] : [])].map(quote).join(', ');
  const placeholders = [...columns, ...(identity ? ['id'] : [])].map(() => '?').join(', ');
  const insertRow = db.db.prepare(`INSERT INTO ${table.sqlName} (${columnList}) VALUES (${placeholders})`);
  const types = columns.map((c) => table.columns.find((d) => d.name.toLowerCase() === c.toLowerCase())?.type);
  // Each column's conversion chosen once; one parameter array, refilled per row.
  const stored = types.map((type): ((v: SqlValue) => unknown) => {
    const plain = (v: SqlValue) => (typeof v === 'boolean' ? (v ? 1n : 0n) : v);
    if (type?.name === 'sql_variant')
      return (v) => (v === null || typeof v === 'boolean' ? plain(v) : variantOf(v));
    if (isClrType(type))
      return (v) =>
        v === null || typeof v === 'boolean'
          ? plain(v)
          : toClr(
              Buffer.isBuffer(v) ? { name: 'varbinary', length: 'max' } : { name: 'nvarchar', length: 'max' },
              v,
              type,
            );
    if (type && isExactNumeric(type))
      return (v) => (typeof v === 'boolean' ? plain(v) : storedExact(type, v));
    return plain;
  });
  const params: unknown[] = new Array<unknown>(columns.length + (identity ? 1 : 0)).fill(null);
  try {
    db.db.transaction(() =>
      rows.forEach((r, n) => {
        // A select list longer or shorter than the insert list: SQLite's own refusal, as before.
        if (r.length !== columns.length) insertRow.run(...r);
        for (let i = 0; i < columns.length; i++)
          params[i] = (stored[i] as (v: SqlValue) => unknown)(r[i] ?? null);
        if (identity) params[columns.length] = ids[n];
        insertRow.run(params);
      }),
    )();
  } catch (error) {
    throw mapError(error, { db, table: `${table.schema}.${table.name}` });
  }
  return { rowCount: rows.length };
}

/** A value from a SELECT written into a sql_variant column: its own type, as SQL Server keeps it. */
function variantOf(v: SqlValue): Buffer {
  const type: SqlType =
    typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
      ? { name: 'bigint' }
      : typeof v === 'number'
        ? { name: 'float' }
        : Buffer.isBuffer(v)
          ? { name: 'varbinary', length: 'max' }
          : { name: 'nvarchar', length: 'max' };
  const value = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  return convert({ type, value }, { name: 'sql_variant' }).value as Buffer;
}

/** The INTO of `SELECT … INTO t FROM …`, at the top level before FROM; -1 when there is none. */
function selectIntoAt(s: Token[]): number {
  let depth = 0;
  for (let k = 0; k < s.length; k++) {
    if (isOp(s[k], '(')) depth++;
    if (isOp(s[k], ')')) depth--;
    if (depth === 0 && isWord(s[k], 'from')) return -1;
    if (depth === 0 && isWord(s[k], 'into')) return k;
  }
  return -1;
}

/**
 * SELECT … INTO new_table: a new table (or #temp table) with the SELECT's columns and types, all
 * nullable and without keys, holding its rows ("SELECT - INTO Clause"). 2714 when the name is taken.
 */
function selectInto(db: SandboxDatabase, tokens: Token[], params: Parameters, at: number): StatementResult {
  const s = solid(tokens);
  const target = readName(s, at + 1);
  const from = tokens.indexOf(s[at] as Token);
  const after = s[target.next] ? tokens.indexOf(s[target.next] as Token) : tokens.length;
  const selected = run(db, translate([...tokens.slice(0, from), ...tokens.slice(after)], params, db), params);
  const columns: ColumnDef[] = (selected.resultSet?.columns ?? []).map((c) => ({
    name: c.name,
    type: c.type,
    nullable: true,
  }));
  const unnamed = columns.find((c) => !c.name || /[()]/.test(c.name));
  if (unnamed)
    throw new SqlError({
      number: 1038,
      state: 5,
      class: 15,
      message:
        'An object or column name is missing or empty. For SELECT INTO statements, verify each column has a name. For other statements, look for empty alias names. Aliases defined as "" or [] are not allowed. Change the alias to a valid name.',
    });
  if (target.name.startsWith('#')) db.createTempTable(target.name, columns, []);
  else db.createTable(target.schema, target.name, columns, []);
  const table = db.table(target.schema, target.name);
  if (!table) throw cannotFind(208, target.name);
  return insertRows(
    db,
    table,
    columns.map((c) => c.name),
    selected.resultSet?.rows ?? [],
  );
}

/**
 * A write outside an explicit transaction is a transaction of its own: its tracked changes get one
 * version, made current as it commits. Inside an explicit transaction, the COMMIT does that.
 */
function write<T>(db: SandboxDatabase, work: () => T): T {
  if (db.db.inTransaction) return work();
  return db.db.transaction(() => {
    const result = work();
    finishVersion(db);
    return result;
  })();
}

/** Runs a table statement; undefined when the statement is not one of these. */
export function runTableStatement(
  db: SandboxDatabase,
  tokens: Token[],
  params: Parameters,
): StatementResult | undefined {
  const s = solid(tokens);
  // WITH CHANGE_TRACKING_CONTEXT (context) <statement>: the context is recorded with each change it makes.
  if (isWord(s[0], 'with') && isWord(s[1], 'change_tracking_context') && isOp(s[2], '(')) {
    const open = tokens.indexOf(s[2] as Token);
    const close = closing(tokens, open);
    const context = constant(tokens.slice(open + 1, close), params);
    if (context === null)
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: 'The CHANGE_TRACKING_CONTEXT value cannot be NULL.',
      });
    const blob = Buffer.isBuffer(context) ? context : Buffer.from(String(context), 'utf16le');
    return write(db, () => {
      setContext(db, blob.subarray(0, 128));
      try {
        return runTableStatement(db, tokens.slice(close + 1), params) ?? unsupportedHere(tokens);
      } finally {
        setContext(db, null);
      }
    });
  }
  if (isWord(s[0], 'alter') && isWord(s[1], 'table')) {
    const { schema, name, next } = readName(s, 2);
    const table = db.table(schema, name);
    if (!table) throw cannotFind(4902, name);
    if (isWord(s[next], 'enable') && isWord(s[next + 1], 'change_tracking')) {
      const track = solid(s.slice(next + 2));
      const columns = track.findIndex((x) => isWord(x, 'track_columns_updated'));
      enableTable(db, table, columns >= 0 && isWord(track[columns + 2], 'on'));
      return {};
    }
    if (isWord(s[next], 'disable') && isWord(s[next + 1], 'change_tracking')) {
      disableTable(db, table);
      return {};
    }
    return alterColumns(db, table, s, next);
  }
  if (isWord(s[0], 'insert', 'update', 'delete', 'truncate') && !db.rights.write) {
    const target = writeTarget(s, db);
    const verb = isWord(s[0], 'truncate') ? 'ALTER' : (s[0]?.text.toUpperCase() ?? 'INSERT');
    if (target) throw denied(verb, db, target);
  }
  if (isWord(s[0], 'create') && isWord(s[1], 'schema')) {
    if (!db.rights.createSchema) {
      throw new SqlError({
        number: 262,
        state: 1,
        class: 14,
        message: `CREATE SCHEMA permission denied in database '${db.name}'.`,
      });
    }
    db.createSchema(nameOf(s[2]));
    return {};
  }
  if (isWord(s[0], 'create') && isWord(s[1], 'table')) return createTable(db, tokens);
  if (isWord(s[0], 'create') && isWord(s[1], 'type')) return createType(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'type')) return dropType(db, tokens);
  if (isWord(s[0], 'create') && s.slice(1, 4).some((t) => isWord(t, 'index'))) return createIndex(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'index')) return dropIndex(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'table')) {
    const ifExists = isWord(s[2], 'if') && isWord(s[3], 'exists');
    const { schema, name } = readName(s, ifExists ? 4 : 2);
    const table = db.table(schema, name);
    if (table && isTracked(db, table.objectId)) disableTable(db, table);
    db.dropTable(schema, name, ifExists);
    return {};
  }
  if (isWord(s[0], 'truncate') && isWord(s[1], 'table')) {
    const { schema, name } = readName(s, 2);
    const table = db.table(schema, name);
    if (!table) throw cannotFind(4701, name);
    write(db, () => {
      const claimed = claimedVersion(db);
      run(db, `DELETE FROM ${table.sqlName}`, params);
      truncated(db, table.objectId, claimed);
    });
    return {};
  }
  if (isWord(s[0], 'insert', 'update')) {
    // A table with a rowversion column: each row inserted or updated draws the next @@DBTS.
    const stamped = rowversionColumn(writeTarget(s, db));
    const target = writeTarget(s, db);
    const converted = target && isWord(s[0], 'update') ? exactAssignments(tokens, target, params) : tokens;
    const statement =
      stamped && isWord(s[0], 'update') ? withRowversionSet(converted, stamped.name) : converted;
    const work = () =>
      isWord(s[0], 'insert')
        ? insert(db, statement, params)
        : run(db, translate(statement, params, db), params, target && `${target.schema}.${target.name}`);
    return write(db, () => (stamped ? db.rowversions.during(db.db, work) : work()));
  }
  if (isWord(s[0], 'delete')) return write(db, () => run(db, translate(tokens, params, db), params));
  if (isWord(s[0], 'select') && selectIntoAt(s) >= 0)
    return write(db, () => selectInto(db, tokens, params, selectIntoAt(s)));
  if (isWord(s[0], 'select', 'with')) {
    // Reading change tracking outside a transaction: expired changes are cleaned up first.
    if (
      !db.db.inTransaction &&
      s.some((x) => isWord(x, 'changetable', 'change_tracking_min_valid_version'))
    ) {
      db.db.transaction(() => cleanup(db, db.now()))();
    }
    return run(db, translate(tokens, params, db), params, undefined, selectListTypes(tokens));
  }
  return undefined;
}

function unsupportedHere(tokens: Token[]): never {
  throw new SqlError({
    number: 50000,
    state: 1,
    class: 16,
    message: `The sandbox does not support this statement yet: ${textOf(solid(tokens)).slice(0, 80)}`,
  });
}
