// The requests of one change-tracking batch, as few as the parameters allow: a server 30 ms away
// pays a round trip per request, so a batch asks its questions of every table at once — the head
// (current version, session, minimum valid versions, structure signals), then the keys' loading and
// counting, then the changed rows — rather than a request per table and per question.
import sql from 'mssql';
import { tableKey, type Change, type TableRef, type TableShape } from '../source';
import { sqlServerErrorNumber } from '../drivers/mssql/errors';
import { qualified, TABLES_PER_STATEMENT } from '../drivers/mssql/names';
import { keyCounts, type KeyCount, type PendingKeys } from './pendingKeys';
import { decodeSignals, signalsStatement, type Signal } from './structure';
import { changedRowsStatement, requestGroups, type ChangedRowsRead } from './changedRows';

/** Sends a statement on a request of the batch's transaction (the source's traced query). */
export interface BatchLink {
  request(): sql.Request;
  send(request: sql.Request, statement: string): Promise<sql.IResult<unknown>>;
}

/** A read the caller guards: `undefined` when the login may not read the table (it is suspended). */
export type UnlessDenied = <T>(i: number, read: () => Promise<T>) => Promise<T | undefined>;

const rowsOf = <T>(result: sql.IResult<unknown>, at: number): T[] =>
  ((result.recordsets as unknown as unknown[][])[at] ?? []) as T[];

/**
 * In slices of the bounded statement size. Unlike perSlice (names.ts), at least one slice even of no
 * tables: the head's current version and the session's sentinel are asked whatever the table count.
 */
function slices<T>(items: readonly T[]): { slice: T[]; at: number }[] {
  const out: { slice: T[]; at: number }[] = [];
  for (let at = 0; at === 0 || at < items.length; at += TABLES_PER_STATEMENT)
    out.push({ slice: items.slice(at, at + TABLES_PER_STATEMENT), at });
  return out;
}

export interface BatchHead {
  current: string | null;
  sessionFound: boolean;
  /** Per table in order. */
  minimums: (string | null)[];
  signals: (Signal | null)[];
  /** The rows of the statements asked beside the head (`alongside`), or null when they failed. */
  alongside: unknown[][] | null;
}

/** Statements a batch may ask in its head's request, on the head's own bound parameters. */
export interface Alongside {
  /** Binds its parameters on the head's request and answers its statements. */
  build(request: sql.Request): string[];
}

/** Invalid object name: a temporary table the session no longer has. */
const INVALID_OBJECT = 208;

/** The batch's first request (one per 250 tables): what every table's fate depends on. */
export async function readHead(
  link: BatchLink,
  tables: readonly TableRef[],
  sentinel: string,
  alongside?: Alongside,
): Promise<BatchHead> {
  if (alongside && tables.length <= TABLES_PER_STATEMENT)
    try {
      return await readHeadOnce(link, tables, sentinel, alongside);
    } catch (error) {
      // A session replaced since (its temporary tables gone): the head alone tells what to load.
      if (sqlServerErrorNumber(error) !== INVALID_OBJECT) throw error;
    }
  return readHeadOnce(link, tables, sentinel);
}

async function readHeadOnce(
  link: BatchLink,
  tables: readonly TableRef[],
  sentinel: string,
  alongside?: Alongside,
): Promise<BatchHead> {
  const head: BatchHead = { current: null, sessionFound: false, minimums: [], signals: [], alongside: null };
  for (const { slice, at } of slices(tables)) {
    const request = link.request();
    const statements: string[] = [];
    if (at === 0) {
      request.input('session', `tempdb..${sentinel}`);
      statements.push('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v, OBJECT_ID(@session) AS s');
    }
    if (slice.length > 0) {
      slice.forEach((t, i) => request.input(`t${i}`, qualified(t)));
      statements.push(
        `SELECT ${slice.map((_, i) => `CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(@t${i})) AS m${i}`).join(', ')}`,
        signalsStatement(slice.length),
      );
    }
    const extra = at === 0 && alongside ? alongside.build(request) : [];
    statements.push(...extra);
    const result = await link.send(request, statements.join(';\n'));
    let set = 0;
    if (at === 0) {
      const [first] = rowsOf<{ v: string | number | null; s: number | null }>(result, set++);
      head.current = first?.v === null || first?.v === undefined ? null : String(first.v);
      head.sessionFound = first?.s !== null && first?.s !== undefined;
    }
    if (slice.length > 0) {
      const [mins] = rowsOf<Record<string, string | number | null>>(result, set++);
      head.minimums.push(
        ...slice.map((_, i) => {
          const m = mins?.[`m${i}`];
          return m === null || m === undefined ? null : String(m);
        }),
      );
      head.signals.push(...decodeSignals(rowsOf(result, set++), slice.length));
    }
    if (extra.length > 0) head.alongside = extra.map((_, k) => rowsOf<unknown>(result, set + k));
  }
  return head;
}

