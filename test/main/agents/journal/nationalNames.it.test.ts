// A UK shop's IBM i (QCCSID 285, where the byte of $ shows as £): a library £SHOP#, a file ORD£@ with a
// field £NET, the agent's own sync library £S…, all as the catalog shows them. The checks name them
// and their fixes run as given; the pipeline copies one row and streams another into SQLite,
// PostgreSQL and JetStream, and every name and character arrives as the system shows it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { journalChecks } from '../../../../main/agents/journal/checks';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { SyncLibrary } from '../../../../main/agents/journal/syncLibrary';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { escapeToken } from '../../../../main/agents/nats/subjects';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN, SEED_AGENT } from '../../../../simulators/ibmi/seed';
import { applyEvents, readStream } from '../../../helpers/debeziumConsumer';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';

const LIBRARY = '£SHOP#';
const FILE = 'ORD£@';
const SERVERS = natsServers();
const streams: string[] = [];

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true, ccsid: 285 });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query(`CREATE SCHEMA ${LIBRARY}`);
  await admin.query(
    `CREATE TABLE ${LIBRARY}.${FILE} (ID INTEGER NOT NULL PRIMARY KEY, £NET DECIMAL(9, 2), NOTE VARCHAR(20))`,
  );
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
  await deleteStreams(SERVERS, streams);
});

const entity = journalEntity({ schema: LIBRARY, table: FILE });
const credentials = (syncLibrary: string) =>
  sandboxIbmiCredentials(sandbox, { username: SEED_AGENT.user, password: SEED_AGENT.password, syncLibrary });

describe('names with £ # @ on a CCSID 285 system', () => {
  it('the checks name the file as the system shows it, and their fixes run as given', async () => {
    const c = await sandbox.connect({ user: SEED_AGENT.user, password: SEED_AGENT.password });
    const run = () =>
      journalChecks(c, credentials('£SCHECK'), new SyncLibrary(c, credentials('£SCHECK'), 'p/src'), [entity]);
    try {
      await admin.command(`RVKOBJAUT OBJ(${LIBRARY}/${FILE}) OBJTYPE(*FILE) USER(*PUBLIC) AUT(*ALL)`);
      const fixesOf = async () =>
        Object.fromEntries(
          (await run()).filter((r) => r.status === 'failed' && r.fix).map((r) => [r.id, r.fix ?? '']),
        );
      // First the file cannot be seen at all; once it can, its journaling is the one thing left.
      const rounds = [
        {
          'permission-read-source': `GRTOBJAUT OBJ(${LIBRARY}/${FILE}) OBJTYPE(*FILE) USER(CDCAGENT) AUT(*USE)`,
        },
        { journaling: `CHGJRNOBJ OBJ((${LIBRARY}/${FILE} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)` },
      ];
      for (const expected of rounds) {
        const fixes = await fixesOf();
        expect(fixes).toEqual(expected);
        for (const fix of Object.values(fixes))
          for (const command of fix.split('\n')) await admin.command(command);
      }
      const again = await run();
      expect(again.filter((r) => r.status !== 'passed')).toEqual([]);
      expect(again.find((r) => r.id === 'journal-detected')?.message).toBe(
        `${LIBRARY}/${FILE}: ${LIBRARY}/QSQJRN (detected)`,
      );
    } finally {
      await c.close();
    }
  });

  describe.each(['SQLite', 'PostgreSQL', 'JetStream'] as const)('into %s', (label) => {
    const syncLibrary = `£S${label.slice(0, 4).toUpperCase()}#`;
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-national-')), 'replica.sqlite');
    const schema = `cdc_national_${process.pid}`;
    const stream = `NATIONAL_${process.pid}`;
    let client: pg.Client | undefined;
    let drop: (() => Promise<void>) | undefined;
    const target = async (): Promise<Target> => {
      if (label === 'SQLite') return new SqliteTarget(path, 'uk');
      if (label === 'PostgreSQL') return new PostgresTarget({ ...POSTGRES, schema }, 'uk');
      return new NatsTarget({
        credentials: { connectionName: 'uk', servers: SERVERS, tls: false },
        configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: 'uk' }),
        pipelineId: 'uk',
        origin: { connector: 'ibmi', server: 'sandbox', database: null },
      });
    };
    const rows = async (): Promise<unknown[][]> => {
      if (label === 'SQLite') {
        const db = new Database(path, { readonly: true });
        try {
          return db
            .prepare(`SELECT "ID", "£NET", "NOTE" FROM "${FILE}" ORDER BY 1`)
            .raw()
            .all() as unknown[][];
        } finally {
          db.close();
        }
      }
      if (label === 'PostgreSQL') {
        const r = await (client as pg.Client).query({
          text: `SELECT "ID", "£NET"::text, "NOTE" FROM "${schema}"."${FILE}" ORDER BY 1`,
          rowMode: 'array',
        });
        return r.rows as unknown[][];
      }
      // The subject names the library and the file, each escaped as one token (subjects.ts).
      const subject = `uk.${escapeToken(LIBRARY)}.${escapeToken(FILE)}`;
      const applied = applyEvents(await readStream(SERVERS, stream, subject));
      return [...(applied.get(`${LIBRARY}.${FILE}`)?.values() ?? [])]
        .map((r) => [Number(r.ID), r['£NET'], r.NOTE])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    };

    beforeAll(async () => {
      if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
      if (label === 'JetStream') streams.push(stream);
    });
    afterAll(async () => {
      await drop?.();
    });

    it('copies one row and streams another, names and characters as the system shows them', async () => {
      const events: RunnerEvent[] = [];
      const run = () =>
        new PipelineRunner({
          openSource: () =>
            openJournalSource({
              credentials: sandboxIbmiCredentials(sandbox, { syncLibrary }),
              configuration: journalConfiguration(),
              pipelineId: `uk${label}`,
              agentId: 'src',
              entities: [entity],
            }),
          openTarget: target,
          entities: [{ source: { schema: LIBRARY, table: FILE }, target: { table: FILE } }],
          onEvent: (e) => events.push(e),
          retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
        }).runUntilCaughtUp();
      const id = label === 'SQLite' ? 1 : label === 'PostgreSQL' ? 3 : 5;
      const insert = (n: number) =>
        admin.query(`INSERT INTO ${LIBRARY}.${FILE} VALUES (?, ?, ?)`, [n, '12.50', '£5 off #1 @ home']);
      await insert(id);
      await run();
      await insert(id + 1);
      await run();
      expect(
        events.filter((e) =>
          ['failed', 'rows-refused', 'values-replaced', 'table-suspended'].includes(e.kind),
        ),
      ).toEqual([]);
      const mine = (await rows()).filter((r) => r[0] === id || r[0] === id + 1);
      expect(mine).toEqual([
        [id, '12.50', '£5 off #1 @ home'],
        [id + 1, '12.50', '£5 off #1 @ home'],
      ]);
      // The agent's own library took the national character too, and holds its checkpoint there.
      const [lib] = await admin.query(
        'SELECT COUNT(*) AS N FROM QSYS2.SYSTABLES WHERE SYSTEM_TABLE_SCHEMA = ?',
        [syncLibrary],
      );
      expect(Number(lib?.N)).toBeGreaterThan(0);
    });
  });
});
