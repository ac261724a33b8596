// CREATE TABLE: columns, keys and CHECK constraints from the statement's definitions.
import type { StatementResult } from '../tds/hostSession';
import type { SandboxDatabase } from './database';
import { SqlError } from './basics';
import type { ColumnDef, KeyDef } from './schema';
import { isOp, isWord, nameOf, solid, splitCommas, syntax, type Token } from './lexer';
import { columnDef } from './columnDefs';
import { checkAt, generatedName } from './constraintText';
import type { CheckDef } from './constraints';
import { aliasType } from './aliasTypes';
import { readName } from './tableNames';

export function createTable(db: SandboxDatabase, tokens: Token[]): StatementResult {
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
