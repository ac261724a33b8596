// Helpers for tests of the simulated IBM i, through the IbmiConnection interface only.
import type { IbmiConnection, IbmiRow } from '../../lib/ibmi/connection';
import { IbmiError } from '../../lib/ibmi/connection';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_ADMIN } from '../../simulators/ibmi/seed';
import type { UserProfile } from '../../simulators/ibmi/system/users';

export interface JournalRow {
  seq: number;
  code: string;
  type: string;
  rrn: number;
  cycle: number;
  member: string;
  object: string;
  receiver: string;
  nvi: string;
  esd: Uint8Array;
}

/** Runs DSPJRN into an outfile and reads it back, the way the journal agent reads a journal. */
export async function dspjrn(c: IbmiConnection, journal: string, options = ''): Promise<JournalRow[]> {
  try {
    await c.command(
      `DSPJRN JRN(${journal}) ${options} OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/JRNOUT) ENTDTALEN(*CALC)`,
    );
  } catch (e) {
    if (e instanceof IbmiError && e.messageId === 'CPF7062') return [];
    throw e;
  }
  const rows = await c.query(
    'SELECT JOSEQN, JOCODE, JOENTT, JOCTRR, JOCCID, JOMBR, JOOBJ, JORCV, JONVI, JOESD FROM QGPL.JRNOUT ORDER BY RRN(JRNOUT)',
  );
  return rows.map((r: IbmiRow) => ({
    seq: Number(r.JOSEQN),
    code: String(r.JOCODE),
    type: String(r.JOENTT),
    rrn: Number(r.JOCTRR),
    cycle: Number(r.JOCCID),
    member: String(r.JOMBR).trim(),
    object: String(r.JOOBJ).trim(),
    receiver: String(r.JORCV).trim(),
    nvi: String(r.JONVI),
    esd: r.JOESD as Uint8Array,
  }));
}

/** `code type` pairs, e.g. `R PT`, for comparing whole sequences of entries. */
export const kinds = (rows: JournalRow[]) => rows.map((r) => `${r.code} ${r.type}`);

export async function failure(work: Promise<unknown>): Promise<IbmiError> {
  try {
    await work;
  } catch (e) {
    if (e instanceof IbmiError) return e;
    throw e;
  }
  throw new Error('Expected IBM i to refuse.');
}

/** A seeded sandbox and a QSECOFR connection with QGPL as its current library. */
export async function seededIbmi(
  users: UserProfile[] = [],
): Promise<{ sandbox: SandboxIbmi; admin: IbmiConnection }> {
  const sandbox = await startSandboxIbmi({ seed: true, users });
  const admin = await sandbox.connect({ ...SEED_ADMIN, defaultLibrary: 'QGPL' });
  return { sandbox, admin };
}
