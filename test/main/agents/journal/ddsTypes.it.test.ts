// A DDS file of every DDS data type, from the simulated IBM i into SQLite and PostgreSQL with DDS
// discovery on: character in 273, packed, zoned, binary with and without decimal positions, float,
// dates and times in their own formats and separators, a timestamp, hex, and the DBCS types G (in 300),
// J, E and O (in mixed 939, O varying). First copied, then changed, so every value also travels through
// a journal entry's record image. The values the target must hold are written out here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';
import { expectClean, verifyWith } from '../../../helpers/verify';

/** An A-specification field line, laid out by position as the DDS reference gives it. */
const field = (name: string, length: number, type: string, decimals = '', keywords = '') =>
  `     A            ${name.padEnd(10)} ${String(length).padStart(5)}${type}${decimals.padStart(2)}       ${keywords}`;

const DDS = [
  '     A                                      UNIQUE',
  '     A          R ALLTR',
  field('ID', 6, 'S', '0'),
  field('NAME', 20, 'A', '', 'CCSID(273)'),
  field('AMOUNT', 11, 'P', '2'),
  field('PRICE', 9, 'B', '2'),
  field('QTY', 4, 'B', '0'),
  field('RATE', 7, 'F', '', 'ALWNULL'),
  field('ADDED', 0, 'L', '', "DATFMT(*DMY) DATSEP('.')"),
  field('AT', 0, 'T', '', "TIMFMT(*HMS) TIMSEP(':')"),
  field('STAMP', 0, 'Z'),
  field('RAW', 4, 'H'),
  field('KANJI', 6, 'G', '', 'CCSID(300)'),
  field('ONLYJ', 10, 'J', '', 'CCSID(939)'),
  field('EITHER', 10, 'E', '', 'CCSID(939)'),
  field('OPEN', 12, 'O', '', 'CCSID(939) VARLEN'),
  '     A          K ID',
].join('\n');

const entity = journalEntity(
  { schema: 'DDSLIB', table: 'ALLT' },
  { rowIdentification: { kind: 'logicalKey', columns: ['ID'] } },
);

type Values = [
  number,
  string,
  string,
  string,
  number,
  number | null,
  string,
  string,
  string,
  Buffer,
  string,
  string,
  string,
  string,
];

const insert = (c: IbmiConnection, v: Values) =>
  c.query(`INSERT INTO DDSLIB.ALLT VALUES (${v.map(() => '?').join(', ')})`, v);

const first: Values = [
  1,
  'Größe Ä',
  '-123456789.01',
  '123.45',
  -7,
  1.5,
  '2026-06-21',
  '10:11:12',
  '2026-11-24-10.11.12.123456',
  Buffer.from([0x00, 0xff, 0x0e, 0x0f]),
  '東京',
  '大阪',
  'abc',
  'x東y',
];
const second: Values = [
  2,
  'Straße',
  '0.05',
  '-0.01',
  9999,
  null,
  '1999-12-31',
  '23:59:59',
  '2026-01-01-00.00.00.000001',
  Buffer.from([1, 2, 3, 4]),
  '千代田区丸の',
  '漢字',
  '漢字',
  '',
];

/** The row as the target holds it, every value as text (bytes as hex). */
const expected = (v: Values): string[] => [
  String(v[0]),
  v[1].padEnd(20, ' '),
  v[2],
  v[3],
  String(v[4]),
  v[5] === null ? 'null' : String(v[5]),
  v[6],
  v[7],
  v[8].replace(/^(\d{4}-\d{2}-\d{2})-(\d{2})\.(\d{2})\.(\d{2})/, '$1 $2:$3:$4'),
  v[9].toString('hex').toUpperCase(),
  v[10].padEnd(6, '\u3000'),
  // J: shift-out, the double-byte characters, shift-in, then blanks to the field's 10 bytes.
  v[11].padEnd(10 - 2 - v[11].length, ' '),
  v[12].padEnd(v[12] === 'abc' ? 10 : 6, ' '),
  v[13],
];

describe.each(['SQLite', 'PostgreSQL'] as const)('a DDS file of every DDS data type → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const pipeline = label === 'SQLite' ? 'DDSSQ' : 'DDSPG';
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-dds-')), 'replica.sqlite');
  const schema = `cdc_dds_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, pipeline)
      : new PostgresTarget({ ...POSTGRES, schema }, pipeline);
  const runner = (events: RunnerEvent[]) =>
    new PipelineRunner({
      openSource: () =>
        openJournalSource({
          credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: pipeline, enableDdsDiscovery: true }),
          configuration: journalConfiguration(),
          pipelineId: pipeline,
          agentId: 'src',
          entities: [entity],
        }),
      openTarget: target,
      entities: [{ source: entity.source, target: entity.target }],
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  const run = (events: RunnerEvent[]) => runner(events).runUntilCaughtUp();
  const rows = async (): Promise<string[][]> => {
    const names = ['ID', 'NAME', 'AMOUNT', 'PRICE', 'QTY', 'RATE', 'ADDED', 'AT', 'STAMP'];
    const rest = ['KANJI', 'ONLYJ', 'EITHER', 'OPEN'].map((n) => `"${n}"`).join(', ');
    let all: unknown[][];
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        all = db
          .prepare(
            `SELECT ${names.map((n) => `"${n}"`).join(', ')}, hex("RAW"), ${rest} FROM "allt" ORDER BY "ID"`,
          )
          .raw()
          .all() as unknown[][];
      } finally {
        db.close();
      }
    } else {
      const r = await (client as pg.Client).query({
        text: `SELECT ${names.map((n) => `"${n}"::text`).join(', ')}, upper(encode("RAW", 'hex')), ${rest} FROM "${schema}"."allt" ORDER BY "ID"`,
        rowMode: 'array',
      });
      all = r.rows as unknown[][];
    }
    return all.map((r) => r.map((v) => (v === null ? 'null' : String(v))));
  };

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.command('CRTLIB LIB(DDSLIB)');
    await admin.command('CRTJRNRCV JRNRCV(DDSLIB/JRN0001)');
    await admin.command('CRTJRN JRN(DDSLIB/JRN) JRNRCV(DDSLIB/JRN0001)');
    await admin.command('CRTSRCPF FILE(DDSLIB/QDDSSRC) RCDLEN(92)');
    sandbox.putSource('DDSLIB', 'QDDSSRC', 'ALLT', DDS);
    await admin.command('CRTPF FILE(DDSLIB/ALLT) SRCFILE(DDSLIB/QDDSSRC)');
    await admin.command('STRJRNPF FILE(DDSLIB/ALLT) JRN(DDSLIB/JRN) IMAGES(*BOTH)');
    await insert(admin, first);
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('copies and then streams every field exactly, DBCS and scaled binary included', async () => {
    const events: RunnerEvent[] = [];
    await run(events);
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    expect(await rows()).toEqual([expected(first)]);

    // Through the journal: a new record, and the first one changed in its binary and DBCS fields.
    await insert(admin, second);
    await admin.query("UPDATE DDSLIB.ALLT SET PRICE = 0.99, KANJI = '丸の内', OPEN = 'ｶﾅ漢字' WHERE ID = 1");
    await run(events);
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const changed: Values = [...first];
    changed[3] = '0.99';
    changed[10] = '丸の内';
    changed[13] = 'ｶﾅ漢字';
    expect(await rows()).toEqual([expected(changed), expected(second)]);
  });

  it('a verify finds no difference in any DDS type', async () => {
    expectClean(await verifyWith(runner([])));
  });
});
