// CREATE SCHEMA, CREATE TABLE (an SQL table: REUSEDLT(*YES), journaled to the schema's QSQJRN when
// it has one), CREATE ALIAS (a name for a file, or for one member of it), DROP.
import { doubleByteHalf } from '../../../lib/ibmi/ccsid';
import { ROWID_LENGTH, timestampLength, type FieldType } from '../../../lib/ibmi/recordImage';
import { newAuthority } from '../system/authority';
import type { ColumnSpec, SqlValue } from '../system/files';
import { sqlError } from '../system/messages';
import { closing, isOp, isWord, nameOf, splitCommas, type Token } from './lexer';
import type { QueryContext } from './translate';

/**
 * A name as the sandbox keeps it: the SQL name and the system name equal, so within 10 characters;
 * `$`, `#` and `@` as the system's CCSID shows them (SimulatedIbmi.nameCharacters).
 */
export function shortName(ctx: QueryContext, name: string | undefined, what: string): string {
  if (!name) throw sqlError(-104, '<END-OF-STATEMENT>', what);
  if (!ctx.system.isSystemName(name)) throw sqlError(-104, name, `a ${what} of at most 10 characters`);
  return name;
}

export function readName(
  ctx: QueryContext,
  tokens: Token[],
  at: number,
): { schema: string; name: string; next: number } {
  const first = nameOf(tokens[at]);
  if (isOp(tokens[at + 1], '.'))
    return {
      schema: shortName(ctx, first, 'schema'),
      name: shortName(ctx, nameOf(tokens[at + 2]), 'name'),
      next: at + 3,
    };
  return { schema: ctx.schema, name: shortName(ctx, first, 'name'), next: at + 1 };
}

