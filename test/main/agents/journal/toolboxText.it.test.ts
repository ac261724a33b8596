// Text only IBM's current tables hold — Cyrillic and Greek in Japanese 930 and GRAPHIC 300, Hangul
// beyond KS X 1001 in 933, Hanzi beyond GB 2312 in 935, the euro and the sheqel in Hebrew 424,
// Simplified Chinese in 1388 and its GRAPHIC 4933, Arabic 420 and Hebrew 424 stored in visual order —
// from the simulated IBM i into SQLite, PostgreSQL
// and JetStream: one row copied, one through the journal's record images. What each target must hold
// is what IBM's Toolbox for Java reads from those bytes (test/fixtures/toolbox/samples.json).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { applyEvents, readStream } from '../../../helpers/debeziumConsumer';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';

interface ToolboxSample {
  ccsid: number;
  text: string;
  read: string;
  /** The characters in the order the bytes hold them: 420 and 424 keep visual order. */
  stored: string;
}
const samples = JSON.parse(readFileSync('test/fixtures/toolbox/samples.json', 'utf8')) as ToolboxSample[];
const sample = (ccsid: number, starts: string): ToolboxSample => {
  const s = samples.find((x) => x.ccsid === ccsid && x.text.startsWith(starts));
  if (!s) throw new Error(`no Toolbox sample for ${ccsid} starting ${starts}`);
  return s;
};
// What the column holds (the simulated IBM i keeps text as stored), and what the target must get.
const held = (s: ToolboxSample) => [s.stored, s.read] as const;

// Column, its type and CCSID, the text it holds and the Toolbox's reading of it. HS and AS keep the
// stored (visual) order by the entity's textOrder.
const COLUMNS = [
  ['JA', 'VARCHAR(60) CCSID 930', ...held(sample(930, 'Привет'))],
  ['KO', 'VARCHAR(60) CCSID 933', ...held(sample(933, '똠'))],
  ['ZH', 'VARCHAR(60) CCSID 935', ...held(sample(935, '朱'))],
  ['HE', 'VARCHAR(30) CCSID 424', ...held(sample(424, 'מחיר'))],
  ['HW', 'CHAR(16) CCSID 424', ...held(sample(424, 'שלום,'))],
  ['AR', 'VARCHAR(30) CCSID 420', ...held(sample(420, 'السلام'))],
  ['AD', 'VARCHAR(30) CCSID 420', ...held(sample(420, 'مرحبا'))],
  ['HS', 'VARCHAR(30) CCSID 424', sample(424, 'מחיר').stored, sample(424, 'מחיר').stored],
  ['AS', 'VARCHAR(30) CCSID 420', sample(420, 'السلام').stored, sample(420, 'السلام').stored],
  ['CN', 'VARCHAR(60) CCSID 1388', ...held(sample(1388, '北京'))],
  ['JG', 'VARGRAPHIC(20) CCSID 300', ...held(sample(300, 'Привет'))],
  ['CG', 'VARGRAPHIC(20) CCSID 4933', ...held(sample(4933, '北京'))],
] as const;
// A CHAR field is padded with blanks: at the visual right, which is the logical end.
const expected = (c: (typeof COLUMNS)[number]) => (c[0] === 'HW' ? c[3].padEnd(16, ' ') : c[3]);
const SERVERS = natsServers();
const streams: string[] = [];

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA MODERN');
  await admin.query(
    `CREATE TABLE MODERN.ZEICHEN (ID INTEGER NOT NULL PRIMARY KEY, ${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})`,
  );
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
  await deleteStreams(SERVERS, streams);
});

const insert = (id: number) =>
  admin.query(`INSERT INTO MODERN.ZEICHEN VALUES (?, ${COLUMNS.map(() => '?').join(', ')})`, [
    id,
    ...COLUMNS.map(([, , stored]) => stored),
  ]);

describe.each(['SQLite', 'PostgreSQL', 'JetStream'] as const)(
  'text only IBM’s current tables hold → %s',
  (label) => {
    const pipeline = `MODERN${label.slice(0, 2).toUpperCase()}`;
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-toolbox-')), 'replica.sqlite');
    const schema = `cdc_toolbox_${process.pid}`;
    const stream = `TOOLBOX_${process.pid}`;
    let client: pg.Client | undefined;
    let drop: (() => Promise<void>) | undefined;
    const target = async (): Promise<Target> => {
      if (label === 'SQLite') return new SqliteTarget(path, pipeline);
      if (label === 'PostgreSQL') return new PostgresTarget({ ...POSTGRES, schema }, pipeline);
      return new NatsTarget({
        credentials: { connectionName: 'toolbox', servers: SERVERS, tls: false },
        configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: 'toolbox' }),
        pipelineId: pipeline,
        origin: { connector: 'ibmi', server: 'sandbox', database: null },
      });
    };
    const names = COLUMNS.map(([c]) => `"${c}"`).join(', ');
    const rows = async (): Promise<unknown[][]> => {
      if (label === 'SQLite') {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare(`SELECT "ID", ${names} FROM "zeichen" ORDER BY 1`).raw().all() as unknown[][];
        } finally {
          db.close();
        }
      }
      if (label === 'PostgreSQL') {
        const r = await (client as pg.Client).query({
          text: `SELECT "ID", ${names} FROM "${schema}"."zeichen" ORDER BY 1`,
          rowMode: 'array',
        });
        return r.rows as unknown[][];
      }
      const applied = applyEvents(await readStream(SERVERS, stream, 'toolbox.MODERN.ZEICHEN'));
      return [...(applied.get('MODERN.ZEICHEN')?.values() ?? [])]
        .map((r) => [Number(r.ID), ...COLUMNS.map(([c]) => r[c])])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    };

    beforeAll(async () => {
      if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
      if (label === 'JetStream') streams.push(stream);
    });
    afterAll(async () => {
      await drop?.();
    });

    it('copies one row and streams another, each character as IBM’s client reads it, Arabic and Hebrew in logical order', async () => {
      const events: RunnerEvent[] = [];
      const run = () =>
        new PipelineRunner({
          openSource: () =>
            openJournalSource({
              credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: pipeline }),
              configuration: journalConfiguration(),
              pipelineId: pipeline,
              agentId: 'src',
              entities: [
                journalEntity(
                  { schema: 'MODERN', table: 'ZEICHEN' },
                  { textOrder: { HS: 'stored', AS: 'stored' } },
                ),
              ],
            }),
          openTarget: target,
          entities: [{ source: { schema: 'MODERN', table: 'ZEICHEN' }, target: { table: 'zeichen' } }],
          onEvent: (e) => events.push(e),
          retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
        }).runUntilCaughtUp();
      const id = label === 'SQLite' ? 1 : label === 'PostgreSQL' ? 3 : 5;
      await insert(id);
      await run();
      await insert(id + 1);
      await run();
      expect(
        events.filter((e) =>
          ['failed', 'rows-refused', 'values-replaced', 'table-suspended'].includes(e.kind),
        ),
      ).toEqual([]);
      const texts = COLUMNS.map(expected);
      const mine = (await rows()).filter((r) => r[0] === id || r[0] === id + 1);
      expect(mine).toEqual([
        [id, ...texts],
        [id + 1, ...texts],
      ]);
      // Not one character replaced on the way (JSON writes SUB as \u001a).
      const flat = JSON.stringify(mine);
      expect(flat.includes('\ufffd') || flat.includes('\\u001a')).toBe(false);
    });
  },
);
