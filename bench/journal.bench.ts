// The journal agent: record images decoded per second on one core (the agent's own work, no I/O),
// and end to end from the simulated IBM i through DSPJRN and the runner into SQLite and PostgreSQL,
// next to the raw insert rate of the same rows into the same target in the same run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assemble, type JournalEntryRow, type TableReading } from '../main/agents/journal/assemble';
import { logicalToVisual } from '../lib/ibmi/bidi';
import { encodeRecord } from '../lib/ibmi/recordEncode';
import type { FieldDef } from '../lib/ibmi/recordImage';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { SqliteTarget } from '../main/agents/sqlite/target';
import type { Target } from '../main/agents/target';
import { JOURNAL_BENCH_ENTITIES, startJournalBench } from './journalSource';
import type { Benchmark, Figure } from './harness';
import { compileImageDecoder } from '../main/agents/journal/imageDecoder';
import { outfileEntry } from '../main/agents/journal/reader';
import type { IbmiRow } from '../lib/ibmi/connection';
import {
  dropPostgresSchema,
  PG,
  ratio,
  rawPostgresRate,
  rawSqliteRate,
  timedRate,
  benchRows,
  catchUpRounds,
  median,
  type BenchRow,
} from './rawTargets';

const DECODED = 100_000;
const CHANGES = 30_000;
/** A round trip to an IBM i in another building or region (issue 58: 10–50 ms). */
const LINK_DELAY_MS = 30;

/** A record like an order line: binary, packed, zoned, EBCDIC text in two CCSIDs, a *MDY date, a timestamp. */
const FIELDS: FieldDef[] = [
  { name: 'ORDERNO', type: { kind: 'binary', bytes: 8 } },
  { name: 'LINE', type: { kind: 'binary', bytes: 4 } },
  { name: 'ITEM', type: { kind: 'char', length: 20, ccsid: 273 } },
  { name: 'NOTE', type: { kind: 'varchar', length: 60, ccsid: 37 }, nullable: true },
  { name: 'QTY', type: { kind: 'zoned', precision: 7, scale: 0 } },
  { name: 'PRICE', type: { kind: 'packed', precision: 11, scale: 2 } },
  { name: 'SHIPPED', type: { kind: 'date', format: 'mdy', separator: '/', ccsid: 37 } },
  { name: 'CHANGED', type: { kind: 'timestamp', ccsid: 37 } },
];

function benchEntries(): JournalEntryRow[] {
  return Array.from({ length: DECODED }, (_, i) => {
    const { image, nullIndicators } = encodeRecord(FIELDS, {
      ORDERNO: BigInt(1_000_000 + i),
      LINE: BigInt(i % 10),
      ITEM: `Artikel Größe ${i % 500}`,
      NOTE: i % 3 ? `note ${i}` : null,
      QTY: String(i % 1000),
      PRICE: `${i % 10_000}.${String(i % 100).padStart(2, '0')}`,
      SHIPPED: '2026-11-22',
      CHANGED: '2026-11-22-10.00.00.123456',
    });
    return {
      sequence: i + 1,
      code: 'R',
      type: 'PT',
      timestamp: '2026-11-22-10.00.00.123456',
      library: 'SHOP',
      file: 'LINES',
      member: 'LINES',
      rrn: i + 1,
      cycle: 0,
      receiverLibrary: 'SHOP',
      receiver: 'QSQJRN0001',
      nullIndicators,
      data: image,
      minimized: false,
      imageLength: image.length,
    };
  });
}

/** The outfile's row of an entry as the ODBC driver hands it: CHAR columns padded, JOESD as bytes. */
const outfileRow = (e: JournalEntryRow): IbmiRow => ({
  JOENTL: 190 + e.data.length,
  JOINCDAT: '0',
  JOSEQN: String(e.sequence),
  JOCODE: e.code,
  JOENTT: e.type,
  JOTSTP: e.timestamp,
  JOLIB: e.library.padEnd(10),
  JOOBJ: e.file.padEnd(10),
  JOMBR: e.member.padEnd(10),
  JOCTRR: String(e.rrn),
  JOCCID: String(e.cycle),
  JORCVLIB: e.receiverLibrary.padEnd(10),
  JORCV: e.receiver.padEnd(10),
  JONVI: e.nullIndicators,
  JOMINESD: '0',
  JOESD: e.data,
});

