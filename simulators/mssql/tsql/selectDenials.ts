// The server's denials of SELECT on one table to one login (objectPermissions.ts), kept by the host so
// every session sees a DENY at once; keyed by object id, as the permission belongs to the object.
import type { TableInfo } from './schema';

/** The server's denials of SELECT, per database, login and table (by object id). */
export class SelectDenials {
  private readonly denied = new Set<string>();
  private key = (database: string, login: string, table: TableInfo) =>
    `${database.toLowerCase()}|${login.toLowerCase()}|${table.objectId}`;

  isDenied(database: string, login: string, table: TableInfo): boolean {
    return this.denied.has(this.key(database, login, table));
  }

  set(database: string, login: string, table: TableInfo, denied: boolean): void {
    if (denied) this.denied.add(this.key(database, login, table));
    else this.denied.delete(this.key(database, login, table));
  }
}
