// A column definition as CREATE TABLE and ALTER TABLE … ADD write it ("CREATE TABLE (Transact-SQL)",
// column_definition): name, type, NULL or NOT NULL, IDENTITY, DEFAULT, and the column constraints
// PRIMARY KEY, UNIQUE and CHECK, each optionally named by CONSTRAINT name.
import { SqlError } from './basics';
import type { ColumnDef } from './schema';
import { isOp, isWord, nameOf, textOf, type Token } from './lexer';
import { parseTypeName, TypeNameError } from './typeNames';
import { checkAt, checkSql } from './constraintText';
import type { AliasType } from './aliasTypes';

/** One column definition of CREATE TABLE or ALTER TABLE … ADD: name, type, NULL, IDENTITY, DEFAULT, PRIMARY KEY. */
export function columnDef(
  def: Token[],
  position: number,
  addKey: (kind: 'PK' | 'UQ', clustered: boolean, column: string, name?: string) => void,
  aliases?: (name: string) => AliasType | undefined,
): ColumnDef {
  const column: ColumnDef = { name: nameOf(def[0]), type: { name: 'int' }, nullable: true };
  // The type: a word, then (n), (n,m) or (max); or an alias type, `Name` or `dbo.Name`.
  let typeEnd = 2;
  if (isOp(def[2], '(')) typeEnd = def.findIndex((t, k) => k > 2 && isOp(t, ')')) + 1;
  else if (isOp(def[2], '.')) typeEnd = 4;
  try {
    column.type = parseTypeName(textOf(def.slice(1, typeEnd)));
  } catch (error) {
    const named = typeEnd === 4 ? `${nameOf(def[1])}.${nameOf(def[3])}` : nameOf(def[1]);
    const alias = typeEnd <= 4 ? aliases?.(named) : undefined;
    if (!alias) {
      if (error instanceof TypeNameError)
        throw new SqlError({
          number: 2715,
          state: 6,
          class: 16,
          message: `Column, parameter, or variable #${position}: ${error.message}`,
        });
      throw error;
    }
    column.type = alias.type;
    column.aliasTypeId = alias.userTypeId;
    column.nullable = alias.nullable;
  }
  // A rowversion column is NOT NULL unless declared NULL.
  if (column.type.name === 'rowversion') column.nullable = false;
  let constraintName: string | undefined;
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
    } else if (isWord(t, 'constraint')) {
      // CONSTRAINT name names the column constraint that follows it.
      constraintName = nameOf(def[k + 1]);
      k++;
    } else if (isWord(t, 'primary') && isWord(def[k + 1], 'key')) {
      addKey('PK', !isWord(def[k + 2], 'nonclustered'), column.name, constraintName);
      constraintName = undefined;
      k++;
    } else if (isWord(t, 'unique')) {
      addKey('UQ', isWord(def[k + 1], 'clustered'), column.name, constraintName);
      constraintName = undefined;
    } else if (isWord(t, 'check')) {
      const check = checkAt(def, k);
      (column.checks ??= []).push({ name: constraintName, sql: check.sql });
      constraintName = undefined;
      k = check.next - 1;
    } else if (isWord(t, 'default')) {
      const rest = def.slice(k + 1);
      const end = rest.findIndex((x) =>
        isWord(x, 'not', 'null', 'primary', 'unique', 'constraint', 'with', 'check'),
      );
      // As SQLite reads it: N'…' as '…', [names] quoted.
      column.defaultSql = checkSql(end === -1 ? rest : rest.slice(0, end));
      // CONSTRAINT DF_t_c DEFAULT …: the default keeps its name, so DROP CONSTRAINT finds it.
      if (constraintName) column.defaultName = constraintName;
      constraintName = undefined;
      k += end === -1 ? rest.length : end;
    }
  }
  return column;
}