/** Best of five passes over all entries, in items per second on this core. */
function bestRate(count: number, pass: () => void): number {
  let best = 0;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    pass();
    best = Math.max(best, count / ((performance.now() - start) / 1000));
  }
  return Math.round(best);
}

/** The agent's own work on one core, no I/O: outfile rows to entries, images to rows, entries to changes. */
function decodeFigures(): Figure[] {
  const entries = benchEntries();
  const rows = entries.map(outfileRow);
  const reading: TableReading = {
    key: 'SHOP.LINES',
    library: 'SHOP',
    file: 'LINES',
    members: ['LINES'],
    memberKey: false,
    fields: FIELDS,
    identify: ['ORDERNO', 'LINE'],
    appliedThrough: null,
  };
  const form = { dateFormat: 'iso' as const, timeFormat: 'iso' as const, utcOffsetMinutes: null };
  const order = (a: { sequence: number }, b: { sequence: number }) => a.sequence - b.sequence;
  const decoder = compileImageDecoder(FIELDS, form);
  let sink = 0;
  const outfile = bestRate(DECODED, () => {
    for (const r of rows) sink += outfileEntry(r, 190).rrn;
  });
  const decode = bestRate(DECODED, () => {
    for (const e of entries) sink += decoder.decode(e.data, e.nullIndicators).LINE === 1 ? 1 : 0;
  });
  const assembled = bestRate(DECODED, () => {
    sink += assemble(entries, [reading], DECODED, form, order).changes.length;
  });
  if (sink === 0) throw new Error('nothing was decoded');
  return [
    { name: 'journal.outfileRows', value: outfile, unit: 'rows/s/core' },
    { name: 'journal.decode', value: decode, unit: 'entries/s/core' },
    { name: 'journal.assemble', value: assembled, unit: 'entries/s/core' },
    ...bidiDecodeFigures(),
  ];
}

// Hebrew and Arabic as stored, in visual order, that the agent reads in logical order (bidi.ts).
const BIDI_FIELDS: FieldDef[] = [
  { name: 'ID', type: { kind: 'binary', bytes: 4, scale: 0 } },
  { name: 'HE', type: { kind: 'varchar', length: 40, ccsid: 424 }, logicalOrder: true },
  { name: 'AR', type: { kind: 'char', length: 30, ccsid: 420 }, logicalOrder: true },
];
const BIDI_TEXTS = [
  ['שלום עולם 123', 'السلام عليكم'],
  ['רחוב הרצל 12, תל אביב', 'شارع الملك فهد'],
  ['קוד ABC-123 נשלח', 'محمد 123'],
] as const;

/**
 * Records with a 424 and a 420 field decoded in logical order, against the same records read in the
 * order the bytes hold them (the anchor, same run): what the reordering and unshaping cost.
 */
function bidiDecodeFigures(): Figure[] {
  const images = Array.from({ length: DECODED }, (_, i) => {
    const [he, ar] = BIDI_TEXTS[i % BIDI_TEXTS.length] as readonly [string, string];
    return encodeRecord(BIDI_FIELDS, {
      ID: BigInt(i),
      HE: logicalToVisual(he, 424),
      AR: logicalToVisual(ar, 420),
    });
  });
  const form = { dateFormat: 'iso' as const, timeFormat: 'iso' as const, utcOffsetMinutes: null };
  const stored = BIDI_FIELDS.map(({ logicalOrder: _, ...f }) => f);
  let sink = 0;
  const rate = (fields: readonly FieldDef[]) => {
    const decoder = compileImageDecoder(fields, form);
    return bestRate(DECODED, () => {
      for (const r of images) sink += String(decoder.decode(r.image, r.nullIndicators).HE).length;
    });
  };
  const logical = rate(BIDI_FIELDS);
  const anchor = rate(stored);
  if (sink === 0) throw new Error('nothing was decoded');
  return [
    { name: 'journal.decode.bidi', value: logical, unit: 'entries/s/core' },
    { name: 'journal.decode.bidi.ratio', value: ratio(logical, anchor), unit: 'of stored order' },
  ];
}

