// T-SQL tokens to SQLite text, as a table of small rules tried in order at each token: table
// references resolved to the sandbox's tables (with the bare table name as alias when none is given,
// so `Orders.Id` still works), names quoted the SQLite way, N'' strings plain, variables bound, TOP
// moved to a LIMIT, and the functions SQLite lacks answered from the catalogue.
import { refuseDeniedSelect } from './objectPermissions';
import type { SqlType } from '../tds/dataTypes/sqlTypes';
import { quote, SqlError, undeclared } from './basics';
import { CHECKPOINTED_COMMITS } from './changeTracking';
import { changeTable, hasPermsByName, objectId, serverDatabasesSql } from './catalogFunctions';
import { clrCalls, clrColumnsOf } from './clrCalls';
import { isClrType } from './clrValues';
import { castType } from './convert';
import { divisions } from './arithmetic';
import type { SandboxDatabase } from './database';
import { comparedColumnType, exactColumnsOf, isExactNumeric, roundedByDouble } from './exactDecimals';
import {
  closing,
  dotted,
  isOp,
  isWord,
  lex,
  nameOf,
  solid,
  solidBefore,
  splitCommas,
  syntax,
  textOf,
  type Token,
} from './lexer';
import { constant, paramName, type Parameters } from './params';
import { databasePrincipalsSql, myPermissions, myPermissionsSql } from './security';
import { conversionParts } from './selectTypes';
import { sessionViewSql } from './sessionViews';
import { tableNamed } from './tableNames';

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
/** Words after which a minus starts a number rather than subtracting. */
const BEFORE_UNARY = new Set(
  'select values where and or not when then else set return between in like'.split(' '),
);
const TABLE_HINTS = ['nolock', 'readpast', 'updlock', 'rowlock', 'holdlock', 'tablock'];

const nextSolid = (tokens: Token[], i: number) => {
  let j = i;
  while (tokens[j]?.kind === 'space' || tokens[j]?.kind === 'comment') j++;
  return j;
};

/** A statement being translated: its tokens, the text written so far, and where the rules stand. */
interface Translation {
  readonly tokens: Token[];
  readonly params: Parameters;
  readonly db: SandboxDatabase;
  readonly out: string[];
  /** Common table expressions the statement names (WITH x AS (…)): not tables of the database. */
  readonly ctes: ReadonlySet<string>;
  /** Every column of the statement's tables, by its name in lower case. */
  readonly columnTypes: ReadonlyMap<string, SqlType>;
  /** Columns of the statement's tables whose type a compared value is converted to. */
  readonly exactColumns: ReadonlyMap<string, SqlType>;
  /** The next name is a table reference (after FROM, JOIN, INTO, UPDATE, TABLE or a FROM list's comma). */
  expectTable: boolean;
  inFromList: boolean;
  depth: number;
  limit?: string;
  /** A part of the statement (an argument, TOP's count) translated on its own. */
  sub(tokens: Token[]): string;
}

/** A rule: at token `i`, writes its translation and answers the last index it used; undefined when it does not apply. */
type Rule = (x: Translation, t: Token, i: number) => number | undefined;

/** Whether the token after a table reference at `next` is its alias. */
function aliasAfter(x: Translation, next: number, asCounts = false): boolean {
  const after = x.tokens[nextSolid(x.tokens, next)];
  return (
    after !== undefined &&
    (after.kind === 'quoted' ||
      (after.kind === 'word' && !NOT_ALIAS.has(after.text.toLowerCase())) ||
      (asCounts && isWord(after, 'as')))
  );
}

/** The call's parentheses when the token at `i` is a function name followed by '(': [open, close]. */
function callAt(x: Translation, i: number): [number, number] | undefined {
  const open = nextSolid(x.tokens, i + 1);
  return isOp(x.tokens[open], '(') ? [open, closing(x.tokens, open)] : undefined;
}

