// A Db2 for i query rewritten for the SQLite behind the sandbox: library.file names become the
// member's table, QSYS2 views and table functions become temporary tables filled for this query,
// RRN(t), special registers, FETCH FIRST and OFFSET take SQLite's spelling. Everything else passes.
import type { Right } from '../system/authority';
import { q, type Member, type PhysicalFile, type SqlValue } from '../system/files';
import { sqlError } from '../system/messages';
import type { Job, SimulatedIbmi } from '../system/simulatedIbmi';
import { catalogView, isCatalogView, tableFunction, type Relation } from './catalog';
import { lengthKind } from '../system/length';
import type { FieldType } from '../../../lib/ibmi/recordImage';
import { closing, isOp, isWord, nameOf, splitCommas, type Token } from './lexer';

export interface QueryContext {
  system: SimulatedIbmi;
  job: Job;
  schema: string;
}

export interface Translated {
  sql: string;
  bound: SqlValue[];
  temps: string[];
}

export class ParamCursor {
  i = 0;
  constructor(readonly values: readonly SqlValue[]) {}
  next(): SqlValue {
    if (this.i >= this.values.length) throw sqlError(-313);
    return this.values[this.i++] ?? null;
  }
}

const CLAUSE_END = new Set([
  'WHERE',
  'GROUP',
  'ORDER',
  'FETCH',
  'HAVING',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'ON',
  'OFFSET',
  'LIMIT',
  'WITH',
  'FOR',
  'OPTIMIZE',
  'SET',
  'VALUES',
  'SELECT',
]);
const JOIN_WORDS = new Set(['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'OUTER', 'EXCEPTION']);
let temps = 0;

/** A catalog column for SQLite; text compares as Db2 compares it, trailing blanks ignored. */
const declaration = (c: string) =>
  c.replace(/^(\S+)/, (n) => q(n)) + (/^\S+ (VAR)?CHAR\(/.test(c) ? ' COLLATE RTRIM' : '');

function materialize(ctx: QueryContext, relation: Relation, name: string): string {
  const db = ctx.system.db;
  db.exec(`DROP TABLE IF EXISTS temp.${q(name)}`);
  db.exec(`CREATE TEMP TABLE ${q(name)} (${relation.columns.map(declaration).join(', ')})`);
  if (relation.rows.length) {
    const insert = db.prepare(
      `INSERT INTO temp.${q(name)} VALUES (${relation.columns.map(() => '?').join(', ')})`,
    );
    db.transaction(() => relation.rows.forEach((r) => insert.run(...r)))();
  }
  return name;
}

/** The SQLite table a Db2 name refers to, checked for `needed` authority. */
export function resolveTable(
  ctx: QueryContext,
  schema: string | undefined,
  name: string,
  needed: readonly Right[],
): { table: string; file: ReturnType<SimulatedIbmi['file']>; memberName: string | null } {
  const { file, member } = resolveMember(ctx, schema, name, needed);
  return { table: member.table, file, memberName: member.name };
}

/** The file and member a Db2 name refers to (an alias's member included), checked for `needed` authority. */
export function resolveMember(
  ctx: QueryContext,
  schema: string | undefined,
  name: string,
  needed: readonly Right[],
): { file: PhysicalFile; member: Member } {
  const lib = schema ?? ctx.schema;
  const alias = ctx.system.aliases.get(`${lib}/${name}`);
  const target = alias?.target ?? { library: lib, file: name, member: null };
  const libObject = ctx.system.libraries.get(target.library);
  if (!libObject) throw sqlError(-204, target.library, '*LIBL', 'LIB');
  const file = ctx.system.file(target.library, target.file);
  if (!file) throw sqlError(-204, name, lib, 'FILE');
  if (!ctx.system.can(ctx.job, libObject.authority, ['*EXECUTE']))
    throw sqlError(-551, target.library, 'QSYS', 'LIB');
  if (!ctx.system.can(ctx.job, file.authority, needed)) throw sqlError(-551, file.name, file.library, 'FILE');
  return { file, member: ctx.system.member(file, target.member) };
}

function literal(t: Token | undefined, params: ParamCursor): SqlValue {
  if (!t) return null;
  if (t.kind === 'string') return t.value;
  if (t.kind === 'number') return Number(t.value);
  if (t.kind === 'param') return params.next();
  if (isWord(t, 'NULL', 'DEFAULT')) return null;
  throw sqlError(-104, t.text, "' ? NULL");
}

function specialRegister(ctx: QueryContext, words: string[]): SqlValue | undefined {
  const ts = ctx.system.timestamp();
  const minutes = ctx.system.utcOffsetMinutes;
  const registers: Record<string, SqlValue> = {
    USER: ctx.job.profile.name,
    SCHEMA: ctx.schema,
    SERVER: ctx.system.systemName,
    TIMESTAMP: ts,
    DATE: ts.slice(0, 10),
    TIME: ts.slice(11, 19),
    // CURRENT TIMEZONE is a time duration, DECIMAL(6,0) hhmmss.
    TIMEZONE:
      Math.sign(minutes) * (Math.floor(Math.abs(minutes) / 60) * 10000 + (Math.abs(minutes) % 60) * 100),
  };
  return registers[words.join(' ')];
}

/** The types of the columns of the files the statement reads, by column name (for LENGTH and CAST). */
function columnTypesOf(ctx: QueryContext, tokens: Token[]): Map<string, FieldType> {
  const kinds = new Map<string, FieldType>();
  if (!tokens.some((t) => isWord(t, 'LENGTH', 'CAST'))) return kinds;
  tokens.forEach((t, k) => {
    if (!isWord(t, 'FROM', 'JOIN')) return;
    const first = tokens[k + 1];
    const dotted = isOp(tokens[k + 2], '.');
    const name = nameOf(dotted ? tokens[k + 3] : first);
    if (!name || !(first?.kind === 'word' || first?.kind === 'quoted')) return;
    try {
      const { file } = resolveMember(ctx, dotted ? first.value : undefined, name, []);
      for (const c of file.columns) kinds.set(c.name, c.type);
    } catch {
      // Not a file (a catalog view, a table function): the statement's own resolution says why.
    }
  });
  return kinds;
}

/**
 * `CAST(column AS CHAR(n) FOR BIT DATA)` (or VARCHAR) of a character column, as the DB2_BIT_DATA
 * function (system/bitData.ts); undefined for any other cast, which SQLite's CAST takes as it is.
 */
function bitDataCast(inner: Token[], columnTypes: Map<string, FieldType>): string | undefined {
  const as = inner.findIndex((x) => isWord(x, 'AS'));
  const column = inner.slice(0, as);
  const [kind, open, size, close, forWord, bit, data] = inner.slice(as + 1);
  if (
    as < 1 ||
    column.length > 3 ||
    !isWord(kind, 'CHAR', 'VARCHAR') ||
    !isOp(open, '(') ||
    !isOp(close, ')')
  )
    return undefined;
  if (size?.kind !== 'number' || !isWord(forWord, 'FOR') || !isWord(bit, 'BIT') || !isWord(data, 'DATA'))
    return undefined;
  const type = columnTypes.get(nameOf(column.at(-1)) ?? '');
  if (
    !type ||
    !(type.kind === 'char' || type.kind === 'varchar' || type.kind === 'hex' || type.kind === 'varhex')
  )
    return undefined;
  const ccsid = 'ccsid' in type ? type.ccsid : 65535;
  const ref = column.map((x) => (x.kind === 'quoted' ? q(x.value) : x.kind === 'word' ? x.value : x.text));
  return `DB2_BIT_DATA(${ref.join(' ')}, ${ccsid}, ${size.value}, ${isWord(kind, 'CHAR') ? 1 : 0})`;
}

export function translate(
  ctx: QueryContext,
  tokens: Token[],
  params: ParamCursor,
  needed: readonly Right[] = ['*OBJOPR', '*READ'],
): Translated {
  const out: string[] = [];
  const bound: SqlValue[] = [];
  const made: string[] = [];
  const views = new Map<string, string>();
  const fromDepth: boolean[] = [false];
  let depth = 0;
  let pendingOffset: string | null = null;
  let limitWritten = false;
  let expectTable = false;
  const columnTypes = columnTypesOf(ctx, tokens);

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    const next = tokens[i + 1];
    if (isOp(t, '(')) {
      depth++;
      fromDepth[depth] = false;
      out.push('(');
      continue;
    }
    if (isOp(t, ')')) {
      depth--;
      out.push(')');
      continue;
    }
    if (t.kind === 'word' && (t.value === 'FROM' || t.value === 'JOIN')) {
      fromDepth[depth] = true;
      expectTable = true;
      out.push(t.value);
      continue;
    }
    if (t.kind === 'word' && CLAUSE_END.has(t.value)) fromDepth[depth] = false;
    if (isOp(t, ',') && fromDepth[depth]) {
      expectTable = true;
      out.push(',');
      continue;
    }
    if (expectTable && !JOIN_WORDS.has(t.value)) {
      expectTable = false;
      if (isWord(t, 'TABLE') && isOp(next, '(')) {
        const end = closing(tokens, i + 1);
        const inner = tokens.slice(i + 2, end);
        const [schemaToken, dot, nameToken, open] = inner;
        if (!isOp(dot, '.') || !isOp(open, '(')) throw sqlError(-104, inner[0]?.text ?? 'TABLE', 'QSYS2.');
        const argsEnd = closing(inner, 3);
        const args = splitCommas(inner.slice(4, argsEnd))
          .filter((a) => a.length)
          .map((a) => literal(a[0], params));
        if (nameOf(schemaToken) !== 'QSYS2')
          throw sqlError(-204, nameOf(nameToken) ?? '', nameOf(schemaToken) ?? '', 'FUNCTION');
        const temp = materialize(ctx, tableFunction(ctx, nameOf(nameToken) ?? '', args), `tf_${++temps}`);
        made.push(temp);
        out.push(q(temp));
        i = end;
        continue;
      }
      if (t.kind === 'word' || t.kind === 'quoted') {
        let schema: string | undefined;
        let name = t.value;
        if (isOp(next, '.') && (tokens[i + 2]?.kind === 'word' || tokens[i + 2]?.kind === 'quoted')) {
          schema = t.value;
          name = tokens[i + 2]?.value ?? '';
          i += 2;
        }
        let table: string;
        if (schema && isCatalogView(schema, name)) {
          const key = `cat_${schema}_${name}`;
          table = views.get(key) ?? materialize(ctx, catalogView(ctx, schema, name), key);
          views.set(key, table);
        } else table = resolveTable(ctx, schema, name, needed).table;
        const after = tokens[i + 1];
        const aliased =
          isWord(after, 'AS') ||
          (after?.kind === 'word' && !CLAUSE_END.has(after.value) && !JOIN_WORDS.has(after.value)) ||
          after?.kind === 'quoted';
        out.push(aliased ? q(table) : `${q(table)} AS ${q(name)}`);
        continue;
      }
    }
    if (isWord(t, 'LENGTH') && isOp(next, '(')) {
      const end = closing(tokens, i + 1);
      const inner = tokens.slice(i + 2, end);
      const type =
        inner.length > 0 && inner.length <= 3 ? columnTypes.get(nameOf(inner.at(-1)) ?? '') : undefined;
      const kind = type && lengthKind(type);
      if (kind === 'xml') throw sqlError(-171, '1', 'LENGTH');
      if (kind) {
        const column = inner.map((x) =>
          x.kind === 'quoted' ? q(x.value) : x.kind === 'word' ? x.value : x.text,
        );
        out.push(`DB2_LENGTH(${column.join(' ')}, '${kind}')`);
        i = end;
        continue;
      }
    }
    if (isWord(t, 'CAST') && isOp(next, '(')) {
      const bitData = bitDataCast(tokens.slice(i + 2, closing(tokens, i + 1)), columnTypes);
      if (bitData) {
        out.push(bitData);
        i = closing(tokens, i + 1);
        continue;
      }
    }
    if (isWord(t, 'RRN') && isOp(next, '(')) {
      const end = closing(tokens, i + 1);
      const target = tokens.slice(i + 2, end).filter((x) => !isOp(x, '.'));
      // Parenthesised, so an unnamed RRN() is named by position as Db2 names it, not __RRN.
      out.push(`(${q(target.at(-1)?.value ?? '')}.__RRN)`);
      i = end;
      continue;
    }
    if (isWord(t, 'CURRENT') && next?.kind === 'word') {
      const two = isWord(next, 'TIME') && isWord(tokens[i + 2], 'ZONE') ? ['TIMEZONE'] : [next.value];
      const value = specialRegister(ctx, two);
      if (value !== undefined) {
        bound.push(value);
        out.push('?');
        i += two[0] === 'TIMEZONE' && isWord(next, 'TIME') ? 2 : 1;
        continue;
      }
    }
    if (
      t.kind === 'word' &&
      /^(CURRENT_(USER|SCHEMA|TIMESTAMP|DATE|TIME|SERVER)|USER|SESSION_USER)$/.test(t.value) &&
      !isOp(tokens[i - 1], '.') &&
      !isOp(next, '(')
    ) {
      bound.push(specialRegister(ctx, [t.value.replace(/^CURRENT_|^SESSION_/, '')]) ?? null);
      out.push('?');
      continue;
    }
    if (isWord(t, 'FETCH') && isWord(next, 'FIRST', 'NEXT')) {
      let j = i + 2;
      let count = '1';
      const n = tokens[j];
      if (n?.kind === 'number') {
        count = n.value;
        j++;
      } else if (n?.kind === 'param') {
        bound.push(params.next());
        count = '?';
        j++;
      }
      if (isWord(tokens[j], 'ROW', 'ROWS')) j++;
      if (isWord(tokens[j], 'ONLY')) j++;
      out.push(`LIMIT ${count}`);
      limitWritten = true;
      if (pendingOffset) out.push(`OFFSET ${pendingOffset}`);
      i = j - 1;
      continue;
    }
    if (isWord(t, 'OFFSET') && (next?.kind === 'number' || next?.kind === 'param')) {
      const value = next.kind === 'number' ? next.value : String(params.next());
      if (limitWritten) out.push(`OFFSET ${value}`);
      else pendingOffset = value;
      i += isWord(tokens[i + 2], 'ROW', 'ROWS') ? 2 : 1;
      continue;
    }
    if (
      isWord(t, 'WITH') &&
      isWord(next, 'UR', 'NC', 'CS', 'RS', 'RR', 'CHG', 'ALL', 'NONE') &&
      i + 2 >= tokens.length
    )
      break;
    if (isWord(t, 'FOR') && isWord(next, 'READ', 'FETCH') && isWord(tokens[i + 2], 'ONLY')) {
      i += 2;
      continue;
    }
    if (isWord(t, 'OPTIMIZE') && isWord(next, 'FOR')) {
      i += 3;
      if (isWord(tokens[i + 1], 'ROW', 'ROWS')) i++;
      continue;
    }
    if (isWord(t, 'CONCAT') && !isOp(next, '(')) {
      out.push('||');
      continue;
    }
    if (t.kind === 'param') {
      bound.push(params.next());
      out.push('?');
      continue;
    }
    if (t.kind === 'string') out.push(`'${t.value.replaceAll("'", "''")}'`);
    else if (t.kind === 'hex') out.push(`X'${t.value}'`);
    else if (t.kind === 'quoted') out.push(q(t.value));
    else if (t.kind === 'op' && t.value === '¬=') out.push('<>');
    else out.push(t.kind === 'word' ? t.value : t.text);
  }
  if (pendingOffset && !limitWritten) out.push(`LIMIT -1 OFFSET ${pendingOffset}`);
  return { sql: out.join(' '), bound, temps: made };
}