export function columnType(
  tokens: Token[],
  ccsid: number,
): { type: FieldType; sqlType: string; length: number; scale: number | null; rest: Token[] } {
  const word = tokens[0]?.value ?? '';
  let i = 1;
  let size: number[] = [];
  // A LOB's length may carry K, M or G (CLOB(1M)); a LOB without one holds 1M.
  let lobLength = 1_048_576;
  if (isWord(tokens[0], 'CHARACTER', 'CHAR', 'GRAPHIC', 'BINARY', 'NCHAR') && isWord(tokens[1], 'VARYING'))
    i = 2;
  if (isWord(tokens[0], 'DOUBLE') && isWord(tokens[1], 'PRECISION')) i = 2;
  if (isOp(tokens[i], '(')) {
    const end = closing(tokens, i);
    const parts = splitCommas(tokens.slice(i + 1, end));
    size = parts.map((p) => Number(p[0]?.value));
    const unit = { K: 1024, M: 1_048_576, G: 1_073_741_824 }[
      String(parts[0]?.[1]?.value ?? '').toUpperCase()
    ];
    lobLength = (size[0] ?? 1) * (unit ?? 1);
    i = end + 1;
  }
  let rest = tokens.slice(i);
  const ccsidAt = rest.findIndex((t) => isWord(t, 'CCSID'));
  const columnCcsid = ccsidAt >= 0 ? Number(rest[ccsidAt + 1]?.value) : ccsid;
  const bitData = rest.some((t, k) => isWord(t, 'FOR') && isWord(rest[k + 1], 'BIT'));
  if (ccsidAt >= 0) rest = [...rest.slice(0, ccsidAt), ...rest.slice(ccsidAt + 2)];
  const [p = 0, s = 0] = size;
  const varying = i === 2 && isWord(tokens[1], 'VARYING');
  const spec = (type: FieldType, sqlType: string, length: number, scale: number | null) => ({
    type,
    sqlType,
    length,
    scale,
    rest,
  });
  // GRAPHIC takes the double-byte half of a mixed job CCSID, else 65535 (IBM i's default); NCHAR is UTF-16.
  const graphicCcsid = ccsidAt >= 0 ? columnCcsid : (doubleByteHalf(ccsid) ?? 65535);
  const unsupported = (sqlType: string, reason: string) =>
    spec({ kind: 'unsupported', sqlType, length: p || 1, reason }, sqlType, p || 1, null);
  switch (word) {
    case 'CHAR':
    case 'CHARACTER':
      // SYSCOLUMNS names a FOR BIT DATA column CHAR or VARCHAR, its CCSID 65535; BINARY is its own type.
      if (varying && bitData) return spec({ kind: 'varhex', length: p }, 'VARCHAR', p, null);
      if (varying) return spec({ kind: 'varchar', length: p, ccsid: columnCcsid }, 'VARCHAR', p, null);
      if (bitData) return spec({ kind: 'hex', length: p || 1 }, 'CHAR', p || 1, null);
      return spec({ kind: 'char', length: p || 1, ccsid: columnCcsid }, 'CHAR', p || 1, null);
    case 'VARCHAR':
      if (bitData) return spec({ kind: 'varhex', length: p }, 'VARCHAR', p, null);
      return spec({ kind: 'varchar', length: p, ccsid: columnCcsid }, 'VARCHAR', p, null);
    case 'GRAPHIC':
      if (varying) return spec({ kind: 'vargraphic', length: p, ccsid: graphicCcsid }, 'VARG', p, null);
      return spec({ kind: 'graphic', length: p || 1, ccsid: graphicCcsid }, 'GRAPHIC', p || 1, null);
    case 'VARGRAPHIC':
      return spec({ kind: 'vargraphic', length: p, ccsid: graphicCcsid }, 'VARG', p, null);
    case 'NCHAR':
      if (varying) return spec({ kind: 'vargraphic', length: p, ccsid: 1200 }, 'VARG', p, null);
      return spec({ kind: 'graphic', length: p || 1, ccsid: 1200 }, 'GRAPHIC', p || 1, null);
    case 'NVARCHAR':
      return spec({ kind: 'vargraphic', length: p, ccsid: 1200 }, 'VARG', p, null);
    case 'BINARY':
      if (varying) return spec({ kind: 'varhex', length: p }, 'VARBIN', p, null);
      return spec({ kind: 'hex', length: p || 1 }, 'BINARY', p || 1, null);
    case 'VARBINARY':
      return spec({ kind: 'varhex', length: p }, 'VARBIN', p, null);
    case 'CLOB':
      return spec(
        { kind: 'lob', lob: 'CLOB', length: lobLength, ccsid: columnCcsid },
        'CLOB',
        lobLength,
        null,
      );
    case 'BLOB':
      return spec({ kind: 'lob', lob: 'BLOB', length: lobLength, ccsid: 65535 }, 'BLOB', lobLength, null);
    case 'DBCLOB':
      return spec(
        { kind: 'lob', lob: 'DBCLOB', length: lobLength, ccsid: graphicCcsid },
        'DBCLOB',
        lobLength,
        null,
      );
    case 'NCLOB':
      return spec({ kind: 'lob', lob: 'DBCLOB', length: lobLength, ccsid: 1200 }, 'DBCLOB', lobLength, null);
    case 'XML':
      // Db2 for i keeps XML in UTF-8 (CCSID 1208) up to 2G.
      return spec(
        { kind: 'lob', lob: 'XML', length: 2_147_483_647, ccsid: 1208 },
        'XML',
        2_147_483_647,
        null,
      );
    case 'DECFLOAT': {
      const digits = p === 16 ? 16 : 34;
      return spec({ kind: 'decfloat', digits }, 'DECFLOAT', digits === 16 ? 8 : 16, null);
    }
    case 'BOOLEAN':
      return spec({ kind: 'boolean' }, 'BOOLEAN', 1, null);
    case 'ROWID':
      return spec({ kind: 'rowid' }, 'ROWID', ROWID_LENGTH, null);
    case 'DATALINK':
      // Accepted so a file can hold one; its value is neither stored nor journaled here.
      return unsupported(word, 'the journal agent does not replicate DATALINK values');
    case 'DECIMAL':
    case 'DEC':
      return spec({ kind: 'packed', precision: p || 5, scale: s }, 'DECIMAL', p || 5, s);
    case 'NUMERIC':
      return spec({ kind: 'zoned', precision: p || 5, scale: s }, 'NUMERIC', p || 5, s);
    case 'SMALLINT':
      return spec({ kind: 'binary', bytes: 2 }, 'SMALLINT', 2, 0);
    case 'INT':
    case 'INTEGER':
      return spec({ kind: 'binary', bytes: 4 }, 'INTEGER', 4, 0);
    case 'BIGINT':
      return spec({ kind: 'binary', bytes: 8 }, 'BIGINT', 8, 0);
    case 'REAL':
      return spec({ kind: 'float', bytes: 4 }, 'REAL', 4, null);
    case 'FLOAT':
    case 'DOUBLE':
      return spec({ kind: 'float', bytes: 8 }, 'DOUBLE', 8, null);
    case 'DATE':
      return spec({ kind: 'date', format: 'iso', ccsid: columnCcsid }, 'DATE', 10, null);
    case 'TIME':
      return spec({ kind: 'time', format: 'iso', ccsid: columnCcsid }, 'TIME', 8, null);
    case 'TIMESTAMP': {
      const precision = size.length ? p : 6;
      if (precision > 12) throw sqlError(-604, 'TIMESTAMP');
      return spec(
        { kind: 'timestamp', ccsid: columnCcsid, precision },
        'TIMESTMP',
        timestampLength(precision),
        precision,
      );
    }
    default:
      throw sqlError(-104, word, 'a data type');
  }
}