/** CAST(expr AS type) or CONVERT(type, expr[, style]) as a call of the TSQL_CONVERT function. */
function conversion(x: Translation, isCast: boolean, inner: Token[]): string {
  const { expr, type, style } = conversionParts(isCast, inner);
  if (isCast && type.length === 0) throw syntax(inner[0]);
  const target = castType(textOf(solid(type)));
  const styleSql = style ? x.sub(style) : 'NULL';
  const json = (t: SqlType) => `'${JSON.stringify(t).replaceAll("'", "''")}'`;
  // A decimal or money column's value reaches the function as SQLite keeps it (12.5 for 12.50), a
  // char's without its padding: its column's type goes along, so CONVERT shows the column's scale as
  // SQL Server does ('12.50'), and a char(n) its n characters.
  const from = exactColumnOf(solid(expr), x.columnTypes);
  return `TSQL_CONVERT(${x.sub(expr)}, ${json(target)}, ${styleSql}${from ? `, ${json(from)}` : ''})`;
}

/** The decimal, numeric, money, smallmoney or char column an expression is, when it is one column alone. */
function exactColumnOf(s: Token[], columnTypes: ReadonlyMap<string, SqlType>): SqlType | undefined {
  const named = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'quoted';
  const alone = s.length === 1 && named(s[0]);
  const qualified = s.length === 3 && named(s[0]) && isOp(s[1], '.') && named(s[2]);
  if (!alone && !qualified) return undefined;
  const type = columnTypes.get(nameOf(s.at(-1)).toLowerCase());
  const fixedText = (type?.name === 'char' || type?.name === 'nchar') && typeof type.length === 'number';
  return isExactNumeric(type) || fixedText ? type : undefined;
}

/** The type a CAST(x AS type) or CONVERT(type, x) that is the whole expression converts to. */
function castTypeOf(s: Token[]): SqlType | undefined {
  const isCast = isWord(s[0], 'cast');
  if ((!isCast && !isWord(s[0], 'convert')) || !isOp(s[1], '(') || closing(s, 1) !== s.length - 1)
    return undefined;
  const { type } = conversionParts(isCast, s.slice(2, -1));
  return type.length ? castType(textOf(solid(type))) : undefined;
}

/** The type of the column an expression ends with (`c`, `t.c`), when it is one of the statement's. */
function columnTypeOf(x: Translation, s: Token[]): SqlType | undefined {
  const named = s.at(-1);
  const column = named?.kind === 'word' || named?.kind === 'quoted' ? nameOf(named).toLowerCase() : '';
  return x.columnTypes.get(column);
}

/**
 * `COLLATE name` ("COLLATE (Transact-SQL)"): binary and case-sensitive collations compare as SQLite's
 * BINARY does, case-insensitive ones as NOCASE (ASCII letters only: CONFORMANCE.md); 448 otherwise.
 */
function collation(name: string): string {
  if (/_(BIN2?|CS_A[SI](_[A-Z0-9]+)*)$/i.test(name)) return 'COLLATE BINARY';
  if (/_CI_A[SI](_[A-Z0-9]+)*$/i.test(name)) return 'COLLATE NOCASE';
  throw new SqlError({ number: 448, state: 1, class: 16, message: `Invalid collation '${name}'.` });
}

/** fn_my_permissions(securable, class) in a FROM clause: the session's permissions as rows. */
function myPermissionsTable(x: Translation, name: string, next: number): number | undefined {
  if (!/^fn_my_permissions$/i.test(name) || !isOp(x.tokens[nextSolid(x.tokens, next)], '(')) return undefined;
  const open = nextSolid(x.tokens, next);
  const close = closing(x.tokens, open);
  const [securable = [], securableClass = []] = splitCommas(x.tokens.slice(open + 1, close));
  const target = constant(securable, x.params);
  const parts = lex(String(target ?? ''))
    .filter((t) => t.kind === 'word' || t.kind === 'quoted')
    .map(nameOf);
  const rows = myPermissions(
    x.db.rights,
    String(constant(securableClass, x.params) ?? ''),
    x.db.name,
    target === null ? undefined : tableNamed(x.db, parts),
  );
  x.out.push(myPermissionsSql(rows));
  if (!aliasAfter(x, close + 1)) x.out.push(` AS ${quote(name)}`);
  return close;
}

