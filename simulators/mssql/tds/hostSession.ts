// What the TDS server asks of the SQL engine behind it, and what it answers with: statements' results,
// which the server turns into tokens and packets.
import type { Login7 } from './login7';
import type { RpcCall, TransactionRequest } from './requests';
import type { Column, ServerMessage } from './tokens';
import type { SqlType, SqlValue } from './dataTypes/sqlTypes';

export interface StatementResult {
  resultSet?: { columns: Column[]; rows: SqlValue[][] };
  /** Rows affected or returned; absent for statements that count nothing (SET, DDL). */
  rowCount?: number;
  messages?: ({ kind: 'info' | 'error' } & ServerMessage)[];
  databaseChange?: { from: string; to: string };
  /** A transaction began or ended: answered with ENVCHANGE 8, 9 or 10 and the descriptor. */
  transaction?: { kind: 'begin' | 'commit' | 'rollback'; descriptor: Buffer };
  /** The statement failed: DONE carries the error bit. */
  failed?: boolean;
}

export interface CallResult {
  statements: StatementResult[];
  returnStatus?: number;
  outputs?: { name: string; type: SqlType; value: SqlValue }[];
}

export interface HostSession {
  readonly database: string;
  batch(sql: string, signal: AbortSignal): Promise<StatementResult[]>;
  rpc(call: RpcCall, signal: AbortSignal): Promise<CallResult>;
  /** Transaction manager requests (BEGIN/COMMIT/ROLLBACK sent as TDS requests, not as T-SQL). */
  transactionManager(request: TransactionRequest): StatementResult[];
  /** sp_reset_connection: the session as it was right after login. */
  reset(): void;
  /** The server ends the session's transaction (a deadlock victim's): its descriptor, if one was open. */
  abortTransaction(): Buffer | undefined;
  close(): void;
}

export type LoginOutcome = { ok: true; session: HostSession } | { ok: false; error: ServerMessage };

export interface TdsHost {
  login(login: Login7): LoginOutcome;
}
