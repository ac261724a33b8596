// What every part of the sandbox's SQL layer shares: SQL Server's errors and SQLite names.
import type { ServerMessage } from '../tds/tokens';

export class SqlError extends Error {
  constructor(readonly serverMessage: ServerMessage) {
    super(serverMessage.message);
  }
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** The SQLite name of a T-SQL table. */
export const tableSql = (schema: string, name: string) => quote(`${schema}.${name}`);