/** A sys or INFORMATION_SCHEMA view: the database's catalogue, or the server's databases and sessions. */
function catalogView(x: Translation, schema: string, name: string, next: number): number {
  // sys.databases and sys.database_principals are answered from the server's databases and logins.
  const serverView =
    /^sys$/i.test(schema) &&
    /^(databases|database_principals|dm_exec_sessions|dm_exec_connections)$/i.test(name);
  const view = serverView ? `sys.${name.toLowerCase()}` : x.db.catalogView(schema, name);
  // Without catalog access, or in upper case under a case-sensitive collation, SQL Server sees no such object.
  if (view && (!x.db.rights.viewCatalog || (x.db.rights.caseSensitive && view !== `${schema}.${name}`)))
    throw new SqlError({
      number: 208,
      state: 1,
      class: 16,
      message: `Invalid object name '${schema}.${name}'.`,
    });
  // A view SQL Server has and the sandbox lacks must not look like a misspelling: say so instead of 208.
  if (!view)
    throw new SqlError({
      number: 50000,
      state: 1,
      class: 16,
      message: `The sandbox does not support the catalog view ${schema}.${name} yet.`,
    });
  if (view === 'sys.dm_exec_sessions' || view === 'sys.dm_exec_connections')
    x.out.push(sessionViewSql(view, x.db.serverSessions()));
  else if (serverView)
    x.out.push(
      view === 'sys.databases' ? serverDatabasesSql(x.db) : databasePrincipalsSql(x.db.serverLogins()),
    );
  else if (view === 'sys.dm_tran_commit_table' && !x.db.rights.viewServerState)
    x.out.push(CHECKPOINTED_COMMITS);
  else x.out.push(quote(view));
  if (!aliasAfter(x, next)) x.out.push(` AS ${quote(name)}`);
  return next - 1;
}

/** Functions SQLite lacks, each answered from the catalogue or as a subquery. */
const FUNCTIONS: Record<string, (x: Translation, args: Token[][]) => string> = {
  change_tracking_current_version: () =>
    '(SELECT CASE WHEN enabled = 1 THEN current_version END FROM __ct_db)',
  // Without VIEW CHANGE TRACKING the answer is NULL, not an error (CHANGE_TRACKING_MIN_VALID_VERSION).
  change_tracking_min_valid_version: (x, [table = []]) =>
    x.db.rights.viewChangeTracking
      ? `(SELECT max(begin_version, cleanup_version) FROM __ct_tables WHERE object_id = (${x.sub(table)}))`
      : 'NULL',
  has_perms_by_name: (x, [securable = [], securableClass = [], permission = []]) =>
    hasPermsByName(
      x.db,
      constant(securable, x.params),
      constant(securableClass, x.params),
      constant(permission, x.params),
    ),
  object_id: (x, [name = []]) => objectId(x.db, constant(name, x.params)),
  columnproperty: (x, [obj = [], column = [], property = []]) => {
    if (String(constant(property, x.params)).toLowerCase() !== 'columnid') throw syntax(property[0]);
    return `(SELECT column_id FROM __columns WHERE object_id = (${x.sub(obj)}) AND name = ${x.sub(column)} COLLATE NOCASE)`;
  },
  change_tracking_is_column_in_mask: (x, given) => {
    if (given.length !== 2)
      throw new SqlError({
        number: 174,
        state: 1,
        class: 15,
        message: 'The change_tracking_is_column_in_mask function requires 2 argument(s).',
      });
    const [column, mask] = given.map((a) => x.sub(a));
    // Inserts and deletes carry no mask: answered in SQLite, without a call into JavaScript per row.
    return `(CASE WHEN (${mask}) IS NULL THEN 0 ELSE CT_IN_MASK(${column}, ${mask}) END)`;
  },
};

