// The one interface the journal agent reaches IBM i through: SQL with bound parameters, and CL
// commands run by QSYS2.QCMDEXC. Two implementations will stand behind it: the `odbc` package (the
// IBM i Access ODBC Driver) and the simulated IBM i (issue 6).
import { IBMI_NAME, IBMI_NAME_RULE } from '../../shared/config/fields';
import { ibmiFold } from '../../shared/names';

export type IbmiValue = string | number | bigint | Uint8Array | null;
export type IbmiRow = Record<string, IbmiValue>;

/** A column's value as trimmed text ('' for null): CHAR columns come back padded. */
export const cellText = (v: IbmiValue | undefined): string =>
  v === null || v === undefined ? '' : String(v).trim();

export interface IbmiConnection {
  /** Runs one SQL statement with `?` markers bound to `params`; answers its rows (column names upper case). */
  query(sql: string, params?: readonly IbmiValue[]): Promise<IbmiRow[]>;
  /** Runs one CL command: `CALL QSYS2.QCMDEXC(?)` with the command bound as the parameter. */
  command(cl: string): Promise<void>;
  /** Runs `work` under commitment control: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (c: IbmiConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A refusal from IBM i with its message id (CPF7062, SQL0204, …), as the system words it. */
export class IbmiError extends Error {
  constructor(
    readonly messageId: string,
    message: string,
  ) {
    super(`${messageId}: ${message}`);
    this.name = 'IbmiError';
  }
}

/** An object name checked before it can reach a command string: 1–10 of A-Z 0-9 _ $ # @, upper-cased. */
export function ibmiName(name: string, what: string): string {
  if (!IBMI_NAME.test(name))
    throw new RangeError(`${what} "${name}" is not an IBM i name (${IBMI_NAME_RULE}).`);
  return ibmiFold(name);
}

/**
 * A column name as a Db2 for i delimited identifier: its exact characters between double quotes, a
 * quote doubled. A field named like a reserved word (ORDER) or in lower case stays one identifier.
 */
export const sqlIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * A user profile (or object) name fit for a CL command text shown or run: the name upper-cased, or
 * null when it is not an IBM i name, so no command is built around it at all.
 */
export const clName = (name: string): string | null => (IBMI_NAME.test(name) ? ibmiFold(name) : null);

/** A CL string literal: quotes doubled. Names go through ibmiName instead. */
export const clString = (text: string): string => `'${text.replaceAll("'", "''")}'`;
