// The plain read of a member whose records are pending (Member.pending: DSPJRN's outfile, most often
// read once, whole, then deleted): `SELECT c1, c2, … FROM lib.file [ORDER BY RRN(file)]`, answered from
// the records as made, each value as the member's SQLite table would have given it back (its column's
// type affinity, then runQuery's conversion). Any other statement, or a value whose storage would change
// it, goes to the table, the records written into it first.
import type { IbmiRow } from '../../../lib/ibmi/connection';
import { sqliteDecl, type SqlValue } from '../system/files';
import { isOp, isWord, nameOf, type Token } from './lexer';
import { converterFor } from './results';
import { isCatalogView } from './catalog';
import { resolveMember, type QueryContext } from './translate';

type Affinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';

/** SQLite's affinity of a declared type (sqlite.org/datatype3.html, 3.1). */
function affinityOf(declared: string): Affinity {
  const d = declared.toUpperCase();
  if (d.includes('INT')) return 'INTEGER';
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return 'TEXT';
  if (d.includes('BLOB') || d === '') return 'BLOB';
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

const LOOKS_NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
/** A value whose storage is not plain here: the table is asked instead. */
const ASK_THE_TABLE = Symbol('ask the table');

/** A bound value as SQLite stores and returns it (safe integers on), or ASK_THE_TABLE. */
function stored(affinity: Affinity, v: SqlValue): unknown {
  if (v === null || Buffer.isBuffer(v)) return v;
  if (typeof v === 'string')
    return affinity !== 'TEXT' && affinity !== 'BLOB' && LOOKS_NUMERIC.test(v) ? ASK_THE_TABLE : v;
  if (affinity === 'TEXT' || affinity === 'REAL') return ASK_THE_TABLE;
  if (typeof v === 'bigint') return v;
  if (Number.isInteger(v)) return Number.isSafeInteger(v) ? BigInt(v) : ASK_THE_TABLE;
  return v;
}

/** The select list's names, the file's name and where it ends; null for any other shape. */
function plainSelect(
  tokens: Token[],
): { names: string[]; schema?: string; file: string; next: number } | null {
  if (!isWord(tokens[0], 'SELECT')) return null;
  const names: string[] = [];
  let i = 1;
  for (;;) {
    const name = nameOf(tokens[i]);
    if (!name || tokens[i]?.kind !== 'word') return null;
    names.push(name);
    i++;
    if (isWord(tokens[i], 'FROM')) break;
    if (!isOp(tokens[i], ',')) return null;
    i++;
  }
  const first = nameOf(tokens[i + 1]);
  if (!first) return null;
  if (isOp(tokens[i + 2], '.')) {
    const file = nameOf(tokens[i + 3]);
    return file ? { names, schema: first, file, next: i + 4 } : null;
  }
  return { names, file: first, next: i + 2 };
}

export function readPending(ctx: QueryContext, tokens: Token[]): IbmiRow[] | null {
  const select = plainSelect(tokens);
  if (!select) return null;
  const { names, schema, file: fileName, next } = select;
  const rest = tokens.slice(next);
  const inRrnOrder =
    rest.length === 0 ||
    (rest.length === 6 &&
      isWord(rest[0], 'ORDER') &&
      isWord(rest[1], 'BY') &&
      isWord(rest[2], 'RRN') &&
      isOp(rest[3], '(') &&
      nameOf(rest[4]) === fileName &&
      isOp(rest[5], ')'));
  if (!inRrnOrder || (schema && isCatalogView(schema, fileName))) return null;
  const { file, member } = resolveMember(ctx, schema, fileName, ['*OBJOPR', '*READ']);
  const pending = member.pending;
  if (!pending) return null;
  const positions = names.map((n) => file.columns.findIndex((c) => c.name === n));
  if (positions.some((p) => p < 0)) return null;
  const readers = positions.map((p, k) => {
    const column = file.columns[p];
    const declared = column ? sqliteDecl(column) : '';
    return { name: names[k] ?? '', affinity: affinityOf(declared), convert: converterFor(declared) };
  });
  const rows: IbmiRow[] = [];
  for (const fields of pending.fields(positions)) {
    const row: IbmiRow = {};
    for (let k = 0; k < readers.length; k++) {
      const reader = readers[k] as (typeof readers)[number];
      const value = stored(reader.affinity, fields[k] ?? null);
      if (value === ASK_THE_TABLE) return null;
      row[reader.name] = reader.convert(value);
    }
    rows.push(row);
  }
  return rows;
}
