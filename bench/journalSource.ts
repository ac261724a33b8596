// The journal agent on a benchmark's own simulated IBM i: BENCH.BIG journaled with both images, the
// agent's settings, and the benchmark's rows inserted in one commit cycle.
import type { IbmiConnection } from '../lib/ibmi/connection';
import { openJournalSource } from '../main/agents/journal/source';
import { startSandboxIbmi } from '../simulators/ibmi';
import { SEED_ADMIN, seedAgentCredentials } from '../simulators/ibmi/seed';
import type { BenchRow } from './rawTargets';
import { journalConfiguration, type JournalConfiguration } from '../shared/agents/journal';

export const JOURNAL_BENCH_ENTITIES = [
  { source: { schema: 'BENCH', table: 'BIG' }, target: { table: 'big' } },
];

/** The benchmarks' journal agent settings: the declared defaults a DBA starts from. */
export const JOURNAL_BENCH_CONFIGURATION: JournalConfiguration = journalConfiguration.schema.parse({});

export interface JournalBench {
  /** The journal agent on BENCH.BIG, as the runner opens it. */
  open(): ReturnType<typeof openJournalSource>;
  /** `rows` inserted into BENCH.BIG in one transaction: one journal entry each. */
  insert(rows: readonly BenchRow[]): Promise<void>;
  /** DSPJRN of BENCH.BIG's record entries to QGPL.BENCHOUT, read back by one SELECT: the entries read. */
  displayJournal(): Promise<number>;
  /** Every statement answered `ms` late from now on: an IBM i that far away (0: beside the engine). */
  setLinkDelay(ms: number): void;
  /** The administrator's session and the simulated IBM i closed. */
  close(): Promise<void>;
}

/** BENCH.BIG, empty, journaled with both images: the benchmarks' IBM i table. */
export async function createJournalBenchTable(admin: IbmiConnection): Promise<void> {
  await admin.query('CREATE SCHEMA BENCH');
  await admin.query(
    'CREATE TABLE BENCH.BIG (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(50) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL, AT TIMESTAMP NOT NULL)',
  );
  await admin.command('CHGJRNOBJ OBJ((BENCH/BIG *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
}

export async function startJournalBench(): Promise<JournalBench> {
  const sandbox = await startSandboxIbmi({ seed: true });
  // One administrator's session for the whole benchmark: a timed DSPJRN does not sign on.
  const admin = await sandbox.connect({ ...SEED_ADMIN });
  await createJournalBenchTable(admin);
  return {
    open: () =>
      openJournalSource({
        credentials: seedAgentCredentials(sandbox.host),
        configuration: JOURNAL_BENCH_CONFIGURATION,
        pipelineId: 'bench',
        agentId: 'src',
      }),
    insert: (rows) =>
      admin.transaction(async (t) => {
        for (const [id, name, amount, at] of rows)
          await t.query('INSERT INTO BENCH.BIG VALUES (?, ?, ?, ?)', [id, name, amount, at]);
      }),
    displayJournal: async () => {
      await admin.command(
        'DSPJRN JRN(BENCH/QSQJRN) FILE((BENCH/BIG)) RCVRNG(*CURCHAIN) JRNCDE((R)) OUTPUT(*OUTFILE) ' +
          'OUTFILFMT(*TYPE5) OUTFILE(QGPL/BENCHOUT) ENTDTALEN(*CALC)',
      );
      return (await admin.query('SELECT JOSEQN, JOCODE, JOENTT, JONVI, JOESD FROM QGPL.BENCHOUT')).length;
    },
    setLinkDelay: (ms) => {
      sandbox.system.linkDelayMs = ms;
    },
    close: async () => {
      await admin.close();
      await sandbox.close();
    },
  };
}
