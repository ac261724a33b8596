// Tables in the sandbox: CREATE SCHEMA/TABLE, DROP TABLE, INSERT, UPDATE, DELETE, TRUNCATE and
// SELECT … FROM, translated token by token to SQLite. Columns keep their T-SQL types in answers.
import type { StatementResult } from '../tds/server';
import type { Column } from '../tds/tokens';
import type { SqlType, SqlValue } from '../tds/types';
import { quote, SqlError, tableSql, type ColumnDef, type KeyDef, type SandboxDatabase } from './database';
import { isOp, isWord, nameOf, solid, splitCommas, textOf, type Token } from './lexer';
import { parseTypeName, typeFromDeclared, TypeNameError } from './typeNames';

export type Parameters = Map<string, { type: SqlType; value: SqlValue }>;

const paramName = (variable: string) => `p_${variable.slice(1).toLowerCase().replace(/[^\w]/g, '_')}`;

function bindings(params: Parameters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, { value }] of params)
    out[paramName(name)] = typeof value === 'boolean' ? (value ? 1n : 0n) : value;
  return out;
}

/** Reads `[schema.]name` (or `db.schema.name`, `#temp`) starting at tokens[i]. */
function readName(tokens: Token[], i: number): { schema?: string; name: string; next: number } {
  const parts: string[] = [];
  let j = i;
  for (;;) {
    const t = tokens[j];
    if (!t || !(t.kind === 'word' || t.kind === 'quoted' || t.kind === 'temp')) break;
    parts.push(nameOf(t));
    j++;
    if (!isOp(tokens[j], '.')) break;
    j++;
  }
  if (parts.length === 0) throw syntax(tokens[i]);
  const name = parts.at(-1) ?? '';
  const schema = parts.length >= 2 ? parts.at(-2) : undefined;
  return { schema, name, next: j };
}

