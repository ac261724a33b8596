// One table's verify, a step at a time inside the runner's loop (so it never races the runner's own
// writes): source chunks in the source's order, each looked up at the target by key and compared row
// by row; then the target's keys, read through, any the source did not have being extras; then every
// difference read again at both sides once the pipeline has applied past it, kept only when it stays
// (a row whose change was in flight verifies clean). When every chunk came in ascending whole-number
// keys and was read at the target as the range from the chunk before it, those ranges have shown every
// target key up to the last: only the keys below the first and past the last are read through.
import { Buffer } from 'node:buffer';
import type { Difference, DifferenceKind, TableVerify, VerifyOptions } from '../../../shared/verify';
import { VERIFY_DEFAULTS } from '../../../shared/verify';
import type { ColumnShape, Row, RowValue, SnapshotChunk, SourceAgent, TableRef } from '../../agents/source';
import { keyCursor, keyPicker } from '../../agents/source';
import { keyColumnsOf, type TargetReadBack, type TargetTable } from '../../agents/target';
import { affinityOf } from '../../agents/targetValues';
import { byKey, keyText, targetForm } from './canonical';
import { rowMatch, type RowMatch } from './rowMatch';
import { KeySet } from './keySet';

export interface VerifyStepContext {
  source: SourceAgent;
  readBack: TargetReadBack;
  table: TargetTable;
  ref: TableRef;
  now(): number;
  /** When the latest read that reached the end of the source's changes began (its changes now applied). */
  caughtUpReadStartedAt: number;
  /** The entity skips deletes (docs/shaping.md): a row at the target only is kept there, not an extra. */
  keepsDeleted?: boolean;
}

export type StepResult = 'worked' | 'waiting' | 'done';

type ReadChunk = { chunk: SnapshotChunk; startedAt: number };
interface Forms {
  table: TargetTable;
  match: RowMatch;
}

/** A row seen to differ, not yet confirmed: read again at both sides once the pipeline is past it. */
interface Suspect {
  key: string[];
  /** The key as the source reads it, and as the target binds it (the target's own values for an extra). */
  sourceKey: Row;
  targetKey: Row;
  seenAt: number;
  rounds: number;
  /** The source row's compared form when last seen; null when the source had no such row. */
  lastSource: string | null;
}

/**
 * The target keys the chunks' ranges have shown: from `first` to `last` without a gap, each chunk's
 * range starting past the one before it. `extras` are the keys of the target rows in them that the
 * source chunks lacked.
 */
interface Covered {
  first: bigint;
  last: bigint;
  seen: number;
  extras: Row[];
}