const rows = benchRows(CHANGES, '2026-01-01 10:00:00.123000');

export const journalBenchmark: Benchmark = {
  name: 'journal agent',
  run: async () => {
    const decoded = decodeFigures();
    const bench = await startJournalBench();
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-journal-'));
    const schema = `cdc_bench_jr_${process.pid}`;
    try {
      const entities = JOURNAL_BENCH_ENTITIES;
      const runner = (target: () => Promise<Target>) =>
        new PipelineRunner({ openSource: bench.open, openTarget: target, entities });
      const sqlite = () => Promise.resolve(new SqliteTarget(join(dir, 'replica.sqlite'), 'bench'));
      const postgres = () => Promise.resolve(new PostgresTarget({ ...PG, schema }, 'bench'));
      // Both targets snapshot the empty table first, so what follows is the change stream alone.
      await runner(sqlite).runUntilCaughtUp();
      await runner(postgres).runUntilCaughtUp();
      await bench.insert(rows);
      // The simulator alone: the entries to an outfile by DSPJRN and read back by one SELECT.
      const simRead = await timedRate(CHANGES, async () => {
        const read = await bench.displayJournal();
        if (read < CHANGES) throw new Error(`DSPJRN gave ${read} entries`);
      });
      // The agent alone against it: one read of the whole backlog, no target.
      const reader = await bench.open();
      const agentRead = await timedRate(CHANGES, async () => {
        const batch = await reader.readChanges(
          entities.map((e) => e.source),
          await reader.loadCheckpoint(),
          {
            maxRows: CHANGES,
          },
        );
        if (batch.changes.length !== CHANGES) throw new Error(`read ${batch.changes.length} changes`);
      });
      await reader.close();
      // The rows inserted above are the warm-up round's; each round after it adds as many.
      const { sqlite: toSqlite, postgres: toPostgres } = await catchUpRounds(
        CHANGES,
        (round) =>
          round === 0
            ? Promise.resolve()
            : bench.insert(rows.map(([id, ...rest]): BenchRow => [id + round * CHANGES, ...rest])),
        {
          sqlite: () => runner(sqlite).runUntilCaughtUp(),
          postgres: () => runner(postgres).runUntilCaughtUp(),
        },
      );
      // The same catch-up from an IBM i 30 ms away: the agent's statements in series pay the link.
      // The changes are made beside it (the delay is the agent's link, not the application's).
      const delayed: number[] = [];
      for (let round = 4; round <= 6; round++) {
        await bench.insert(rows.map(([id, ...rest]): BenchRow => [id + round * CHANGES, ...rest]));
        bench.setLinkDelay(LINK_DELAY_MS);
        try {
          delayed.push(await timedRate(CHANGES, () => runner(sqlite).runUntilCaughtUp()));
        } finally {
          bench.setLinkDelay(0);
        }
      }
      const rawSqlite = await rawSqliteRate(dir, rows);
      const rawPostgres = await rawPostgresRate(schema, rows);
      return [
        ...decoded,
        { name: 'sandbox.ibmi.dspjrn', value: simRead, unit: 'entries/s' },
        { name: 'journal.read', value: agentRead, unit: 'changes/s' },
        { name: 'runner.journal→sqlite', value: toSqlite, unit: 'changes/s' },
        { name: 'runner.journal→sqlite.ratio', value: ratio(toSqlite, rawSqlite), unit: 'of raw' },
        {
          name: 'runner.journal→sqlite.at30ms',
          value: ratio(median(delayed), toSqlite),
          unit: 'of no delay',
        },
        { name: 'runner.journal→postgres', value: toPostgres, unit: 'changes/s' },
        { name: 'runner.journal→postgres.ratio', value: ratio(toPostgres, rawPostgres), unit: 'of raw' },
      ];
    } finally {
      await dropPostgresSchema(schema);
      await bench.close();
    }
  },
};
