// INSERT, UPDATE and DELETE: SQLite works out which records and which values, then each change goes
// through the record layer (system.ts), which keeps RRNs and writes the journal entries.
import {
  assign,
  readRecord,
  type ColumnSpec,
  type PhysicalFile,
  type Row,
  type SqlValue,
} from '../system/files';
import { sqlError } from '../system/messages';
import { closing, isOp, isWord, nameOf, splitCommas, type Token } from './lexer';
import { readName } from './ddl';
import { runQuery, toSqlValue } from './results';
import { resolveTable, translate, type ParamCursor, type QueryContext } from './translate';

function target(ctx: QueryContext, tokens: Token[], at: number, needed: Parameters<typeof resolveTable>[3]) {
  const { schema, name, next } = readName(ctx, tokens, at);
  const resolved = resolveTable(ctx, schema, name, needed);
  const file = resolved.file as PhysicalFile;
  return { schema, name, next, file, member: ctx.system.member(file, resolved.memberName) };
}

const column = (file: PhysicalFile, name: string): ColumnSpec => {
  const c = file.columns.find((x) => x.name === name);
  if (!c) throw sqlError(-205, name, file.name, file.library);
  return c;
};

function values(ctx: QueryContext, tokens: Token[], params: ParamCursor): SqlValue[] {
  const t = translate(ctx, tokens, params);
  const rows = ctx.system.db
    .prepare(`SELECT ${t.sql}`)
    .raw(true)
    .safeIntegers(true)
    .all(...t.bound) as SqlValue[][];
  return rows[0] ?? [];
}

export function insert(ctx: QueryContext, tokens: Token[], params: ParamCursor): number {
  const { file, member, next } = target(ctx, tokens, 2, ['*OBJOPR', '*ADD']);
  let i = next;
  let names = file.columns.map((c) => c.name);
  if (isOp(tokens[i], '(')) {
    const end = closing(tokens, i);
    names = splitCommas(tokens.slice(i + 1, end)).map((p) => nameOf(p[0]) ?? '');
    names.forEach((n) => column(file, n));
    i = end + 1;
  }
  let rows: SqlValue[][];
  if (isWord(tokens[i], 'VALUES')) {
    const body = tokens.slice(i + 1);
    const tuples = splitCommas(body).map((t) =>
      isOp(t[0], '(') && closing(t, 0) === t.length - 1 ? t.slice(1, -1) : t,
    );
    // One tuple without parentheses holds several values: VALUES (a, b) and VALUES a, b differ only there.
    const asRows = isOp(body[0], '(') ? tuples : [body];
    rows = asRows.map((tuple) => values(ctx, tuple, params));
  } else {
    const t = translate(ctx, tokens.slice(i), params);
    rows = ctx.system.db
      .prepare(t.sql)
      .raw(true)
      .safeIntegers(true)
      .all(...t.bound) as SqlValue[][];
  }
  for (const r of rows) {
    if (r.length !== names.length) throw sqlError(-117);
    const row: Row = {};
    for (const c of file.columns) {
      const at = names.indexOf(c.name);
      if (at >= 0 && c.generated === 'always') throw sqlError(-798, c.name);
      if (at >= 0) row[c.name] = assign(c, r[at] ?? null);
      else if (c.hasDefault) row[c.name] = assign(c, c.defaultValue);
      else throw sqlError(-407, c.name);
    }
    ctx.system.insertRecord(ctx.job, file, member, row);
  }
  return rows.length;
}

/** `[AS] alias` after a table name, when there is one. */
function correlation(tokens: Token[], at: number): { alias: string | null; next: number } {
  if (isWord(tokens[at], 'AS')) return { alias: nameOf(tokens[at + 1]) ?? null, next: at + 2 };
  const t = tokens[at];
  if (t && (t.kind === 'word' || t.kind === 'quoted') && !isWord(t, 'SET', 'WHERE', 'WITH'))
    return { alias: t.value, next: at + 1 };
  return { alias: null, next: at };
}