const RULES: readonly Rule[] = [
  // FROM, JOIN, INTO, UPDATE, TABLE: a table reference follows.
  (x, t, i) => {
    if (t.kind !== 'word' || !TABLE_REF_AFTER.has(t.text.toLowerCase())) return undefined;
    x.expectTable = true;
    x.inFromList = t.text.toLowerCase() === 'from';
    x.out.push(t.text);
    return i;
  },
  // TYPE_NAME(id) and TYPE_ID(name) read sys.types (a function may not query while SQLite runs one).
  (x, t, i) => {
    const call = isWord(t, 'type_name', 'type_id') ? callAt(x, i) : undefined;
    if (!call) return undefined;
    const argument = x.sub(x.tokens.slice(call[0] + 1, call[1]));
    x.out.push(
      isWord(t, 'type_name')
        ? `(SELECT name FROM __types WHERE user_type_id = (${argument}))`
        : `(SELECT user_type_id FROM __types WHERE name = (${argument}) COLLATE NOCASE)`,
    );
    return call[1];
  },
  // DATALENGTH(column) counts bytes as the column's type stores them (database.ts TSQL_DATALENGTH), and
  // DATALENGTH(CAST(x AS type)) as that type stores them.
  (x, t, i) => {
    const call = isWord(t, 'datalength') ? callAt(x, i) : undefined;
    if (!call) return undefined;
    const argument = solid(x.tokens.slice(call[0] + 1, call[1]));
    const type = castTypeOf(argument) ?? columnTypeOf(x, argument);
    if (!type)
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: "The sandbox supports DATALENGTH of a table's column or of a CAST only.",
      });
    const sql = x.sub(x.tokens.slice(call[0] + 1, call[1]));
    x.out.push(`TSQL_DATALENGTH(${sql}, '${JSON.stringify(type).replaceAll("'", "''")}')`);
    return call[1];
  },
  (x, t, i) => {
    if (!isWord(t, 'collate')) return undefined;
    const at = nextSolid(x.tokens, i + 1);
    const name = x.tokens[at];
    if (name?.kind !== 'word') throw syntax(name);
    x.out.push(collation(name.text));
    return at;
  },
  // CAST and CONVERT run T-SQL's conversion (convert.ts) in SQLite, not SQLite's own CAST.
  (x, t, i) => {
    const call = isWord(t, 'cast', 'convert') ? callAt(x, i) : undefined;
    if (!call) return undefined;
    x.out.push(conversion(x, isWord(t, 'cast'), x.tokens.slice(call[0] + 1, call[1])));
    return call[1];
  },
  (x, t, i) => {
    if (!x.expectTable || !isWord(t, 'changetable')) return undefined;
    x.expectTable = false;
    const { sql, next } = changeTable(x.tokens, i, x.db, (tokens) => x.sub(tokens));
    x.out.push(sql);
    return next - 1;
  },
  // A table reference: a table function, a catalogue view, a common table expression or a table.
  (x, t, i) => {
    if (!x.expectTable || (t.kind !== 'word' && t.kind !== 'quoted') || isWord(t, 'select')) return undefined;
    x.expectTable = false;
    const { parts, next } = dotted(x.tokens, i);
    const name = parts.at(-1) ?? '';
    const schema = parts.length >= 2 ? (parts.at(-2) ?? 'dbo') : undefined;
    const permissions = myPermissionsTable(x, name, next);
    if (permissions !== undefined) return permissions;
    if (schema && /^(sys|information_schema)$/i.test(schema)) return catalogView(x, schema, name, next);
    if (!schema && x.ctes.has(name.toLowerCase())) {
      x.out.push(quote(name));
      return next - 1;
    }
    const table = x.db.table(schema, name);
    // An unknown table is written as given, so SQLite's "no such table" names it as the statement did.
    x.out.push(table ? table.sqlName : quote(schema ? `${schema}.${name}` : name));
    const target = isWord(x.tokens[nextSolid(x.tokens, 0)], 'insert');
    if (table && !aliasAfter(x, next, true) && !target) x.out.push(` AS ${quote(table.name)}`);
    return next - 1;
  },
  (x, t, i) => {
    if (t.kind !== 'temp') return undefined;
    x.expectTable = false;
    x.out.push(quote(t.text));
    return i;
  },
  (x, t, i) => {
    const answer = t.kind === 'word' ? FUNCTIONS[t.text.toLowerCase()] : undefined;
    const call = answer ? callAt(x, i) : undefined;
    if (!answer || !call) return undefined;
    x.out.push(answer(x, splitCommas(x.tokens.slice(call[0] + 1, call[1]))));
    return call[1];
  },
  // A three-part column reference (schema.table.column) is table.column against the alias.
  (x, t, i) => {
    if (t.kind !== 'word' && t.kind !== 'quoted') return undefined;
    const { parts, next } = dotted(x.tokens, i);
    if (parts.length < 3) return undefined;
    x.out.push(parts.slice(-2).map(quote).join('.'));
    return next - 1;
  },
  (x, t, i) => {
    if (t.kind !== 'quoted') return undefined;
    x.out.push(quote(t.value));
    return i;
  },
  // A string compared with a hierarchyid or spatial column is converted to its type, as SQL Server does.
  (x, t, i) => {
    if (t.kind !== 'string' && t.kind !== 'nstring') return undefined;
    const compared = comparedColumnType(x.tokens, i, x.exactColumns);
    if (!isClrType(compared)) return undefined;
    x.out.push(`TSQL_CONVERT('${t.value.replaceAll("'", "''")}', '${JSON.stringify(compared)}', NULL)`);
    return i;
  },
  // 0x… is binary in T-SQL, an integer in SQLite: written as SQLite's blob literal.
  (x, t, i) => {
    if (t.kind !== 'number' || !/^0x/i.test(t.text)) return undefined;
    const hex = t.text.slice(2);
    x.out.push(`X'${hex.length % 2 ? `0${hex}` : hex}'`);
    return i;
  },
  (x, t, i) => {
    if (t.kind !== 'nstring') return undefined;
    x.out.push(`'${t.value.replaceAll("'", "''")}'`);
    return i;
  },
  // A literal with more digits than a double holds is kept as its digits (exactDecimals.ts).
  (x, t, i) => {
    if (t.kind !== 'number' || !roundedByDouble(t.text)) return undefined;
    // A unary minus belongs to the digits: -'…' would make SQLite round them to a double.
    const minus = x.out.findLastIndex((s) => s.trim() !== '');
    const [before] = solidBefore(x.tokens, i, 2);
    const unary =
      x.out[minus] === '-' &&
      (!before ||
        (before.kind === 'op' && before.text !== ')') ||
        (before.kind === 'word' && BEFORE_UNARY.has(before.text.toLowerCase())));
    if (unary) x.out.splice(minus);
    x.out.push(`'${unary ? '-' : ''}${t.text}'`);
    return i;
  },
  // Variables compared with a decimal, money or CLR column are converted to its type, as SQL Server does.
  (x, t, i) => {
    if (t.kind !== 'variable') return undefined;
    if (!x.params.has(t.text.toLowerCase())) throw undeclared(t.text);
    const compared = comparedColumnType(x.tokens, i, x.exactColumns);
    x.out.push(
      compared
        ? `TSQL_CONVERT(@${paramName(t.text)}, '${JSON.stringify(compared)}', NULL)`
        : `@${paramName(t.text)}`,
    );
    return i;
  },
  (x, t, i) => {
    if (t.kind !== 'sysvar') return undefined;
    const value = x.db.sessionVariable(t.text);
    if (value === undefined)
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: `The sandbox does not support ${t.text} in this statement yet.`,
      });
    x.out.push(typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value));
    return i;
  },
  // TOP n | TOP (n) | TOP (@p): moved to a LIMIT at the end.
  (x, t, i) => {
    if (!isWord(t, 'top') || x.limit !== undefined) return undefined;
    const rest = solid(x.tokens.slice(i + 1));
    const head = rest[0];
    let taken: Token[];
    let end: number;
    if (isOp(head, '(')) {
      const close = rest.findIndex((r) => isOp(r, ')'));
      taken = rest.slice(1, close);
      end = x.tokens.indexOf(rest[close] as Token);
    } else {
      taken = head ? [head] : [];
      end = x.tokens.indexOf(head as Token);
    }
    x.limit = x.sub(taken);
    return end;
  },
  // Table hints change locking, which the sandbox does not model: dropped.
  (x, t, i) => {
    if (!isWord(t, 'with')) return undefined;
    const open = nextSolid(x.tokens, i + 1);
    if (!isOp(x.tokens[open], '(') || !isWord(x.tokens[nextSolid(x.tokens, open + 1)], ...TABLE_HINTS))
      return undefined;
    x.depth--;
    let close = open + 1;
    while (close < x.tokens.length && !isOp(x.tokens[close], ')')) close++;
    return close;
  },
];