/** A confirmed difference with the keys a repair reads and writes by. */
export interface Found extends Difference {
  sourceKey: Row;
  targetKey: Row;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Keys read per page below a verify's first key (a replica that is right has none there). */
const EDGE_PAGE = 100;

/** The lowest and highest of a chunk's one-column whole-number keys; null for any other key text. */
function keyRange(texts: readonly string[]): { low: bigint; high: bigint } | null {
  let low: number | bigint = Infinity;
  let high: number | bigint = -Infinity;
  for (const t of texts) {
    if (!/^-?\d+$/.test(t)) return null;
    // A number while exact (15 digits): a BigInt a key costs more than the comparison, and a number
    // and a bigint compare exactly.
    const k = t.length <= 15 ? Number(t) : BigInt(t);
    if (k < low) low = k;
    if (k > high) high = k;
  }
  return texts.length === 0 ? null : { low: BigInt(low), high: BigInt(high) };
}

/** A difference that keeps changing is confirmed after this many re-reads. */
const MAX_ROUNDS = 5;
/** Differences kept with their keys for a repair; past this the table is better copied again. */
export const MAX_REPAIRABLE = 100_000;

/** A key value written as the compared text, read back in the source's form (an extra's key). */
function sourceValueOf(c: ColumnShape, text: string): RowValue {
  switch (affinityOf(c)) {
    case 'integer': {
      const n = BigInt(text);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case 'float':
      return Number(text);
    case 'boolean':
      return text === '1';
    case 'binary':
    case 'spatial':
      return Uint8Array.from(Buffer.from(text, 'hex'));
    default:
      return text;
  }
}

export class TableVerifyJob {
  phase: 'queued' | 'rows' | 'edges' | 'extras' | 'recheck' | 'done' | 'cancelled' | 'failed' = 'queued';
  /** What the chunks' ranges have shown of the target's keys; 'broken' once a chunk could not extend it. */
  private covered: Covered | 'broken' | null = null;
  private cursor: string | null = null;
  private keyCursor: string | null = null;
  private readonly keys = new KeySet();
  /** The next source chunk, read while this one is compared; settled before a step ends. */
  private ahead: Promise<ReadChunk> | null = null;
  private forms: Forms | null = null;
  private readonly suspects = new Map<string, Suspect>();
  readonly found: Found[] = [];
  private readonly counts = { missing: 0, extra: 0, different: 0 };
  private rowsCompared = 0;
  private chunks = 0;
  private rowsTotal: number | null = null;
  private targetRows: number | null = null;
  private targetSeen = 0;
  private startedAt: number | null = null;
  private finishedAt: number | null = null;
  private notBefore = 0;
  reason: string | null = null;

  constructor(
    readonly table: string,
    private readonly options: VerifyOptions,
  ) {}

  /** One unit of work: a source chunk, a page of target keys, or a re-read of the differences due. */
  async step(ctx: VerifyStepContext): Promise<StepResult> {
    const now = ctx.now();
    if (this.phase === 'queued') {
      this.phase = 'rows';
      this.startedAt = now;
      this.rowsTotal = await ctx.source.countRows(ctx.ref).catch(() => null);
    }
    if (this.phase === 'rows' || this.phase === 'extras' || this.phase === 'edges') {
      if (now < this.notBefore) return 'waiting';
      if (this.phase === 'rows') await this.compareChunk(ctx);
      else if (this.phase === 'edges') await this.readEdges(ctx);
      else await this.readTargetKeys(ctx);
      return 'worked';
    }
    if (this.phase === 'recheck') {
      if (this.suspects.size === 0) {
        this.finish('done', ctx.now());
        return 'done';
      }
      const due = [...this.suspects.entries()].filter(([, s]) => s.seenAt < ctx.caughtUpReadStartedAt);
      if (due.length === 0) return 'waiting';
      await this.recheck(ctx, due.slice(0, this.options.chunkRows));
      return 'worked';
    }
    return 'done';
  }

  /** This table's row match, its conversions chosen once (again when the table changes). */
  private formsOf(ctx: VerifyStepContext): Forms {
    if (this.forms?.table !== ctx.table) {
      const digits = (c: ColumnShape) => ctx.readBack.keptDigits(c);
      this.forms = { table: ctx.table, match: rowMatch(ctx.table.columns, ctx.table.key, digits) };
    }
    return this.forms;
  }

  /** The next source chunk, started now: read while the chunk before it is compared. */
  private readAhead(ctx: VerifyStepContext, cursor: string | null): Promise<ReadChunk> {
    const startedAt = ctx.now();
    const reading = ctx.source
      .readChunk(ctx.ref, cursor, this.options.chunkRows)
      .then((chunk) => ({ chunk, startedAt }));
    // Settled here too: a verify cancelled meanwhile never hears of it.
    reading.catch(() => undefined);
    return reading;
  }

  /** Waits for a chunk read ahead: the source is the stream's again once a step ends. */
  async settle(): Promise<void> {
    await this.ahead?.catch(() => undefined);
  }

  private async compareChunk(ctx: VerifyStepContext): Promise<void> {
    const t = ctx.table;
    const started = ctx.now();
    const { chunk, startedAt } = await (this.ahead ?? this.readAhead(ctx, this.cursor));
    this.ahead = chunk.next !== null ? this.readAhead(ctx, chunk.next) : null;
    const { match } = this.formsOf(ctx);
    const rows = chunk.rows;
    // Keys only are written out for every row, as their texts; a row's values are compared where they
    // stand. Each target row finds its source row by the text; a source row none finds is missing.
    const texts = rows.map((row) => match.sourceKeyText(row));
    const at = new Map<string, number>();
    texts.forEach((text, i) => {
      this.keys.add(text);
      at.set(text, i);
    });
    const keyOf = keyPicker(t.key);
    // A turn of the event loop between the parts: the next chunk, on its way, is taken in meanwhile.
    await turn();
    const { rows: targetRows, ranged } = await this.heldRows(ctx, rows, texts, keyOf);
    await turn();
    // Per source row: 0 not at the target, 1 the same there, 2 different there.
    const found = new Uint8Array(rows.length);
    const onlyThere: Row[] = [];
    for (const r of targetRows) {
      const i = at.get(match.targetKeyText(r));
      if (i === undefined) onlyThere.push(r);
      else found[i] = match.same(rows[i] as Row, r) ? 1 : 2;
    }
    await turn();
    rows.forEach((row, i) => {
      if (found[i] !== 1)
        this.suspect(
          match.sourceKey(row),
          keyOf(row),
          keyOf(row),
          JSON.stringify(match.source(row)),
          startedAt,
        );
    });
    // What is left of a range read is at the target only: an extra, if the ranges cover the table.
    if (ranged && this.covered !== 'broken' && this.covered !== null) {
      this.covered.seen += targetRows.length;
      for (const r of onlyThere) this.covered.extras.push(keyOf(r));
    }
    this.rowsCompared += rows.length;
    this.chunks++;
    this.cursor = chunk.next;
    if (chunk.next === null) this.phase = this.covered && this.covered !== 'broken' ? 'edges' : 'extras';
    if (this.options.rowsPerSecond)
      this.notBefore = started + (rows.length / this.options.rowsPerSecond) * 1000;
  }

  /**
   * The target's rows for a source chunk: a chunk of dense whole-number keys (as an identity column
   * makes them) read as one key range, where the order is the same at both sides; others by key list.
   * The range starts just past the last chunk's when this chunk's keys all come after it (the source
   * reads in key order), so the ranges cover the target's keys without a gap (`covered`).
   */
  private async heldRows(
    ctx: VerifyStepContext,
    rows: readonly Row[],
    texts: readonly string[],
    keyOf: (row: Row) => Row,
  ): Promise<{ rows: Row[]; ranged: boolean }> {
    // An empty chunk (a source's last read) neither extends the covered keys nor breaks them.
    if (rows.length === 0) return { rows: [], ranged: false };
    const [only, ...more] = keyColumnsOf(ctx.table);
    // One whole-number key column: a key's text is its value's.
    const range = only && more.length === 0 && affinityOf(only) === 'integer' ? keyRange(texts) : null;
    const between = ctx.readBack.between?.bind(ctx.readBack);
    const byList = async () => ({
      rows: await ctx.readBack.rows(ctx.table, rows.map(keyOf)),
      ranged: false,
    });
    if (!range || !between) {
      this.covered = 'broken';
      return byList();
    }
    const dense = (low: bigint, high: bigint) => high - low < BigInt(rows.length) * 2n;
    const covered = this.covered;
    if (covered !== 'broken') {
      // The first chunk's range starts at its lowest key; a later one's just past the last range, if
      // all its keys come after it.
      const from = covered === null ? range.low : range.low > covered.last ? covered.last + 1n : null;
      if (from !== null && dense(from, range.high)) {
        const held = await between(ctx.table, from, range.high);
        this.covered =
          covered === null
            ? { first: range.low, last: range.high, seen: 0, extras: [] }
            : { ...covered, last: range.high };
        return { rows: held, ranged: true };
      }
      this.covered = 'broken';
    }
    if (dense(range.low, range.high))
      return { rows: await between(ctx.table, range.low, range.high), ranged: false };
    return byList();
  }

  /**
   * Once every chunk extended the covered keys: the target's keys below the first and past the last
   * are extras (none in a replica that is right), read through from both ends.
   */
  private async readEdges(ctx: VerifyStepContext): Promise<void> {
    const covered = this.covered as Covered;
    const t = ctx.table;
    const started = ctx.now();
    const keyColumns = keyColumnsOf(t);
    const [only] = keyColumns;
    const edge: Row[] = [];
    // Below the first: the target's first keys, page after page while they stay below it.
    for (let cursor: string | null = null, more = true; more;) {
      const page = await ctx.readBack.keys(t, cursor, EDGE_PAGE);
      const below = page.keys.filter((r) => BigInt(String(r[only?.name ?? ''])) < covered.first);
      edge.push(...below);
      more = page.next !== null && below.length === page.keys.length;
      cursor = page.next;
    }
    // Past the last: every key after it.
    const last = Number.isSafeInteger(Number(covered.last)) ? Number(covered.last) : covered.last;
    for (let cursor: string | null = keyCursor([last]); cursor !== null;) {
      const page = await ctx.readBack.keys(t, cursor, this.options.chunkRows);
      edge.push(...page.keys);
      cursor = page.next;
    }
    for (const row of [...covered.extras, ...edge])
      this.suspectExtra(keyColumns, this.targetKeyForm(ctx, keyColumns, row), row, started);
    this.targetRows = covered.seen + edge.length;
    this.covered = null;
    this.phase = 'recheck';
  }

  private async readTargetKeys(ctx: VerifyStepContext): Promise<void> {
    const t = ctx.table;
    const started = ctx.now();
    const keyColumns = keyColumnsOf(t);
    const page = await ctx.readBack.keys(t, this.keyCursor, this.options.chunkRows);
    // A shard's table holds the other members' rows too: only this member's keys are its to compare.
    const shard = t.shard;
    const mine = shard ? page.keys.filter((r) => String(r[shard.column]) === shard.value) : page.keys;
    this.targetSeen += mine.length;
    for (const row of mine) {
      const key = this.targetKeyForm(ctx, keyColumns, row);
      if (!this.keys.has(keyText(key))) this.suspectExtra(keyColumns, key, row, started);
    }
    this.keyCursor = page.next;
    if (page.next === null) {
      this.targetRows = this.targetSeen;
      this.phase = 'recheck';
    }
    if (this.options.rowsPerSecond)
      this.notBefore = started + (page.keys.length / this.options.rowsPerSecond) * 1000;
  }

  /** A target row's key (its key columns alone) in the compared form. */
  private targetKeyForm(ctx: VerifyStepContext, keyColumns: readonly ColumnShape[], row: Row): string[] {
    return targetForm(keyColumns, row, (c) => ctx.readBack.keptDigits(c));
  }

  /**
   * A target key the source did not give: an extra once read again at both sides. `row` holds the
   * key as the target gives it; the source is read by the key in its own form.
   */
  private suspectExtra(keyColumns: readonly ColumnShape[], key: string[], row: Row, seenAt: number) {
    const sourceKey = Object.fromEntries(keyColumns.map((c, i) => [c.name, sourceValueOf(c, key[i] ?? '')]));
    this.suspect(key, sourceKey, row, null, seenAt);
  }

  private suspect(key: string[], sourceKey: Row, targetKey: Row, lastSource: string | null, seenAt: number) {
    const text = keyText(key);
    if (!this.suspects.has(text))
      this.suspects.set(text, { key, sourceKey, targetKey, seenAt, rounds: 0, lastSource });
  }

  private async recheck(ctx: VerifyStepContext, due: [string, Suspect][]): Promise<void> {
    const t = ctx.table;
    const now = ctx.now();
    const sourceRows = await ctx.source.readRows(
      ctx.ref,
      due.map(([, s]) => s.sourceKey),
    );
    const targetRows = await ctx.readBack.rows(
      t,
      due.map(([, s]) => s.targetKey),
    );
    const { match } = this.formsOf(ctx);
    const bySource = byKey(t.columns, t.key, sourceRows, match.source);
    const byTarget = byKey(t.columns, t.key, targetRows, match.target);
    for (const [text, s] of due) {
      const source = bySource.get(text)?.values ?? null;
      const target = byTarget.get(text)?.values ?? null;
      const sourceText = source && JSON.stringify(source);
      if (sourceText === (target && JSON.stringify(target))) {
        this.suspects.delete(text);
        continue;
      }
      // Stayed as it was since the pipeline applied past it: a difference. Still changing: again later.
      if (sourceText !== s.lastSource && s.rounds < MAX_ROUNDS) {
        Object.assign(s, { seenAt: now, rounds: s.rounds + 1, lastSource: sourceText });
        continue;
      }
      this.suspects.delete(text);
      const kind: DifferenceKind = !target ? 'missing' : !source ? 'extra' : 'different';
      if (kind === 'extra' && ctx.keepsDeleted) continue;
      const columns =
        source && target ? t.columns.filter((_, i) => source[i] !== target[i]).map((c) => c.name) : [];
      this.counts[kind]++;
      if (this.found.length < MAX_REPAIRABLE)
        this.found.push({
          kind,
          key: Object.fromEntries(t.key.map((k, i) => [k, s.key[i] ?? ''])),
          columns,
          sourceKey: s.sourceKey,
          targetKey: s.targetKey,
        });
    }
  }

  private finish(phase: 'done' | 'cancelled' | 'failed', at: number, reason: string | null = null): void {
    this.phase = phase;
    this.finishedAt = at;
    this.reason = reason;
  }

  cancel(at: number): void {
    if (this.phase !== 'done' && this.phase !== 'failed') this.finish('cancelled', at);
  }

  fail(at: number, reason: string): void {
    this.finish('failed', at, reason);
  }

  get finished(): boolean {
    return this.phase === 'done' || this.phase === 'cancelled' || this.phase === 'failed';
  }

  /** All the differences were kept with their keys, so a repair can mend every one. */
  get repairable(): boolean {
    return this.counts.missing + this.counts.extra + this.counts.different <= this.found.length;
  }

  report(now: number): TableVerify {
    const seconds = this.startedAt === null ? 0 : ((this.finishedAt ?? now) - this.startedAt) / 1000;
    const rate = seconds > 0 && this.rowsCompared > 0 ? Math.round(this.rowsCompared / seconds) : null;
    const left = this.rowsTotal === null ? null : Math.max(0, this.rowsTotal - this.rowsCompared);
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      table: this.table,
      status:
        this.phase === 'rows' || this.phase === 'edges' || this.phase === 'extras'
          ? 'verifying'
          : this.phase === 'recheck'
            ? 'rechecking'
            : this.phase,
      rowsCompared: this.rowsCompared,
      chunks: this.chunks,
      rowsTotal: this.rowsTotal,
      targetRows: this.targetRows,
      counts: { ...this.counts },
      differences: this.found
        .slice(0, VERIFY_DEFAULTS.maxDifferences)
        .map(({ kind, key, columns }) => ({ kind, key, columns })),
      pending: this.suspects.size,
      rowsPerSecond: rate,
      secondsLeft: this.phase === 'rows' && rate && left !== null ? Math.ceil(left / rate) : null,
      startedAt: iso(this.startedAt),
      finishedAt: iso(this.finishedAt),
      reason: this.reason,
    };
  }
}
