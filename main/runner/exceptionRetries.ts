// Retries of rows kept in the exceptions store, asked for through the API and done by the runner in its
// loop (the source and the target are its): each row read again from the source by key, now, and
// applied as it is there — the current row, or a delete when it is gone — never the values kept.
import type { Change, Row, SourceAgent, TableRef } from '../agents/source';
import { tableKey } from '../agents/source';
import type { Target, TargetTable } from '../agents/target';
import { toExact } from '../../shared/exceptions';
import type { RefusedChange } from './rowRefusals';
import type { RetryItem, RetryOutcome } from '../agents/spi';

interface Ask {
  items: readonly RetryItem[];
  resolve: (outcomes: RetryOutcome[]) => void;
  reject: (error: unknown) => void;
}

export interface RetryContext {
  source: SourceAgent;
  target: Target;
  tables: readonly TargetTable[];
  refs: readonly TableRef[];
  /** Applies rows keeping those refused aside (the runner's applyKeeping, without a checkpoint). */
  apply(changes: readonly Change[]): Promise<RefusedChange[]>;
  reason(error: unknown): string;
  /** Whether a retry of the step may heal the error (a lost connection): then the step fails and retries. */
  transient(error: unknown): boolean;
}

/** A key's values in the table's key order, as one comparable text. */
const keyText = (key: readonly string[], row: Row) => JSON.stringify(key.map((k) => toExact(row[k] ?? null)));

export class ExceptionRetries {
  private asks: Ask[] = [];

  ask(items: readonly RetryItem[]): Promise<RetryOutcome[]> {
    return new Promise((resolve, reject) => this.asks.push({ items, resolve, reject }));
  }

  get pending(): boolean {
    return this.asks.length > 0;
  }

  /** Every retry asked for since the last step, each answered with its rows' outcomes. */
  async run(ctx: RetryContext): Promise<void> {
    for (const ask of this.asks.splice(0)) {
      try {
        ask.resolve(await retry(ctx, ask.items));
      } catch (error) {
        ask.reject(error);
        throw error;
      }
    }
  }

  /** The pipeline stopped: the retries still asked for are answered with why they were not done. */
  abandon(reason: string): void {
    for (const ask of this.asks.splice(0)) ask.reject(new Error(reason));
  }
}

async function retry(ctx: RetryContext, items: readonly RetryItem[]): Promise<RetryOutcome[]> {
  const outcomes: RetryOutcome[] = [];
  const byTable = new Map<string, RetryItem[]>();
  for (const item of items) byTable.set(item.table, [...(byTable.get(item.table) ?? []), item]);
  for (const [name, own] of byTable) {
    const table = ctx.tables.find((t) => t.source === name);
    const ref = ctx.refs.find((r) => tableKey(r) === name);
    if (!table || !ref) {
      const reason = `${name} is not being read (suspended, or no longer one of the pipeline's tables): resume it first.`;
      outcomes.push(...own.map((i): RetryOutcome => ({ id: i.id, status: 'waiting', reason })));
      continue;
    }
    let rows: Row[];
    try {
      rows = await ctx.source.readRows(
        ref,
        own.map((i) => i.key),
      );
    } catch (error) {
      // The source refusing to read the rows (SQL0802 on data a program wrote) refuses this retry only.
      if (ctx.transient(error)) throw error;
      const reason = `The source could not read the rows again: ${ctx.reason(error)}`;
      outcomes.push(...own.map((i): RetryOutcome => ({ id: i.id, status: 'refused', error: reason })));
      continue;
    }
    const byKey = new Map(rows.map((row) => [keyText(table.key, row), row]));
    const changes = own.map((i): Change => {
      const row = byKey.get(keyText(table.key, i.key));
      return row
        ? { table: name, op: 'insert', key: i.key, row, changedColumns: null, position: 'retry' }
        : { table: name, op: 'delete', key: i.key, row: null, changedColumns: null, position: 'retry' };
    });
    const refused = await ctx.apply(changes);
    own.forEach((item, i) => {
      const again = refused.find((r) => r.change === changes[i]);
      outcomes.push(
        again
          ? { id: item.id, status: 'refused', error: ctx.reason(again.error) }
          : { id: item.id, status: 'applied' },
      );
    });
  }
  return outcomes;
}
