// Alias data types ("CREATE TYPE (Transact-SQL)": CREATE TYPE name FROM base_type [NULL | NOT NULL]),
// as customers' schemas use them (AdventureWorks' dbo.Name, dbo.Flag, dbo.Phone). A column of an alias
// type stores and travels as its base type; sys.columns shows the alias's user_type_id and the base's
// system_type_id; sys.types lists the alias (is_user_defined 1, ids from 257).
import type { StatementResult } from '../tds/hostSession';
import type { SqlType } from '../tds/dataTypes/sqlTypes';
import { statementError } from './basics';
import type { SandboxDatabase } from './database';
import { typeFacts } from '../tds/typeFacts';
import { isWord, nameOf, solid, textOf, type Token } from './lexer';
import { parseTypeName, TypeNameError } from './typeNames';

export interface AliasType {
  type: SqlType;
  userTypeId: number;
  nullable: boolean;
}

interface TypeRow {
  user_type_id: bigint;
  system_type_id: bigint;
  max_length: bigint;
  precision: bigint;
  scale: bigint;
  is_nullable: bigint;
  is_user_defined: bigint;
  base: string | null;
}

/** `[schema.]name` from the tokens at `at`, and where it ends. */
function typeName(s: Token[], at: number): { schema: string; name: string; next: number } {
  if (s[at + 1]?.text === '.') return { schema: nameOf(s[at]), name: nameOf(s[at + 2]), next: at + 3 };
  return { schema: 'dbo', name: nameOf(s[at]), next: at + 1 };
}

/** The alias type a column names (`Phone`, `dbo.Phone`), or undefined. */
export function aliasType(db: SandboxDatabase, text: string): AliasType | undefined {
  const parts = text.split('.').map((p) => p.trim().replace(/^\[(.*)\]$/, '$1'));
  const name = parts.at(-1) ?? '';
  const schema = parts.length > 1 ? (parts[0] ?? 'dbo') : 'dbo';
  const row = db.db
    .prepare<[string, string], TypeRow>(
      `SELECT t.*, b.name AS base FROM __types t JOIN __schemas s ON s.schema_id = t.schema_id
         LEFT JOIN __types b ON b.user_type_id = t.system_type_id
       WHERE t.is_user_defined = 1 AND t.name = ? COLLATE NOCASE AND s.name = ? COLLATE NOCASE`,
    )
    .get(name, schema);
  if (!row?.base) return undefined;
  return { type: baseOf(row), userTypeId: Number(row.user_type_id), nullable: row.is_nullable === 1n };
}

/** The base type an alias row stands for, with its length, precision and scale. */
function baseOf(row: TypeRow): SqlType {
  const base = row.base ?? 'int';
  const unicode = base === 'nchar' || base === 'nvarchar';
  const length = Number(row.max_length) === -1 ? 'max' : Number(row.max_length) / (unicode ? 2 : 1);
  if (['char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary'].includes(base))
    return parseTypeName(`${base}(${length})`);
  if (base === 'decimal' || base === 'numeric')
    return parseTypeName(`${base}(${row.precision},${row.scale})`);
  if (base === 'time' || base === 'datetime2' || base === 'datetimeoffset')
    return parseTypeName(`${base}(${row.scale})`);
  return parseTypeName(base);
}

/** CREATE TYPE [schema.]name FROM base_type [NULL | NOT NULL]. */
export function createType(db: SandboxDatabase, tokens: Token[]): StatementResult {
  const s = solid(tokens);
  const { schema, name, next } = typeName(s, 2);
  if (!isWord(s[next], 'from')) {
    throw statementError(50000, 'The sandbox supports alias types only (CREATE TYPE … FROM base_type).');
  }
  const tail = s.slice(next + 1);
  const nullAt = tail.findIndex((t) => isWord(t, 'null', 'not'));
  const baseText = textOf(nullAt < 0 ? tail : tail.slice(0, nullAt));
  let base: SqlType;
  try {
    base = parseTypeName(baseText);
  } catch (error) {
    if (error instanceof TypeNameError)
      throw statementError(243, `Type ${baseText} is not a defined system type.`);
    throw error;
  }
  const schemaId = db.db
    .prepare<[string], { schema_id: bigint }>('SELECT schema_id FROM __schemas WHERE name = ? COLLATE NOCASE')
    .get(schema)?.schema_id;
  if (schemaId === undefined)
    throw statementError(
      2760,
      `The specified schema name "${schema}" either does not exist or you do not have permission to use it.`,
    );
  if (
    aliasType(db, `${schema}.${name}`) ||
    db.db.prepare('SELECT 1 FROM __types WHERE name = ? COLLATE NOCASE').get(name)
  )
    throw statementError(
      219,
      `The type '${schema}.${name}' already exists, or you do not have permission to create it.`,
    );
  const f = typeFacts(base);
  const id =
    Number(
      db.db.prepare<[], { id: bigint | null }>('SELECT max(user_type_id) AS id FROM __types').get()?.id ?? 0,
    ) + 1;
  db.db
    .prepare('INSERT INTO __types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)')
    .run(
      name,
      f.systemTypeId,
      Math.max(257, id),
      schemaId,
      f.maxLength,
      f.precision,
      f.scale,
      f.collation,
      isWord(tail[nullAt], 'not') ? 0 : 1,
    );
  return {};
}

/** DROP TYPE [IF EXISTS] [schema.]name: refused while a column uses it (3732). */
export function dropType(db: SandboxDatabase, tokens: Token[]): StatementResult {
  const s = solid(tokens);
  const ifExists = isWord(s[2], 'if') && isWord(s[3], 'exists');
  const { schema, name } = typeName(s, ifExists ? 4 : 2);
  const alias = aliasType(db, `${schema}.${name}`);
  if (!alias) {
    if (ifExists) return {};
    throw statementError(
      218,
      `Cannot find the type '${name}', because it does not exist or you do not have permission.`,
    );
  }
  const user = db.db
    .prepare<[number], { name: string }>(
      'SELECT o.name FROM __columns c JOIN __objects o ON o.object_id = c.object_id WHERE c.user_type_id = ? LIMIT 1',
    )
    .get(alias.userTypeId);
  if (user)
    throw statementError(
      3732,
      `Cannot drop type '${schema}.${name}' because it is being referenced by object '${user.name}'. There may be other objects that reference this type.`,
    );
  db.db.prepare('DELETE FROM __types WHERE user_type_id = ?').run(alias.userTypeId);
  return {};
}