/** A column definition's spec: NOT NULL, and its default (WITH DEFAULT, DEFAULT v, or none). */
export function columnSpec(name: string, t: ReturnType<typeof columnType>): ColumnSpec {
  const notNull = t.rest.some((x, k) => isWord(x, 'NOT') && isWord(t.rest[k + 1], 'NULL'));
  const def = defaultOf(t.rest, t.type);
  if (t.type.kind === 'rowid') {
    // A ROWID is never null and is made by the database: GENERATED ALWAYS unless BY DEFAULT is said.
    const byDefault = t.rest.some((x, k) => isWord(x, 'BY') && isWord(t.rest[k + 1], 'DEFAULT'));
    return {
      name,
      type: t.type,
      nullable: false,
      sqlType: t.sqlType,
      length: t.length,
      scale: t.scale,
      defaultValue: null,
      hasDefault: true,
      text: '',
      generated: byDefault ? 'byDefault' : 'always',
    };
  }
  return {
    name,
    type: t.type,
    nullable: !notNull,
    sqlType: t.sqlType,
    length: t.length,
    scale: t.scale,
    defaultValue: def.value,
    hasDefault: def.has || !notNull,
    text: '',
  };
}

export function defaultOf(rest: Token[], type: FieldType): { has: boolean; value: SqlValue } {
  const at = rest.findIndex((t) => isWord(t, 'DEFAULT'));
  if (at < 0) return { has: false, value: null };
  const v = rest[at + 1];
  if (v && (v.kind === 'string' || v.kind === 'number'))
    return { has: true, value: v.kind === 'number' ? Number(v.value) : v.value };
  if (isOp(v, '-') && rest[at + 2]?.kind === 'number')
    return { has: true, value: -Number(rest[at + 2]?.value) };
  if (isWord(v, 'NULL')) return { has: true, value: null };
  // WITH DEFAULT and DEFAULT alone: blanks, zero, or the current date/time.
  const zero: Partial<Record<FieldType['kind'], SqlValue>> = {
    char: '',
    varchar: '',
    graphic: '',
    vargraphic: '',
    packed: 0,
    zoned: 0,
    binary: 0,
    float: 0,
    boolean: 0,
    date: '0001-01-01',
    time: '00:00:00',
    timestamp: '0001-01-01 00:00:00.000000',
  };
  return { has: true, value: zero[type.kind] ?? null };
}

