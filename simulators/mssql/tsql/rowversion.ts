// rowversion ("rowversion (Transact-SQL)"): eight bytes from the database's counter (@@DBTS), taken
// anew by every insert and update of a row. The counter lives in __dbts so every session shares it;
// a write loads it, rows draw from it (TSQL_ROWVERSION in the column's DEFAULT and in UPDATE's SET),
// and the write stores it back — under SQLite's write lock, so no two sessions draw the same value.
import type Database from 'better-sqlite3';
import { quote } from './basics';
import type { TableInfo } from './schema';
import type { Token } from './lexer';

export const ROWVERSION_DDL = `CREATE TABLE __dbts (v INTEGER NOT NULL); INSERT INTO __dbts VALUES (2000);`;

export const ROWVERSION_DEFAULT = 'TSQL_ROWVERSION()';

export class RowversionCounter {
  private next: bigint | undefined;

  /** The function TSQL_ROWVERSION: the next value, big-endian as SQL Server shows it. */
  draw(): Buffer {
    if (this.next === undefined) throw new Error('A rowversion was drawn outside a write.');
    this.next += 1n;
    const out = Buffer.alloc(8);
    out.writeBigUInt64BE(this.next);
    return out;
  }

  /** Runs a write to a table with a rowversion column, with the counter loaded and stored back. */
  during<T>(db: Database.Database, work: () => T): T {
    this.next = db.prepare<[], { v: bigint }>('SELECT v FROM __dbts').get()?.v ?? 2000n;
    try {
      const result = work();
      db.prepare('UPDATE __dbts SET v = ?').run(this.next);
      return result;
    } finally {
      this.next = undefined;
    }
  }
}

export const rowversionColumn = (table: TableInfo | undefined) =>
  table?.columns.find((c) => c.type.name === 'rowversion');

/** UPDATE … SET: the row's rowversion is set anew by the same statement. */
export function withRowversionSet(tokens: Token[], column: string): Token[] {
  let depth = 0;
  const at = tokens.findIndex((t) => {
    if (t.kind === 'op' && t.text === '(') depth++;
    if (t.kind === 'op' && t.text === ')') depth--;
    return depth === 0 && t.kind === 'word' && t.text.toLowerCase() === 'set';
  });
  if (at < 0) return tokens;
  const assignment = ` ${quote(column)} = ${ROWVERSION_DEFAULT},`;
  return [
    ...tokens.slice(0, at + 1),
    { kind: 'op', text: assignment, value: assignment },
    ...tokens.slice(at + 1),
  ];
}
