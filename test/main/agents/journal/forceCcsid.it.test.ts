// Text an IBM i file holds under the wrong tag, read by the CCSID the entity forces (forceCcsid): a
// file of FOR BIT DATA columns (CCSID 65535) holding German text in 273, and a CHAR column tagged 37
// into which a program wrote 273 bytes; copied, then changed through the journal, into SQLite and
// PostgreSQL. The expected text is written out here; the bytes are 273 as IBM's table gives them
// (ü 0xD0, ß 0xA1, ö 0x6A), which 37 reads as "}", "~" and "|". A byte the forced CCSID has no
// character for is kept aside with its bytes, or takes the decode policy's value, counted.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult, Entity } from '../../../../shared/controlApi';
import type { JournalConfiguration } from '../../../../shared/agents/journal';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { tableKey } from '../../../../main/agents/source';
import type { RefusedRow } from '../../../../main/agents/spi';
import type { Target } from '../../../../main/agents/target';
import type { RunnerEvent } from '../../../../main/runner/events';
import {
  ibmiLibrarySession,
  journalConfiguration,
  journalEntity,
  journalRunner,
  sandboxIbmiCredentials,
} from '../../../helpers/journal';
import { eitherReplica, sqliteRows } from '../../../helpers/eitherReplica';

const LIB = 'FORCED';
const suite = ibmiLibrarySession(LIB);

/** 273 bytes of a text, blank-padded (0x40) to a CHAR's length. */
const padded = (hex: string, length: number) => Buffer.from(hex.padEnd(length * 2, '40'), 'hex');
const GRUESSE = 'C799D0A185'; // Grüße
const MUELLER = 'D4D093938599'; // Müller
const STRASSE = 'E2A39981A185'; // Straße
const KOELN = 'D26A9395'; // Köln

const runner = (
  pipeline: string,
  list: Entity[],
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  options: { configuration?: Partial<JournalConfiguration>; kept?: RefusedRow[] } = {},
) => journalRunner(suite.sandbox, pipeline, list, openTarget, events, { ...options, idleMs: 20 });

/** The journal agent's checks of `list`, by id, from a source opened for them alone. */
async function checksOf(pipeline: string, list: Entity[]): Promise<Map<string, CheckResult>> {
  const source = await openJournalSource({
    credentials: sandboxIbmiCredentials(suite.sandbox, { syncLibrary: pipeline.toUpperCase() }),
    configuration: journalConfiguration(),
    pipelineId: pipeline,
    agentId: 'src',
    entities: list,
  });
  try {
    return new Map((await source.check(list)).map((c) => [c.id, c]));
  } finally {
    await source.close();
  }
}

