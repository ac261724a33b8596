// What every part of the sandbox's SQL layer shares: SQL Server's errors and SQLite names.
import type { ServerMessage } from '../tds/tokens';

export class SqlError extends Error {
  constructor(readonly serverMessage: ServerMessage) {
    super(serverMessage.message);
  }
}

/** An error of class 16 (the statement fails, the batch goes on being read) with SQL Server's number and words. */
export const statementError = (number: number, message: string, state = 1) =>
  new SqlError({ number, state, class: 16, message });

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
/**
 * The SQLite name of a T-SQL table, one per (schema, name) pair: a dot, `%` or `^` in a part is
 * escaped with `%`, so `[a.b].[c]` and `[a].[b.c]` stay two tables, and each capital letter is marked
 * with `^`, so `T_A` and `t_a` stay two where a case-sensitive collation holds both (SQLite compares
 * its own names without case).
 */
export const physicalName = (schema: string, name: string) => {
  const part = (p: string) => p.replace(/[%.^A-Z]/g, (c) => (c >= 'A' && c <= 'Z' ? `^${c}` : `%${c}`));
  return `${part(schema)}.${part(name)}`;
};
export const tableSql = (schema: string, name: string) => quote(physicalName(schema, name));

/** Error 137: a variable the batch never declared or passed. */
export const undeclared = (variable: string) =>
  new SqlError({
    number: 137,
    state: 2,
    class: 15,
    message: `Must declare the scalar variable "${variable}".`,
  });
