// ALTER TABLE as Db2 for i takes it: ADD [COLUMN] c type, DROP [COLUMN] c, ALTER [COLUMN] c SET DATA
// TYPE type (a length or precision that grows; anything that would lose data is SQL0190). The file is
// changed in place, its rows kept, and journaled as one D CG entry.
import type { ColumnSpec } from '../system/files';
import { sqlError } from '../system/messages';
import { columnSpec, columnType, readName, shortName } from './ddl';
import { isWord, nameOf, type Token } from './lexer';
import type { QueryContext } from './translate';

/** Whether a column's new definition holds every value of its old one. */
function widens(old: ColumnSpec, next: ColumnSpec): boolean {
  const a = old.type;
  const b = next.type;
  if (a.kind === 'packed' || a.kind === 'zoned')
    return (
      (b.kind === 'packed' || b.kind === 'zoned') &&
      b.scale >= a.scale &&
      b.precision - b.scale >= a.precision - a.scale
    );
  if (a.kind !== b.kind) return a.kind === 'char' && b.kind === 'varchar' && b.length >= a.length;
  if ('length' in a && 'length' in b) return b.length >= a.length;
  if (a.kind === 'binary' && b.kind === 'binary') return b.bytes >= a.bytes;
  return true;
}

export function alterTable(ctx: QueryContext, tokens: Token[]): void {
  const { schema, name, next } = readName(ctx, tokens, 2);
  const file = ctx.system.file(schema, name);
  if (!file) throw sqlError(-204, name, schema, 'FILE');
  if (
    !ctx.system.can(ctx.job, file.authority, ['*OBJALTER']) &&
    !ctx.system.can(ctx.job, file.authority, ['*OBJMGT'])
  )
    throw sqlError(-551, name, schema, 'FILE');
  let at = next;
  const action = tokens[at]?.value.toUpperCase();
  at++;
  if (isWord(tokens[at], 'COLUMN')) at++;
  const column = shortName(ctx, nameOf(tokens[at]), 'column name');
  const rest = tokens.slice(at + 1);
  const columns = [...file.columns];
  const index = columns.findIndex((c) => c.name === column);
  if (action === 'ADD') {
    if (index >= 0) throw sqlError(-612, column);
    const spec = columnSpec(column, columnType(rest, ctx.system.ccsid));
    // Db2 for i: a NOT NULL column added to a table needs a default for the rows already there.
    if (!spec.nullable && !spec.hasDefault) throw sqlError(-407, column);
    columns.push(spec);
  } else if (action === 'DROP') {
    if (index < 0) throw sqlError(-205, column, name, schema);
    if (file.key?.columns.includes(column)) throw sqlError(-196, column);
    columns.splice(index, 1);
  } else if (action === 'ALTER') {
    const old = columns[index];
    if (!old) throw sqlError(-205, column, name, schema);
    if (!(isWord(rest[0], 'SET') && isWord(rest[1], 'DATA') && isWord(rest[2], 'TYPE')))
      throw sqlError(-104, rest[0]?.text ?? '<END-OF-STATEMENT>', 'SET DATA TYPE');
    const { type, sqlType, length, scale } = columnType(
      rest.slice(3),
      'ccsid' in old.type ? old.type.ccsid : ctx.system.ccsid,
    );
    const changed: ColumnSpec = { ...old, type, sqlType, length, scale };
    if (!widens(old, changed)) throw sqlError(-190, column);
    columns[index] = changed;
  } else throw sqlError(-104, tokens[next]?.text ?? '<END-OF-STATEMENT>', 'ADD DROP ALTER');
  ctx.system.alterFile(ctx.job, file, columns);
}
