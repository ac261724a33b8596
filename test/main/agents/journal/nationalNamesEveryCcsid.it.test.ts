// Names under each of the other national CCSIDs IBM lists for variant characters (273, 277, 278, 280,
// 284, 297, 500): a library, a file, a field and the agent's sync library spelt with the characters
// that CCSID shows at X'5B', X'7B' and X'7C', read from its table, never typed from memory. On a
// simulated IBM i whose jobs run in that CCSID the checks pass once their fixes ran, and a pipeline
// copies one row and streams another into SQLite, through DSPJRN and its outfile. CCSID 285 runs the
// whole way into every target in nationalNames.it.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleByteUnits } from '../../../../lib/ibmi/ccsid';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { journalChecks } from '../../../../main/agents/journal/checks';
import { SyncLibrary } from '../../../../main/agents/journal/syncLibrary';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN, SEED_AGENT } from '../../../../simulators/ibmi/seed';
import { journalEntity, journalRunner, sandboxIbmiCredentials } from '../../../helpers/journal';

/** The characters a CCSID shows at the bytes of $, # and @. */
const variants = (ccsid: number) =>
  [0x5b, 0x7b, 0x7c].map((b) => String.fromCharCode(singleByteUnits(ccsid)[b] as number)) as [
    string,
    string,
    string,
  ];

describe.each([273, 277, 278, 280, 284, 297, 500])('names on a CCSID %i system', (ccsid) => {
  const [dollar, hash, at] = variants(ccsid);
  const library = `${dollar}SHOP${hash}`;
  const file = `ORD${at}${dollar}`;
  const field = `${hash}NET`;
  const syncLibrary = `${at}SYNC${dollar}`;
  const entity = journalEntity({ schema: library, table: file });
  const credentials = (sync: string) =>
    sandboxIbmiCredentials(sandbox, {
      username: SEED_AGENT.user,
      password: SEED_AGENT.password,
      syncLibrary: sync,
    });
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true, ccsid });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query(`CREATE SCHEMA ${library}`);
    await admin.query(
      `CREATE TABLE ${library}.${file} (ID INTEGER NOT NULL PRIMARY KEY, ${field} DECIMAL(9, 2))`,
    );
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
  });

  it(`spells them with ${dollar} ${hash} ${at}, the checks pass after their fixes, and rows arrive`, async () => {
    // The national characters of this CCSID, not another's: 500 keeps $ # @, 277 has none of them.
    expect(new Set([dollar, hash, at]).size).toBe(3);
    const c = await sandbox.connect({ user: SEED_AGENT.user, password: SEED_AGENT.password });
    try {
      const checks = () =>
        journalChecks(
          c,
          credentials(`${at}CHK${hash}`),
          new SyncLibrary(c, credentials(`${at}CHK${hash}`), 'p/src'),
          [entity],
        );
      for (let round = 0; round < 3; round++) {
        const fixes = (await checks()).filter((r) => r.status === 'failed' && r.fix).map((r) => r.fix ?? '');
        for (const fix of fixes) for (const command of fix.split('\n')) await admin.command(command);
      }
      const results = await checks();
      expect(results.filter((r) => r.status === 'failed')).toEqual([]);
      expect(results.find((r) => r.id === 'journal-detected')?.message).toBe(
        `${library}/${file}: ${library}/QSQJRN (detected)`,
      );
    } finally {
      await c.close();
    }

    const path = join(mkdtempSync(join(tmpdir(), `cdc-names-${ccsid}-`)), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    // The pipeline's id names its sync library (journalRunner): national characters there too.
    const run = () =>
      journalRunner(
        sandbox,
        syncLibrary,
        [{ ...entity, target: { table: 'orders' } }],
        async () => new SqliteTarget(path, syncLibrary),
        events,
      ).runUntilCaughtUp();
    await admin.query(`INSERT INTO ${library}.${file} VALUES (1, 12.50)`);
    await run();
    await admin.query(`INSERT INTO ${library}.${file} VALUES (2, 7.25)`);
    await run();
    expect(events.filter((e) => ['failed', 'rows-refused', 'table-suspended'].includes(e.kind))).toEqual([]);
    // The second row came through the journal: DSPJRN named the file as this CCSID shows it.
    expect(events.some((e) => e.kind === 'batch-applied')).toBe(true);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare(`SELECT "ID", "${field}" FROM "orders" ORDER BY 1`).raw().all()).toEqual([
        [1, '12.50'],
        [2, '7.25'],
      ]);
    } finally {
      db.close();
    }
  });
});