export function createTable(ctx: QueryContext, tokens: Token[]): void {
  const { schema, name, next } = readName(ctx, tokens, 2);
  const lib = ctx.system.libraries.get(schema);
  if (!lib) throw sqlError(-204, schema, '*LIBL', 'LIB');
  if (!ctx.system.can(ctx.job, lib.authority, ['*EXECUTE', '*ADD', '*READ']))
    throw sqlError(-551, schema, 'QSYS', 'LIB');
  if (ctx.system.objectExists(schema, name)) throw sqlError(-601, name, schema, 'FILE');
  if (!isOp(tokens[next], '(')) throw sqlError(-104, tokens[next]?.text ?? '<END-OF-STATEMENT>', '(');
  const end = closing(tokens, next);
  const columns: ColumnSpec[] = [];
  let key: {
    columns: string[];
    unique: boolean;
    constraint: { name: string; type: 'PRIMARY KEY' | 'UNIQUE' };
  } | null = null;
  for (const part of splitCommas(tokens.slice(next + 1, end))) {
    let p = part;
    let constraintName: string | undefined;
    if (isWord(p[0], 'CONSTRAINT')) {
      constraintName = shortName(ctx, nameOf(p[1]), 'constraint name');
      p = p.slice(2);
    }
    if (isWord(p[0], 'PRIMARY', 'UNIQUE')) {
      const primary = isWord(p[0], 'PRIMARY');
      const open = p.findIndex((t) => isOp(t, '('));
      const names = splitCommas(p.slice(open + 1, closing(p, open))).map((x) => nameOf(x[0]) ?? '');
      if (!key || primary)
        key = {
          columns: names,
          unique: true,
          constraint: {
            name: constraintName ?? `Q_${schema}_${name}_${names[0]}_00001`,
            type: primary ? 'PRIMARY KEY' : 'UNIQUE',
          },
        };
      continue;
    }
    const column = shortName(ctx, nameOf(p[0]), 'column name');
    const { type, sqlType, length, scale, rest } = columnType(p.slice(1), ctx.system.ccsid);
    const primary = rest.some((t, k) => isWord(t, 'PRIMARY') && isWord(rest[k + 1], 'KEY'));
    const spec = columnSpec(column, { type, sqlType, length, scale, rest });
    columns.push({ ...spec, nullable: spec.nullable && !primary });
    if (primary)
      key = {
        columns: [column],
        unique: true,
        constraint: { name: `Q_${schema}_${name}_${column}_00001`, type: 'PRIMARY KEY' },
      };
  }
  for (const k of key?.columns ?? []) {
    const c = columns.find((x) => x.name === k);
    if (!c) throw sqlError(-205, k, name, schema);
    c.nullable = false;
  }
  const file = ctx.system.addFile(
    ctx.job,
    {
      library: schema,
      name,
      origin: 'sql',
      format: name,
      columns,
      key,
      reuseDeleted: true,
      maxMembers: 1,
      text: '',
    },
    name,
  );
  const qsqjrn = ctx.system.journals.get(`${schema}/QSQJRN`);
  if (qsqjrn && lib.schema) ctx.system.startJournaling(ctx.job, file, qsqjrn, '*AFTER');
}

export function createAlias(ctx: QueryContext, tokens: Token[]): void {
  const alias = readName(ctx, tokens, 2);
  if (!isWord(tokens[alias.next], 'FOR')) throw sqlError(-104, tokens[alias.next]?.text ?? '', 'FOR');
  const target = readName(ctx, tokens, alias.next + 1);
  let member: string | null = null;
  if (isOp(tokens[target.next], '(')) member = nameOf(tokens[target.next + 1]) ?? null;
  if (ctx.system.objectExists(alias.schema, alias.name))
    throw sqlError(-601, alias.name, alias.schema, 'FILE');
  const file = ctx.system.file(target.schema, target.name);
  if (!file) throw sqlError(-204, target.name, target.schema, 'FILE');
  if (member) ctx.system.member(file, member);
  ctx.system.aliases.set(`${alias.schema}/${alias.name}`, {
    library: alias.schema,
    name: alias.name,
    target: { library: target.schema, file: target.name, member },
    authority: newAuthority(ctx.job.profile.name),
  });
}

export function drop(ctx: QueryContext, tokens: Token[]): void {
  const what = tokens[1]?.value;
  const { schema, name } = readName(ctx, tokens, 2);
  if (what === 'ALIAS') {
    if (!ctx.system.aliases.delete(`${schema}/${name}`)) throw sqlError(-204, name, schema, 'ALIAS');
    return;
  }
  const file = ctx.system.file(schema, name);
  if (!file) throw sqlError(-204, name, schema, 'FILE');
  if (!ctx.system.can(ctx.job, file.authority, ['*OBJEXIST', '*OBJOPR']))
    throw sqlError(-551, name, schema, 'FILE');
  ctx.system.deleteFile(file);
}