/** The columns a part of a statement (an argument, a subquery) sees of the statement around it. */
type Outer = Pick<Translation, 'exactColumns' | 'columnTypes'>;

export function translate(given: Token[], params: Parameters, db: SandboxDatabase, outer?: Outer): string {
  return db.rememberingTables(() => translateStatement(given, params, db, outer));
}

function translateStatement(given: Token[], params: Parameters, db: SandboxDatabase, outer?: Outer): string {
  const named = solid(given);
  const tables = named.flatMap((t, k) =>
    t.kind === 'word' && TABLE_REF_AFTER.has(t.text.toLowerCase())
      ? [tableNamed(db, dotted(named, k + 1).parts)]
      : [],
  );
  // A table read (FROM or JOIN) whose SELECT is denied to the login: 229, as SQL Server refuses it.
  named.forEach((t, k) => {
    if (isWord(t, 'from', 'join') && !isWord(named[0], 'delete'))
      refuseDeniedSelect(db, tableNamed(db, dotted(named, k + 1).parts));
  });
  // Methods of hierarchyid, geography and geometry values become the sandbox's functions.
  // … and / and % fail on zero (8134) as T-SQL's do.
  const tokens = divisions(clrCalls(given, clrColumnsOf(tables)));
  const first = solid(tokens);
  const ctes = new Set<string>();
  if (isWord(first[0], 'with')) {
    for (let k = 1; k < first.length; k++)
      if (isWord(first[k + 1], 'as') && isOp(first[k + 2], '(')) ctes.add(nameOf(first[k]).toLowerCase());
  }
  const x: Translation = {
    tokens,
    params,
    db,
    out: [],
    ctes,
    // A part's own tables first, then the statement's: `DATALENGTH(CAST(c AS …))` knows c's type.
    exactColumns: new Map([...(outer?.exactColumns ?? []), ...exactColumnsOf(tables)]),
    columnTypes: new Map([
      ...(outer?.columnTypes ?? []),
      ...tables.flatMap((t) => t?.columns.map((c) => [c.name.toLowerCase(), c.type] as const) ?? []),
    ]),
    expectTable: false,
    inFromList: false,
    depth: 0,
    sub: (part) => translate(part, params, db, x),
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (isOp(t, '(')) x.depth++;
    if (isOp(t, ')')) x.depth--;
    if (t.kind === 'word' && CLAUSE_END.has(t.text.toLowerCase())) x.inFromList = false;
    if (isOp(t, ',') && x.inFromList && x.depth === 0) x.expectTable = true;
    let used: number | undefined;
    for (const rule of RULES) if ((used = rule(x, t, i)) !== undefined) break;
    if (used === undefined) x.out.push(t.text);
    else i = used;
  }
  return x.out.join('') + (x.limit !== undefined ? ` LIMIT ${x.limit}` : '');
}
