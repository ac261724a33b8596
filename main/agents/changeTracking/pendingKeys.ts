// The keys a catch-up still has to read, kept between batches in the reader session's temporary
// tables. CHANGETABLE(CHANGES t, @v) has no upper bound: each call computes every net change after
// @v, so reading a backlog of N changes in batches of B by calling it per batch costs N²/B. Here a
// table's pending keys are loaded once (up to the version current then) into a temporary table whose
// primary key leads with the version, and each batch takes the next slice of it by a seek. A table is
// loaded again only once its slice is used up, or when the session (and so its temporary tables) is
// gone, which one sentinel table tells per batch.
import sql from 'mssql';
import { tableKey, type TableShape } from '../source';
import { bracket, qualified } from '../drivers/mssql/names';
import type { RunQuery as Run } from './structure';

/**
 * The pending-keys table's columns: all of them the reader's own, the key's columns by position (k0,
 * k1, …), so no name a source table has can meet them.
 */
export const PENDING = { version: '[__ver]', op: '[__op]', columns: '[__cols]' } as const;
/** The pending key's column `n`, bracketed unless `bracketed` is false. */
export const pendingKey = (n: number, bracketed = true): string => (bracketed ? `[k${n}]` : `k${n}`);

export interface KeyCount {
  version: bigint;
  count: number;
}

interface Loaded {
  /** The checkpoint the keys were loaded after: valid while the table's checkpoint is not below it. */
  from: bigint;
  /** The version current when loaded: the keys hold every net change in (from, loadedAt]. */
  loadedAt: bigint;
  /** The key columns' definitions: a changed key needs a new table. */
  keyDefinition: string;
}

export class PendingKeys {
  private readonly loaded = new Map<string, Loaded>();
  private readonly serials = new Map<string, number>();

  constructor(
    private readonly prefix: string,
    /** The changes a pipeline wrote itself (recursion protection): their contexts are left out. */
    private readonly skippedContexts: readonly Buffer[],
  ) {}

  /** The temporary table of a table's keys: numbered per table, so a batch's table list may change. */
  tempOf(table: string): string {
    let serial = this.serials.get(table);
    if (serial === undefined) {
      serial = this.serials.size;
      this.serials.set(table, serial);
    }
    return `#${this.prefix}ct_keys_${serial}`;
  }

  /** After a failed batch nothing loaded in it can be trusted (its transaction rolled back). */
  forget(): void {
    this.loaded.clear();
  }

  /** At each batch: a session without the sentinel is new (the connection was replaced), so reload all. */
  async checkSession(run: Run): Promise<void> {
    const sentinel = `#${this.prefix}ct_session`;
    const [found] = await run<{ id: number | null }>('SELECT OBJECT_ID(@name) AS id', (r) =>
      r.input('name', `tempdb..${sentinel}`),
    );
    if ((found?.id ?? null) !== null) return;
    this.loaded.clear();
    await run(`CREATE TABLE ${sentinel} (created DATETIME2 NOT NULL)`);
  }

  /**
   * Makes sure the table's pending keys after `checkpoint` are loaded, loading them up to `current`
   * when there are none yet, the session lost them, the checkpoint went back before them, or they are
   * all read. Returns the version they reach: a batch must not read past it.
   */
  async ensure(run: Run, shape: TableShape, checkpoint: bigint, current: bigint): Promise<bigint> {
    const table = tableKey(shape.ref);
    const keyColumns = shape.key.map((k) => shape.columns.find((c) => c.name === k));
    const definitions = keyColumns.map((c, n) => `${pendingKey(n)} ${c?.sourceType ?? 'int'} NOT NULL`);
    const keyDefinition = definitions.join(', ');
    const known = this.loaded.get(table);
    if (
      known &&
      known.keyDefinition === keyDefinition &&
      checkpoint >= known.from &&
      (checkpoint < known.loadedAt || known.loadedAt >= current)
    )
      return known.loadedAt;
    const temp = this.tempOf(table);
    const skip = this.skippedContexts.length
      ? ` AND (ct.SYS_CHANGE_CONTEXT IS NULL OR ct.SYS_CHANGE_CONTEXT NOT IN (${this.skippedContexts.map((_, n) => `@ctx${n}`).join(', ')}))`
      : '';
    const keys = shape.key.map((k) => `ct.${bracket(k)}`).join(', ');
    const names = shape.key.map((_, n) => pendingKey(n)).join(', ');
    // The primary key leads with the version: each batch's slice is a range seek, and it is declared
    // in CREATE TABLE because CREATE INDEX is refused inside a snapshot transaction (3964).
    await run(
      `DROP TABLE IF EXISTS ${temp};
      CREATE TABLE ${temp} (${PENDING.version} BIGINT NOT NULL, ${keyDefinition}, ${PENDING.op} NCHAR(1) NOT NULL,
        ${PENDING.columns} VARBINARY(MAX) NULL, PRIMARY KEY (${PENDING.version}, ${names}));
      INSERT INTO ${temp} (${PENDING.version}, ${names}, ${PENDING.op}, ${PENDING.columns})
        SELECT ct.SYS_CHANGE_VERSION, ${keys}, ct.SYS_CHANGE_OPERATION, ct.SYS_CHANGE_COLUMNS
        FROM CHANGETABLE(CHANGES ${qualified(shape.ref)}, @from) AS ct
        WHERE ct.SYS_CHANGE_VERSION <= @upto${skip};`,
      (r) => {
        r.input('from', sql.BigInt, String(checkpoint));
        r.input('upto', sql.BigInt, String(current));
        this.skippedContexts.forEach((c, n) => r.input(`ctx${n}`, sql.VarBinary(128), c));
      },
    );
    this.loaded.set(table, { from: checkpoint, loadedAt: current, keyDefinition });
    return current;
  }

  /**
   * How many keys each version holds after the checkpoint, up to `limit`, in version order: at most
   * `versions` of them, enough to place a batch's bound.
   */
  counts(
    run: Run,
    shape: TableShape,
    checkpoint: bigint,
    limit: bigint,
    versions: number,
  ): Promise<KeyCount[]> {
    const temp = this.tempOf(tableKey(shape.ref));
    return run<{ version: string; n: number }>(
      `SELECT TOP (@versions) ${PENDING.version} AS version, COUNT(*) AS n FROM ${temp}
        WHERE ${PENDING.version} > @after AND ${PENDING.version} <= @limit GROUP BY ${PENDING.version} ORDER BY ${PENDING.version}`,
      (r) => {
        r.input('versions', sql.Int, versions);
        r.input('after', sql.BigInt, String(checkpoint));
        r.input('limit', sql.BigInt, String(limit));
      },
    ).then((rows) => rows.map((r) => ({ version: BigInt(r.version), count: Number(r.n) })));
  }
}

/**
 * One upper bound for every table: the current version when the batch fits, otherwise the highest
 * version whose changes (over all tables) fit in maxRows — at least one whole version.
 */
export function upperBound(counts: readonly KeyCount[], current: bigint, maxRows: number): bigint {
  const perVersion = new Map<bigint, number>();
  for (const c of counts) perVersion.set(c.version, (perVersion.get(c.version) ?? 0) + c.count);
  const versions = [...perVersion.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let total = 0;
  for (const c of perVersion.values()) total += c;
  if (total <= maxRows) return current;
  let cumulative = 0;
  let bound = versions[0] ?? current;
  for (const v of versions) {
    cumulative += perVersion.get(v) ?? 0;
    if (cumulative > maxRows) break;
    bound = v;
  }
  return bound;
}