export function update(ctx: QueryContext, tokens: Token[], params: ParamCursor): number {
  const t = target(ctx, tokens, 1, ['*OBJOPR', '*UPD', '*READ']);
  const { alias, next } = correlation(tokens, t.next);
  if (!isWord(tokens[next], 'SET')) throw sqlError(-104, tokens[next]?.text ?? '<END-OF-STATEMENT>', 'SET');
  const whereAt = tokens.findIndex((x, k) => k > next && isWord(x, 'WHERE') && depthAt(tokens, k) === 0);
  const sets = splitCommas(tokens.slice(next + 1, whereAt < 0 ? undefined : whereAt)).map((p) => {
    const eq = p.findIndex((x) => isOp(x, '='));
    const c = column(t.file, nameOf(p[eq - 1]) ?? '');
    if (c.generated === 'always') throw sqlError(-798, c.name);
    return { column: c, expr: p.slice(eq + 1) };
  });
  const ref = alias ?? t.name;
  const select: Token[] = [
    ...lexed(`SELECT ${ref}.__RRN AS RECNBR__`),
    ...sets.flatMap((s) => [comma, open, ...s.expr, close]),
    ...lexed('FROM'),
    ...tokens.slice(1, next),
    ...(whereAt < 0 ? [] : tokens.slice(whereAt)),
  ];
  const tr = translate(ctx, select, params, ['*OBJOPR', '*UPD', '*READ']);
  const changes = runQuery(ctx.system.db, tr.sql, tr.bound);
  for (const change of changes) {
    const vals = Object.values(change);
    const rrn = Number(vals[0]);
    const before = readRecord(ctx.system.db, t.member, rrn);
    if (!before) continue;
    const row: Row = { ...before };
    // The SET values come back as a query answers them (bytes as Uint8Array): stored as SQL values.
    sets.forEach((s, k) => (row[s.column.name] = assign(s.column, toSqlValue(vals[k + 1] ?? null))));
    ctx.system.updateRecord(ctx.job, t.file, t.member, rrn, row);
  }
  return changes.length;
}

export function remove(ctx: QueryContext, tokens: Token[], params: ParamCursor): number {
  const t = target(ctx, tokens, 2, ['*OBJOPR', '*DLT']);
  const { alias, next } = correlation(tokens, t.next);
  const ref = alias ?? t.name;
  const select: Token[] = [
    ...lexed(`SELECT ${ref}.__RRN FROM`),
    ...tokens.slice(2, next),
    ...tokens.slice(next),
  ];
  const needed =
    next < tokens.length ? (['*OBJOPR', '*DLT', '*READ'] as const) : (['*OBJOPR', '*DLT'] as const);
  const tr = translate(ctx, select, params, needed);
  const rrns = (
    ctx.system.db
      .prepare(tr.sql)
      .raw(true)
      .all(...tr.bound) as number[][]
  ).map((r) => Number(r[0]));
  for (const rrn of rrns) ctx.system.deleteRecord(ctx.job, t.file, t.member, rrn);
  return rrns.length;
}

function depthAt(tokens: Token[], at: number): number {
  let d = 0;
  for (let k = 0; k < at; k++) {
    if (isOp(tokens[k], '(')) d++;
    if (isOp(tokens[k], ')')) d--;
  }
  return d;
}

const op = (value: string): Token => ({ kind: 'op', value, text: value });
const comma = op(',');
const open = op('(');
const close = op(')');
const lexed = (text: string): Token[] =>
  text.split(/\s+/).flatMap((w) => {
    const [a, b] = w.split('.');
    return b === undefined
      ? [{ kind: 'word' as const, value: w, text: w }]
      : [
          { kind: 'word' as const, value: a ?? '', text: a ?? '' },
          op('.'),
          { kind: 'word' as const, value: b, text: b },
        ];
  });
