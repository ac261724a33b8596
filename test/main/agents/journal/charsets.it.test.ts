// Files as IBM i shops have them, from the simulated IBM i into SQLite and PostgreSQL: a German file in
// CCSID 1141 (with the euro sign), a Japanese file in mixed CCSID 939 with a GRAPHIC column in 300, a
// file of Unicode and binary columns and timestamps of every precision, a file of BOOLEAN and ROWID
// columns, a file of numbers at their widest (63 packed and zoned digits), REAL, DOUBLE, BINARY, DATE
// and TIME; first copied, then changed so every value also travels through a journal entry's record
// image. The values the target must hold are written out here, not produced by any code of ours. A file with a DATALINK is named by the checks
// and never starts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import {
  journalConfiguration,
  journalEntity,
  journalRunner,
  sandboxIbmiCredentials,
} from '../../../helpers/journal';
import { createWorldFiles, PACKED, WORLD_FILES, writeWorld, ZONED } from '../../../helpers/ibmiWorld';
import { eitherReplica } from '../../../helpers/eitherReplica';
import { expectClean, verifyWith } from '../../../helpers/verify';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;

// Rows 1 and 2 were copied, then changed through the journal; 11 and 12 arrived through it.
const expected = (id: number) => ({
  kunden: [
    [
      id + 1,
      'Müller Straße €'.padEnd(30, ' '),
      'Köln',
      '12345678901234567890123456789.01',
      '-7.50',
      '1234567890123456789012345678.901234',
    ],
    [id + 2, 'Ærøskøbing ÄÖÜäöüß'.padEnd(30, ' '), id ? null : 'Zürich €', '-0.01', 'NaN', '0.000001'],
  ],
  tokuisaki: [
    [
      id + 1,
      '東京都千代田区 abc',
      'ﾄｳｷｮｳ'.padEnd(20, ' '),
      '千代田区丸の内'.padEnd(12, '\u3000'),
      id ? '二丁目　７番' : '変更済み',
    ],
    [id + 2, '大阪 123', 'ｵｵｻｶ'.padEnd(20, ' '), '北区'.padEnd(12, '\u3000'), ''],
  ],
});

const runner = (pipeline: string, list: Entity[], openTarget: () => Promise<Target>, events: RunnerEvent[]) =>
  journalRunner(sandbox, pipeline, list, openTarget, events);

async function startWorld(): Promise<void> {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await createWorldFiles(admin);
  await writeWorld(admin, 'copied');
}
async function stopWorld(): Promise<void> {
  await admin?.close();
  await sandbox?.close();
}

