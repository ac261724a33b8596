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

  /** The table whose presence tells the reader's session is the one the keys were loaded in. */
  get sentinel(): string {
    return `#${this.prefix}ct_session`;
  }

  /**
   * Told at each batch whether the sentinel was found: a session without it is new (the connection
   * was replaced), so every table is loaded again. Answers the statement that makes the sentinel, to
   * run before anything else of the batch, or '' when the session is the known one.
   */
  sessionFound(found: boolean): string {
    if (found) return '';
    this.loaded.clear();
    return `CREATE TABLE ${this.sentinel} (created DATETIME2 NOT NULL);`;
  }

  private keyDefinition(shape: TableShape): string {
    const keyColumns = shape.key.map((k) => shape.columns.find((c) => c.name === k));
    return keyColumns.map((c, n) => `${pendingKey(n)} ${c?.sourceType ?? 'int'} NOT NULL`).join(', ');
  }

  /**
   * Whether the table's pending keys after `checkpoint` must be loaded (again) up to `current` — none
   * yet, the session lost them, the checkpoint went back before them, or they are all read — and the
   * version the keys reach once it is done: a batch must not read past it.
   */
  plan(shape: TableShape, checkpoint: bigint, current: bigint): { reload: boolean; reach: bigint } {
    const known = this.loadedFor(shape, checkpoint);
    const serves = known && (checkpoint < known.loadedAt || known.loadedAt >= current);
    return known && serves ? { reload: false, reach: known.loadedAt } : { reload: true, reach: current };
  }

  /**
   * The version the table's loaded keys reach when they are sure to serve the next batch whatever
   * the version current is (loaded in this session, after its checkpoint, not used up); else null.
   */
  steadyReach(shape: TableShape, checkpoint: bigint): bigint | null {
    const known = this.loadedFor(shape, checkpoint);
    return known && checkpoint < known.loadedAt ? known.loadedAt : null;
  }

  /** The table's loaded keys when they still hold its changes after `checkpoint`: same key, not gone back. */
  private loadedFor(shape: TableShape, checkpoint: bigint): Loaded | undefined {
    const known = this.loaded.get(tableKey(shape.ref));
    return known && known.keyDefinition === this.keyDefinition(shape) && checkpoint >= known.from
      ? known
      : undefined;
  }

  /**
   * The statements that load a table's keys after `@after_n` up to `@upto`, with `@after_n` bound here;
   * `@upto` and the skipped contexts (bindShared) are the caller's, once per request.
   */
  reloadStatement(request: sql.Request, shape: TableShape, checkpoint: bigint, n: number): string {
    request.input(`after_${n}`, sql.BigInt, String(checkpoint));
    const temp = this.tempOf(tableKey(shape.ref));
    const skip = this.skippedContexts.length
      ? ` AND (ct.SYS_CHANGE_CONTEXT IS NULL OR ct.SYS_CHANGE_CONTEXT NOT IN (${this.skippedContexts.map((_, c) => `@ctx${c}`).join(', ')}))`
      : '';
    const keys = shape.key.map((k) => `ct.${bracket(k)}`).join(', ');
    const names = shape.key.map((_, k) => pendingKey(k)).join(', ');
    // The primary key leads with the version: each batch's slice is a range seek, and it is declared
    // in CREATE TABLE because CREATE INDEX is refused inside a snapshot transaction (3964).
    return `DROP TABLE IF EXISTS ${temp};
      CREATE TABLE ${temp} (${PENDING.version} BIGINT NOT NULL, ${this.keyDefinition(shape)}, ${PENDING.op} NCHAR(1) NOT NULL,
        ${PENDING.columns} VARBINARY(MAX) NULL, PRIMARY KEY (${PENDING.version}, ${names}));
      INSERT INTO ${temp} (${PENDING.version}, ${names}, ${PENDING.op}, ${PENDING.columns})
        SELECT ct.SYS_CHANGE_VERSION, ${keys}, ct.SYS_CHANGE_OPERATION, ct.SYS_CHANGE_COLUMNS
        FROM CHANGETABLE(CHANGES ${qualified(shape.ref)}, @after_${n}) AS ct
        WHERE ct.SYS_CHANGE_VERSION <= @upto${skip};`;
  }

  /** The parameters every reload of a request shares: the version loaded up to, the skipped contexts. */
  bindShared(request: sql.Request, current: bigint): void {
    request.input('upto', sql.BigInt, String(current));
    this.skippedContexts.forEach((c, n) => request.input(`ctx${n}`, sql.VarBinary(128), c));
  }

  /** Records a reload that succeeded (its transaction may still roll back: see forget). */
  reloaded(shape: TableShape, checkpoint: bigint, current: bigint): void {
    this.loaded.set(tableKey(shape.ref), {
      from: checkpoint,
      loadedAt: current,
      keyDefinition: this.keyDefinition(shape),
    });
  }

  /**
   * How many keys each version holds after `@after_n`, up to `@limit`, in version order: at most
   * `@versions` of them, enough to place a batch's bound. Rows tagged with `n`; `@after_n` bound by
   * reloadStatement or here when `bindAfter` is given.
   */
  countsStatement(request: sql.Request, shape: TableShape, n: number, bindAfter?: bigint): string {
    if (bindAfter !== undefined) request.input(`after_${n}`, sql.BigInt, String(bindAfter));
    const temp = this.tempOf(tableKey(shape.ref));
    return `SELECT TOP (@versions) ${n} AS i, ${PENDING.version} AS version, COUNT(*) AS n FROM ${temp}
        WHERE ${PENDING.version} > @after_${n} AND ${PENDING.version} <= @limit GROUP BY ${PENDING.version} ORDER BY ${PENDING.version};`;
  }
}

/** A counts statement's rows, read back into each table's versions. */
export const keyCounts = (rows: readonly { version: string | number; n: number }[]): KeyCount[] =>
  rows.map((r) => ({ version: BigInt(r.version), count: Number(r.n) }));

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
