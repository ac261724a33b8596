// The shapes of a simulated database's tables, and what the statement families need of a database,
// so they depend on this file and not on the database class that calls them.
import type Database from 'better-sqlite3';
import type { SqlType } from '../tds/dataTypes/sqlTypes';

export interface ColumnDef {
  name: string;
  type: SqlType;
  nullable: boolean;
  /** Column-level CHECK constraints (named by the table when the statement did not). */
  checks?: { name?: string; sql: string }[];
  identity?: { seed: bigint; increment: bigint };
  defaultSql?: string;
  /** The DEFAULT constraint's name when the statement gave one. */
  defaultName?: string;
  /** The alias type (CREATE TYPE) the column was declared with; its base type is `type`. */
  aliasTypeId?: number;
}

export interface KeyDef {
  name: string;
  kind: 'PK' | 'UQ';
  clustered: boolean;
  columns: string[];
}

export interface TableInfo {
  objectId: number;
  /** The table's name in SQLite: "schema.name", or "#name" for a session's temporary table. */
  sqlName: string;
  schema: string;
  name: string;
  columns: (ColumnDef & { columnId: number })[];
  keys: KeyDef[];
}

/** The database a statement family works on: its SQLite file, name, clock and table lookup. */
export interface DatabaseHandle {
  readonly db: Database.Database;
  readonly name: string;
  now(): Date;
  table(schema: string | undefined, name: string): TableInfo | undefined;
}
