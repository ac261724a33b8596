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
/** The SQLite name of a T-SQL table. */
export const tableSql = (schema: string, name: string) => quote(`${schema}.${name}`);

/** Error 137: a variable the batch never declared or passed. */
export const undeclared = (variable: string) =>
  new SqlError({
    number: 137,
    state: 2,
    class: 15,
    message: `Must declare the scalar variable "${variable}".`,
  });
