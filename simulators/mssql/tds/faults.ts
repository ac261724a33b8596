// Fault drills of the simulated SQL Server. Before a request: the socket drops unanswered, or the
// answer comes late. In the middle of a result set: rows go out, then the deadlock-victim error ends
// the batch (MS-TDS 2.2.7.6: an ERROR token, then DONE with DONE_ERROR), or the socket drops.
import { PACKET, type Message } from './packet';
import { parseRpc, parseSqlBatch } from './requests';
import type { StatementResult } from './hostSession';
import type { ServerMessage } from './tokens';

/** What a fault's `matching` is tested against: the batch, or the procedure and its text parameters. */
export function requestText(m: Message): string {
  try {
    if (m.type === PACKET.SQL_BATCH) return parseSqlBatch(m.data);
    if (m.type === PACKET.RPC)
      return parseRpc(m.data)
        .flatMap((call) => [
          call.procName,
          ...call.params.map((p) => p.value).filter((v) => typeof v === 'string'),
        ])
        .join('\n');
  } catch {
    // A malformed request is answered as such; no fault is meant for it.
  }
  return '';
}

/** Error 1205 (class 13): SQL Server ends the victim's batch and rolls its transaction back. */
export const DEADLOCK_VICTIM: ServerMessage = {
  number: 1205,
  state: 51,
  class: 13,
  message:
    'Transaction (Process ID 52) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction.',
};

/**
 * Where a mid-result fault strikes: the request's last statement, when it answers two rows or more,
 * cut after half of them. Only the last, so that nothing the sandbox already ran after it is hidden.
 * Undefined when the request has no such result set: the fault waits for the next request.
 */
export function cutMidResult(
  results: readonly StatementResult[],
): { before: StatementResult[]; cut: StatementResult } | undefined {
  const last = results.at(-1);
  const rows = last?.resultSet?.rows ?? [];
  if (!last?.resultSet || rows.length < 2) return undefined;
  return {
    before: results.slice(0, -1),
    cut: {
      messages: last.messages,
      resultSet: { columns: last.resultSet.columns, rows: rows.slice(0, Math.floor(rows.length / 2)) },
    },
  };
}