export interface KeyRead {
  /** The table's index in the batch's table list. */
  i: number;
  shape: TableShape;
  after: bigint;
}

/**
 * Loads the pending keys where they must be (pendingKeys.ts) and counts each table's versions up to
 * the lowest version the keys reach: one request per 250 tables, the session's sentinel made first
 * when it is new. A request refused on a table (229) is asked again table by table, so only that
 * table waits.
 */
export async function loadAndCount(
  link: BatchLink,
  pending: PendingKeys,
  reads: readonly KeyRead[],
  o: { current: bigint; versions: number; sentinelStatement: string; unlessDenied: UnlessDenied },
): Promise<{ counts: KeyCount[]; limit: bigint }> {
  const plans = reads.map((r) => pending.plan(r.shape, r.after, o.current));
  const limit = plans.reduce((low, p) => (p.reach < low ? p.reach : low), o.current);
  const counts: KeyCount[] = [];
  const bind = (request: sql.Request, reloads: boolean) => {
    if (reloads) pending.bindShared(request, o.current);
    request.input('limit', sql.BigInt, String(limit));
    request.input('versions', sql.Int, o.versions);
  };
  const statementOf = (request: sql.Request, k: number, n: number) => {
    const { shape, after } = reads[k] as KeyRead;
    return plans[k]?.reload
      ? pending.reloadStatement(request, shape, after, n) + pending.countsStatement(request, shape, n)
      : pending.countsStatement(request, shape, n, after);
  };
  const done = (k: number) => {
    const { shape, after } = reads[k] as KeyRead;
    if (plans[k]?.reload) pending.reloaded(shape, after, o.current);
  };
  let sentinelStatement = o.sentinelStatement;
  for (const { slice } of slices(reads.map((_, k) => k))) {
    if (slice.length === 0 && !sentinelStatement) continue;
    const request = link.request();
    bind(
      request,
      slice.some((k) => plans[k]?.reload),
    );
    const statements = [sentinelStatement, ...slice.map((k, n) => statementOf(request, k, n))];
    try {
      const result = await link.send(request, statements.join('\n'));
      sentinelStatement = '';
      for (const set of result.recordsets as unknown as { i: number; version: string; n: number }[][])
        counts.push(...keyCounts(set));
      slice.forEach(done);
    } catch (error) {
      if (sqlServerErrorNumber(error) !== 229) throw error;
      // The sentinel went first, so it is there; a statement refused ends alone (229 is not fatal).
      sentinelStatement = '';
      for (const k of slice) {
        const read = reads[k] as KeyRead;
        const answer = await o.unlessDenied(read.i, async () => {
          const one = link.request();
          bind(one, plans[k]?.reload ?? false);
          return link.send(one, statementOf(one, k, 0));
        });
        if (!answer) continue;
        counts.push(...keyCounts(rowsOf(answer, 0)));
        done(k);
      }
    }
  }
  return { counts, limit };
}

/**
 * Every table's changed rows in (after, bound], one request per group of tables whose parameters fit
 * (changedRows.ts), read back by position. A group refused on a table is read again table by table.
 */
export async function readChangedRows(
  link: BatchLink,
  pending: PendingKeys,
  reads: readonly KeyRead[],
  bound: bigint,
  unlessDenied: UnlessDenied,
): Promise<Change[]> {
  const changes: Change[] = [];
  const tempOf = (read: ChangedRowsRead) => pending.tempOf(tableKey(read.shape.ref));
  for (const group of requestGroups(reads.filter((r) => r.after < bound))) {
    const ask = (members: readonly KeyRead[]) => {
      const request = link.request();
      request.arrayRowMode = true;
      request.input('bound', sql.BigInt, String(bound));
      const parts = members.map((read, n) => changedRowsStatement(request, read, tempOf(read), n));
      return link
        .send(request, parts.map((p) => p.statement).join('\n'))
        .then((result) => parts.flatMap((p, n) => p.decode(rowsOf<unknown[]>(result, n))));
    };
    try {
      changes.push(...(await ask(group as KeyRead[])));
    } catch (error) {
      if (sqlServerErrorNumber(error) !== 229) throw error;
      for (const read of group as KeyRead[])
        changes.push(...((await unlessDenied(read.i, () => ask([read]))) ?? []));
    }
  }
  return changes;
}