describe.each(['SQLite', 'PostgreSQL'] as const)(
  'CCSIDs and types from the simulated IBM i → %s',
  (label) => {
    const pipeline = label === 'SQLite' ? 'WORLDSQ' : 'WORLDPG';
    const { target, rows, open, close } = eitherReplica(label, pipeline, 'charsets');

    beforeAll(async () => {
      await startWorld();
      await open();
    });
    afterAll(async () => {
      await stopWorld();
      await close();
    });

    it('copies and then streams German 1141, Japanese 939/300, UTF-16, UTF-8, binary, DECFLOAT, timestamps, BOOLEAN and ROWID exactly', async () => {
      const events: RunnerEvent[] = [];
      await runner(pipeline, WORLD_FILES, target, events).runUntilCaughtUp();
      expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
      await writeWorld(admin, 'journaled');
      await runner(pipeline, WORLD_FILES, target, events).runUntilCaughtUp();
      expect(events.filter((e) => e.kind === 'failed')).toEqual([]);

      // DECFLOAT arrives as its exact text (SQLite) or an unscaled numeric (PostgreSQL): the same digits.
      const numeric =
        label === 'SQLite' ? '"BETRAG", "RABATT", "SALDO"' : '"BETRAG"::text, "RABATT"::text, "SALDO"::text';
      const kunden = await rows('kunden', `"ID", "NAME", "ORT", ${numeric}`);
      expect(kunden).toEqual([...expected(0).kunden, ...expected(10).kunden]);
      expect(await rows('tokuisaki', '"ID", "NAME", "KANA", "JUSHO", "MEMO"')).toEqual([
        ...expected(0).tokuisaki,
        ...expected(10).tokuisaki,
      ]);
      const at = label === 'SQLite' ? '"AT0", "AT12"' : '"AT0"::text, "AT12"::text';
      const universe = await rows('universe', `"ID", "TITLE", "BODY", "UTF8", "RAW", "FLAGS", ${at}`);
      expect(universe).toEqual([
        [
          11,
          'Grüße'.padEnd(10, ' '),
          '東京 😀 𠀋',
          'ünïcödé 😀',
          Buffer.from([1, 2, 0, 255]),
          Buffer.from([0x00, 0xff, 0x0e, 0x0f]),
          '2026-11-24 10:11:12',
          // PostgreSQL keeps microseconds (docs/journal-agent.md); SQLite keeps all twelve digits.
          label === 'SQLite' ? '2026-11-24 10:11:12.123456789012' : '2026-11-24 10:11:12.123456',
        ],
      ]);

      // BOOLEAN: SQLite 1/0, PostgreSQL boolean. ROWID: the 40 bytes the source made, as it gives them.
      const [yes, no] = label === 'SQLite' ? [1, 0] : [true, false];
      const rowids = await admin.query('SELECT ID, RID FROM WORLD.SCHALTER ORDER BY ID');
      const rid = (id: number) => Buffer.from(rowids.find((r) => r.ID === id)?.RID as Uint8Array);
      expect(rowids.map((r) => (r.RID as Uint8Array).length)).toEqual([40, 40, 40, 40]);
      expect(await rows('schalter', '"ID", "AKTIV", "GEPRUEFT", "RID"')).toEqual([
        [1, no, yes, rid(1)],
        [2, no, null, rid(2)],
        [11, yes, no, rid(11)],
        [12, no, null, rid(12)],
      ]);

      // Numbers to their last digit, binary, and the ends of DATE and TIME.
      const text = (c: string) => (label === 'SQLite' ? `CAST("${c}" AS TEXT)` : `"${c}"::text`);
      const zahlen = await rows(
        'zahlen',
        `"ID", "KLEIN", ${text('GROSS')}, ${text('GEPACKT')}, ${text('GEZONT')}, "EINFACH", "DOPPELT", "ROH", ${text('TAG')}, ${text('ZEIT')}`,
      );
      const full = (id: number, klein: number, gepackt: string) => [
        id,
        klein,
        '9223372036854775807',
        gepackt,
        ZONED,
        1.5,
        -2.25e300,
        Buffer.from([0x00, 0xff, 0x10]),
        '0001-01-01',
        '23:59:59',
      ];
      const empty = (id: number) => [id, null, null, null, null, null, null, null, null, null];
      expect(zahlen).toEqual([
        full(1, 32767, '0.00000000000000000001'),
        empty(2),
        full(11, -32768, PACKED),
        empty(12),
      ]);
    });

    it('a verify finds no difference in any of these files', async () => {
      expectClean(await verifyWith(runner(pipeline, WORLD_FILES, target, [])));
    });
  },
);

describe('a file with a column the agent cannot replicate', () => {
  beforeAll(startWorld);
  afterAll(stopWorld);
  it('is named per column by the column-types check, and the run stops before anything is written', async () => {
    await admin.query(
      'CREATE TABLE WORLD.DOCS (ID INTEGER NOT NULL PRIMARY KEY, BODY DATALINK(200), WEIRD CHAR(10) CCSID 1097)',
    );
    await admin.command('CHGJRNOBJ OBJ((WORLD/DOCS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    const docs = journalEntity({ schema: 'WORLD', table: 'DOCS' });
    const source = await openJournalSource({
      credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'DOCSCHK' }),
      configuration: journalConfiguration(),
      pipelineId: 'docs',
      agentId: 'src',
      entities: [docs],
    });
    try {
      const check = (await source.check([docs])).find((c) => c.id === 'column-types');
      expect(check?.status).toBe('failed');
      expect(check?.message).toContain(
        'WORLD/DOCS BODY (DATALINK(200)): IBM documents no record-image form for a DATALINK, so its journal entries cannot be read',
      );
      expect(check?.message).toContain(
        'WORLD/DOCS WEIRD (CHAR(10)): CCSID 1097 is not one the agent has a table for',
      );
    } finally {
      await source.close();
    }
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-docs-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const run = runner('DOCSRUN', [docs], async () => new SqliteTarget(path, 'docs'), events);
    await run.runUntilCaughtUp().catch(() => undefined);
    expect(String(run.failure)).toContain(
      'Columns the journal agent cannot replicate: WORLD/DOCS BODY (DATALINK(200))',
    );
    const db = new Database(path, { readonly: true, fileMustExist: false });
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'docs'")
        .all();
      expect(tables).toEqual([]);
    } finally {
      db.close();
    }
  });
});