const syntax = (t: Token | undefined) =>
  new SqlError({
    number: 102,
    state: 1,
    class: 15,
    message: `Incorrect syntax near '${t?.text ?? 'end of statement'}'.`,
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

/** Reads a dotted name (a.b.c) at tokens[i]; answers its parts and the index after it. */
function dotted(tokens: Token[], i: number): { parts: string[]; next: number } {
  const parts: string[] = [];
  let j = i;
  while (tokens[j]?.kind === 'word' || tokens[j]?.kind === 'quoted') {
    parts.push(nameOf(tokens[j]));
    j++;
    if (!isOp(tokens[j], '.')) break;
    j++;
  }
  return { parts, next: j };
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
function translate(tokens: Token[], params: Parameters, db: SandboxDatabase): string {
  const out: string[] = [];
  let limit: string | undefined;
  let expectTable = false;
  let inFromList = false;
  let depth = 0;
  const ctes = new Set<string>();
  const first = solid(tokens);
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
    if (expectTable && (t.kind === 'word' || t.kind === 'quoted') && !isWord(t, 'select')) {
      expectTable = false;
      const { parts, next } = dotted(tokens, i);
      const name = parts.at(-1) ?? '';
      const schema = parts.length >= 2 ? (parts.at(-2) ?? 'dbo') : undefined;
      if (schema && /^(sys|information_schema)$/i.test(schema)) {
        const view = db.catalogView(schema, name);
        // A view SQL Server has and the sandbox lacks must not look like a misspelling: say so instead of 208.
        if (!view) {
          throw new SqlError({
            number: 50000,
            state: 1,
            class: 16,
            message: `The sandbox does not support the catalog view ${schema}.${name} yet.`,
          });
        }
        out.push(quote(view));
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
        out.push(table ? tableSql(table.schema, table.name) : quote(schema ? `${schema}.${name}` : name));
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
    if (t.kind === 'word' || t.kind === 'quoted') {
      // A three-part column reference (schema.table.column) is table.column against the alias.
      const { parts, next } = dotted(tokens, i);
      if (parts.length >= 3) {
        out.push(parts.slice(-2).map(quote).join('.'));
        i = next - 1;
        continue;
      }
    }
    if (t.kind === 'quoted') out.push(quote(t.value));
    else if (t.kind === 'nstring') out.push(`'${t.value.replaceAll("'", "''")}'`);
    else if (t.kind === 'variable') {
      if (!params.has(t.text.toLowerCase()))
        throw new SqlError({
          number: 137,
          state: 2,
          class: 15,
          message: `Must declare the scalar variable "${t.text}".`,
        });
      out.push(`@${paramName(t.text)}`);
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
function mapError(error: unknown, context: { table?: string; db: SandboxDatabase }): SqlError {
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
  if ((m = /no such column: (?:.+\.)?(.+)$/.exec(message)))
    return new SqlError({ number: 207, state: 1, class: 16, message: `Invalid column name '${m[1]}'.` });
  if ((m = /NOT NULL constraint failed: (?:.+\.)?(.+)$/.exec(message))) {
    return new SqlError({
      number: 515,
      state: 2,
      class: 16,
      message: `Cannot insert the value NULL into column '${m[1]}', table '${context.db.name}.${context.table ?? '?'}'; column does not allow nulls. INSERT fails.`,
    });
  }
  if (/UNIQUE constraint failed/.test(message)) {
    return new SqlError({
      number: 2627,
      state: 1,
      class: 14,
      message: `Violation of PRIMARY KEY or UNIQUE constraint. Cannot insert duplicate key in object '${context.table ?? '?'}'.`,
    });
  }
  if ((m = /near "(.+?)": syntax error/.exec(message)))
    return new SqlError({ number: 102, state: 1, class: 15, message: `Incorrect syntax near '${m[1]}'.` });
  return new SqlError({
    number: 50000,
    state: 1,
    class: 16,
    message: `The sandbox could not run this statement: ${message}`,
  });
}

function run(db: SandboxDatabase, sql: string, params: Parameters, table?: string): StatementResult {
  let statement;
  try {
    statement = db.db.prepare(sql);
  } catch (error) {
    throw mapError(error, { db, table });
  }
  const bound = bindings(params);
  const used = Object.fromEntries(Object.entries(bound).filter(([k]) => sql.includes(`@${k}`)));
  try {
    if (!statement.reader) {
      const info = statement.run(used);
      return { rowCount: info.changes };
    }
    const declared = statement.columns();
    const rows = (statement.raw(true).all(used) as unknown[][]).map((r) => r.map((v) => v as SqlValue));
    // Catalog views compute their flags; SQL Server types every is_* catalog column as bit.
    const readsCatalog = /"(sys|INFORMATION_SCHEMA)\./i.test(sql);
    const columns: Column[] = declared.map((c, i) => {
      let type = typeFromDeclared(c.type) ?? inferType(rows.map((r) => r[i] ?? null));
      if (readsCatalog && type.name === 'int' && /^is_/i.test(c.name)) type = { name: 'bit' };
      return { name: c.name, type, nullable: true };
    });
    return {
      resultSet: { columns, rows: rows.map((r) => r.map((v, i) => fromSqlite(columns[i]?.type, v))) },
      rowCount: rows.length,
    };
  } catch (error) {
    throw mapError(error, { db, table });
  }
}

/** An expression column's type from its values, as close to SQL Server's as values allow. */
function inferType(values: SqlValue[]): SqlType {
  const present = values.filter((v) => v !== null);
  if (present.length === 0) return { name: 'int' };
  if (present.every((v) => typeof v === 'bigint'))
    return present.every((v) => (v as bigint) >= -2147483648n && (v as bigint) <= 2147483647n)
      ? { name: 'int' }
      : { name: 'bigint' };
  if (present.every((v) => typeof v === 'bigint' || typeof v === 'number')) return { name: 'float' };
  if (present.every((v) => Buffer.isBuffer(v))) return { name: 'varbinary', length: 'max' };
  return { name: 'nvarchar', length: 'max' };
}

function fromSqlite(t: SqlType | undefined, v: SqlValue): SqlValue {
  if (v === null || !t) return v;
  if (t.name === 'bit') return Number(v) !== 0;
  if (t.name === 'tinyint' || t.name === 'smallint' || t.name === 'int') return Number(v);
  if (t.name === 'float' || t.name === 'real') return Number(v);
  if (t.name === 'decimal' || t.name === 'numeric')
    return typeof v === 'number' ? v.toFixed(t.scale) : String(v);
  return v;
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
  for (const def of splitCommas(body).map(solid)) {
    let i = 0;
    let constraintName: string | undefined;
    if (isWord(def[0], 'constraint')) {
      constraintName = nameOf(def[1]);
      i = 2;
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
    const column: ColumnDef = { name: nameOf(def[0]), type: { name: 'int' }, nullable: true };
    // The type: a word, then (n), (n,m) or (max).
    let typeEnd = 2;
    if (isOp(def[2], '(')) typeEnd = def.findIndex((t, k) => k > 2 && isOp(t, ')')) + 1;
    try {
      column.type = parseTypeName(textOf(def.slice(1, typeEnd)));
    } catch (error) {
      if (error instanceof TypeNameError)
        throw new SqlError({
          number: 2715,
          state: 6,
          class: 16,
          message: `Column, parameter, or variable #${columns.length + 1}: ${error.message}`,
        });
      throw error;
    }
    for (let k = typeEnd; k < def.length; k++) {
      const t = def[k];
      if (isWord(t, 'not') && isWord(def[k + 1], 'null')) {
        column.nullable = false;
        k++;
      } else if (isWord(t, 'null')) column.nullable = true;
      else if (isWord(t, 'identity')) {
        let seed = 1n;
        let increment = 1n;
        if (isOp(def[k + 1], '(')) {
          seed = BigInt(def[k + 2]?.text ?? '1');
          increment = BigInt(def[k + 4]?.text ?? '1');
          k += 5;
        }
        column.identity = { seed, increment };
        column.nullable = false;
      } else if (isWord(t, 'primary') && isWord(def[k + 1], 'key')) {
        keys.push({
          name: keyName('PK'),
          kind: 'PK',
          clustered: !isWord(def[k + 2], 'nonclustered'),
          columns: [column.name],
        });
        k++;
      } else if (isWord(t, 'default')) {
        const rest = def.slice(k + 1);
        const end = rest.findIndex((x) => isWord(x, 'not', 'null', 'primary', 'unique', 'constraint'));
        column.defaultSql = textOf(end === -1 ? rest : rest.slice(0, end));
        k += end === -1 ? rest.length : end;
      }
    }
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
  db.createTable(schema, name, columns, keys);
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
    columns = table.columns.filter((c) => !c.identity).map((c) => c.name);
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
  const targetSql = tableSql(table.schema, table.name);
  const columnList = [...columns, ...(identity ? [identity.name] : [])].map(quote).join(', ');
  if (isWord(s[k], 'values')) {
    const open = rest.findIndex((t) => isOp(t, '('));
    const tuples = splitCommas(rest.slice(open)).map((tuple) => solid(tuple));
    const ids = identity ? db.nextIdentities(table, tuples.length) : [];
    const rows = tuples.map((tuple, n) => {
      if (!isOp(tuple[0], '(') || !isOp(tuple.at(-1), ')')) throw syntax(tuple[0]);
      const inner = translate(tuple.slice(1, -1), params, db);
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
  const selected = run(db, translate(rest, params, db), params);
  const rows = selected.resultSet?.rows ?? [];
  const ids = identity ? db.nextIdentities(table, rows.length) : [];
  const placeholders = [...columns, ...(identity ? ['id'] : [])].map(() => '?').join(', ');
  const insertRow = db.db.prepare(`INSERT INTO ${targetSql} (${columnList}) VALUES (${placeholders})`);
  try {
    db.db.transaction(() =>
      rows.forEach((r, n) =>
        insertRow.run(
          ...r.map((v) => (typeof v === 'boolean' ? (v ? 1n : 0n) : v)),
          ...(identity ? [ids[n]] : []),
        ),
      ),
    )();
  } catch (error) {
    throw mapError(error, { db, table: `${table.schema}.${table.name}` });
  }
  return { rowCount: rows.length };
}

/** Runs a table statement; undefined when the statement is not one of these. */
export function runTableStatement(
  db: SandboxDatabase,
  tokens: Token[],
  params: Parameters,
): StatementResult | undefined {
  const s = solid(tokens);
  if (isWord(s[0], 'create') && isWord(s[1], 'schema')) {
    db.createSchema(nameOf(s[2]));
    return {};
  }
  if (isWord(s[0], 'create') && isWord(s[1], 'table')) return createTable(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'table')) {
    const ifExists = isWord(s[2], 'if') && isWord(s[3], 'exists');
    const { schema, name } = readName(s, ifExists ? 4 : 2);
    db.dropTable(schema, name, ifExists);
    return {};
  }
  if (isWord(s[0], 'truncate') && isWord(s[1], 'table')) {
    const { schema, name } = readName(s, 2);
    const table = db.table(schema, name);
    if (!table)
      throw new SqlError({
        number: 4701,
        state: 1,
        class: 16,
        message: `Cannot find the object "${name}" because it does not exist or you do not have permissions.`,
      });
    run(db, `DELETE FROM ${tableSql(table.schema, table.name)}`, params);
    return {};
  }
  if (isWord(s[0], 'insert')) return insert(db, tokens, params);
  if (isWord(s[0], 'update', 'delete', 'select', 'with'))
    return run(db, translate(tokens, params, db), params);
  return undefined;
}