describe.each(['SQLite', 'PostgreSQL'] as const)('forceCcsid into %s', (label) => {
  const pipeline = label === 'SQLite' ? 'FORCESQ' : 'FORCEPG';
  const bits = label === 'SQLite' ? 'BITSQ' : 'BITPG';
  const wrong = label === 'SQLite' ? 'WRONGSQ' : 'WRONGPG';
  const { target, rows, open, close } = eitherReplica(label, pipeline, 'force');
  const entities = (): Entity[] => [
    // The whole file: its FOR BIT DATA columns are German text; BINARY stays bytes.
    journalEntity({ schema: LIB, table: bits }, { forceCcsid: 273 }),
    // One column: NAME is tagged 37 but holds 273; CITY is what its tag says.
    journalEntity({ schema: LIB, table: wrong }, { forceCcsid: { NAME: 273 } }),
  ];

  beforeAll(async () => {
    await open();
    await suite.admin.query(
      `CREATE TABLE ${LIB}.${bits} (ID INTEGER NOT NULL PRIMARY KEY, NAME CHAR(10) FOR BIT DATA NOT NULL, ` +
        `NOTE VARCHAR(20) FOR BIT DATA, TAG BINARY(2))`,
    );
    await suite.admin.query(
      `CREATE TABLE ${LIB}.${wrong} (ID INTEGER NOT NULL PRIMARY KEY, NAME CHAR(10) CCSID 37 NOT NULL, ` +
        `CITY VARCHAR(20) CCSID 37)`,
    );
    for (const file of [bits, wrong])
      await suite.admin.command(`CHGJRNOBJ OBJ((${LIB}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await suite.admin.query(
      `INSERT INTO ${LIB}.${bits} VALUES (1, X'${padded(GRUESSE, 10).toString('hex')}', X'${MUELLER}', X'0102')`,
    );
    const physical = suite.sandbox.system.file(LIB, wrong);
    if (!physical) throw new Error(`no file ${wrong}`);
    suite.sandbox.system.writeFromProgram(physical, { ID: 1, NAME: padded(MUELLER, 10), CITY: 'Köln' });
  });
  afterAll(close);

  it('copies, then streams, the text in the forced CCSID; the file tag is kept for BINARY', async () => {
    // SQL reads the wrongly tagged column by its tag, as a query tool shows it: 37's characters.
    const [asTagged] = await suite.admin.query(`SELECT NAME FROM ${LIB}.${wrong} WHERE ID = 1`);
    expect(asTagged?.NAME).toBe('M}ller    ');
    const events: RunnerEvent[] = [];
    await runner(pipeline, entities(), target, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);

    // Through the journal: a row inserted by SQL, a row a program wrote, a column updated.
    await suite.admin.query(
      `INSERT INTO ${LIB}.${bits} VALUES (2, X'${padded(KOELN, 10).toString('hex')}', NULL, X'FFFE')`,
    );
    await suite.admin.query(`UPDATE ${LIB}.${bits} SET NOTE = X'${STRASSE}' WHERE ID = 1`);
    const physical = suite.sandbox.system.file(LIB, wrong);
    if (!physical) throw new Error(`no file ${wrong}`);
    suite.sandbox.system.writeFromProgram(physical, { ID: 2, NAME: padded(GRUESSE, 10), CITY: 'Zürich' });
    await runner(pipeline, entities(), target, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed' || e.kind === 'rows-refused')).toEqual([]);

    const tag = label === 'SQLite' ? '"TAG"' : `encode("TAG", 'hex')`;
    const bitRows = await rows(bits.toLowerCase(), `"ID", "NAME", "NOTE", ${tag}`);
    expect(
      bitRows.map((r) =>
        label === 'SQLite' ? [...r.slice(0, 3), Buffer.from(r[3] as Buffer).toString('hex')] : r,
      ),
    ).toEqual([
      [1, 'Grüße     ', 'Straße', '0102'],
      [2, 'Köln      ', null, 'fffe'],
    ]);
    expect(await rows(wrong.toLowerCase(), '"ID", "NAME", "CITY"')).toEqual([
      [1, 'Müller    ', 'Köln'],
      [2, 'Grüße     ', 'Zürich'],
    ]);
  });

  it('the checks read a sample in the forced CCSID and say what it reads as', async () => {
    const checks = await checksOf(pipeline, entities());
    const overrides = checks.get('ccsid-overrides');
    expect(overrides?.status).toBe('passed');
    expect(overrides?.message).toContain(
      `${LIB}/${bits} NAME CHAR(10) CCSID 65535, read as CCSID 273: 2 sampled values decode; reads as "Grüße".`,
    );
    expect(overrides?.message).toContain(
      `${LIB}/${wrong} NAME CHAR(10) CCSID 37, read as CCSID 273: 2 sampled values decode; reads as "Müller".`,
    );
    expect(overrides?.message).not.toContain('TAG');
    expect(checks.get('column-types')?.status).toBe('passed');
  });
});

describe('an override that does not fit its file', () => {
  it('is refused at the checks and at Start, naming the column, the value and the rule', async () => {
    await suite.admin.query(
      `CREATE TABLE ${LIB}.MISFIT (ID INTEGER NOT NULL PRIMARY KEY, AMOUNT DECIMAL(9,2))`,
    );
    const list = [journalEntity({ schema: LIB, table: 'MISFIT' }, { forceCcsid: { AMOUNT: 273 } })];
    const rule = `${LIB}.MISFIT forceCcsid.AMOUNT = 273: AMOUNT is DECIMAL(9,2); a CCSID is forced on CHAR, VARCHAR, BINARY and VARBINARY columns`;
    const check = (await checksOf('misfit', list)).get('ccsid-overrides');
    expect(check?.status).toBe('failed');
    expect(check?.message).toContain(rule);
    const events: RunnerEvent[] = [];
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-misfit-')), 'replica.sqlite');
    const r = runner('misfit', list, async () => new SqliteTarget(path, 'misfit'), events);
    await r.runUntilCaughtUp().catch(() => undefined);
    expect(r.failure ?? '').toContain(rule);
  });
});

describe('bytes the forced CCSID has no character for', () => {
  // 290 (Japanese Katakana) maps no character to 0x57; ｱｲｳｴ is 81 82 83 84.
  const file = 'KANA';
  const ref = { schema: LIB, table: file };
  beforeAll(async () => {
    await suite.admin.query(
      `CREATE TABLE ${LIB}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME CHAR(4) FOR BIT DATA)`,
    );
    await suite.admin.command(`CHGJRNOBJ OBJ((${LIB}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await suite.admin.query(`INSERT INTO ${LIB}.${file} VALUES (1, X'81828384'), (2, X'8157837F')`);
  });

  it('keeps the copied row aside with its bytes, and a journaled one too; the checks warn', async () => {
    const list = [journalEntity(ref, { forceCcsid: 290 })];
    const check = (await checksOf('kanakeep', list)).get('ccsid-overrides');
    expect(check?.status).toBe('warning');
    expect(check?.message).toContain(
      `${LIB}/${file} NAME CHAR(4) CCSID 65535, read as CCSID 290: 1 of 2 sampled values hold bytes with no character in CCSID 290 (first at RRN 2, byte 0x57 at offset 1); reads as "ｱｲｳｴ".`,
    );

    const path = join(mkdtempSync(join(tmpdir(), 'cdc-kana-')), 'replica.sqlite');
    const kept: RefusedRow[] = [];
    const events: RunnerEvent[] = [];
    const run = () =>
      runner('kanakeep', list, async () => new SqliteTarget(path, 'kanakeep'), events, { kept });
    const first = run();
    await first.runUntilCaughtUp();
    expect(first.failure).toBeNull();
    expect(sqliteRows(path, 'kana', '"ID", "NAME"')).toEqual([[1, 'ｱｲｳｴ']]);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ table: tableKey(ref), key: { ID: 2 } });
    expect(kept[0]?.error).toContain(
      `The record at RRN 2 of ${LIB}/${file} holds text with no character in its CCSID (NAME: byte 0x57 at offset 1 maps to no character in CCSID 290)`,
    );
    expect(Buffer.from(kept[0]?.raw ?? []).toString('hex')).toBe('8157837f');

    // Through the journal, the record image's bytes: kept aside as well, the good row applied.
    await suite.admin.query(`INSERT INTO ${LIB}.${file} VALUES (3, X'57818283'), (4, X'84838281')`);
    const second = run();
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    expect(sqliteRows(path, 'kana', '"ID", "NAME"')).toEqual([
      [1, 'ｱｲｳｴ'],
      [4, 'ｴｳｲｱ'],
    ]);
    expect(kept.map((k) => k.key)).toEqual([{ ID: 2 }, { ID: 3 }]);
    expect(Buffer.from(kept[1]?.raw ?? []).toString('hex')).toContain('57818283');
  });

  it.each([
    ['null', null],
    ['replace', 'ｱ\ufffdｳ"'],
  ] as const)('with invalidText "%s" the copied row goes in with %j, counted', async (policy, written) => {
    const pipeline = `kana${policy.slice(0, 4)}`;
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-kana-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const r = runner(
      pipeline,
      [journalEntity(ref, { forceCcsid: 290 })],
      async () => new SqliteTarget(path, pipeline),
      events,
      {
        configuration: { invalidText: policy },
        kept: [],
      },
    );
    await r.runUntilCaughtUp();
    expect(r.failure).toBeNull();
    const rows = sqliteRows(path, 'kana', '"ID", "NAME"');
    expect(rows.find(([id]) => id === 1)).toEqual([1, 'ｱｲｳｴ']);
    expect(rows.find(([id]) => id === 2)).toEqual([2, written]);
    const replaced = events.filter((e) => e.kind === 'values-replaced');
    // Rows 2 and 3 (written through the journal in the test before) each hold a byte 290 lacks.
    expect(replaced.reduce((n, e) => n + (e.kind === 'values-replaced' ? e.values : 0), 0)).toBe(2);
    expect(replaced[0]).toMatchObject({ table: tableKey(ref), by: 'source' });
  });
});
