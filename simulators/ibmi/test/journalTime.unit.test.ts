// DSPJRN's FROMTIME and TOTIME as IBM documents them: the first entry at or after the starting date
// and time, the last at or before the ending one, both in the job's date format and local time,
// across a chain of receivers. The clock is the system's own seam, so every entry's time is known.
import { afterEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { startSandboxIbmi, type SandboxIbmi } from '..';
import { SEED_ADMIN } from '../seed';
import type { JobDateSettings } from '../system/jobDates';
import { dspjrn, failure } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi | undefined;
afterEach(() => sandbox?.close());

/** 2026-07-01 10:00:00 UTC; the system runs one hour ahead (QUTCOFFSET +01:00), so 11:00:00 local. */
const START = Date.UTC(2026, 6, 1, 10, 0, 0);

/**
 * A journaled table with a row inserted at local 11:00:00, 11:00:30, 11:01:00, 11:01:00.500, then (in
 * a new receiver) 11:02:00 and 11:03:00. Answers the connection and each key's sequence number.
 */
async function journalAtKnownTimes(jobDates?: JobDateSettings) {
  let clock = START - 60_000;
  sandbox = await startSandboxIbmi({
    seed: true,
    now: () => new Date(clock),
    utcOffsetMinutes: 60,
    ...(jobDates && { jobDates }),
  });
  const c = await sandbox.connect({ ...SEED_ADMIN, defaultLibrary: 'QGPL' });
  await c.query('CREATE SCHEMA TIMED');
  await c.query('CREATE TABLE TIMED.T (K INTEGER NOT NULL PRIMARY KEY)');
  const at = async (offsetMs: number, key: number) => {
    clock = START + offsetMs;
    await c.query('INSERT INTO TIMED.T VALUES (?)', [key]);
  };
  await at(0, 1);
  await at(30_000, 2);
  await at(60_000, 3);
  await at(60_500, 4);
  clock = START + 90_000;
  await c.command('CHGJRN JRN(TIMED/QSQJRN) JRNRCV(*GEN)');
  await at(120_000, 5);
  await at(180_000, 6);
  const rows = await dspjrn(c, 'TIMED/QSQJRN', 'RCVRNG(*CURCHAIN) JRNCDE((R))');
  const seqOf = new Map(rows.map((r, i) => [i + 1, r.seq]));
  return { c, seqOf, receivers: new Set(rows.map((r) => r.receiver)).size };
}

/** The keys of the R PT entries DSPJRN converts with these options. */
async function keysConverted(c: IbmiConnection, options: string): Promise<number[]> {
  const rows = await dspjrn(c, 'TIMED/QSQJRN', `RCVRNG(*CURCHAIN) JRNCDE((R)) ${options}`);
  return rows.map((r) => new DataView(r.esd.buffer, r.esd.byteOffset).getInt32(0));
}

describe('DSPJRN FROMTIME and TOTIME', () => {
  it('start at the first entry at or after the starting time, across the receiver chain', async () => {
    const { c, receivers } = await journalAtKnownTimes();
    expect(receivers).toBe(2);
    // IBM's form: the date in the job's format (*MDY here), the time as hhmmss.
    expect(await keysConverted(c, "FROMTIME('07/01/26' 110030)")).toEqual([2, 3, 4, 5, 6]);
    // Between two entries: the next one starts; without separators the date is read the same.
    expect(await keysConverted(c, 'FROMTIME(070126 110031)')).toEqual([3, 4, 5, 6]);
    // In the second receiver only.
    expect(await keysConverted(c, "FROMTIME('07/01/2026' '11:01:30')")).toEqual([5, 6]);
  });

  it('end at the last entry at or before the ending time, the whole named second included', async () => {
    const { c } = await journalAtKnownTimes();
    expect(await keysConverted(c, "TOTIME('07/01/26' 110100)")).toEqual([1, 2, 3, 4]);
    expect(await keysConverted(c, "TOTIME('07/01/26' 110059)")).toEqual([1, 2]);
    expect(await keysConverted(c, "FROMTIME('07/01/26' 110030) TOTIME('07/01/26' 110200)")).toEqual([
      2, 3, 4, 5,
    ]);
  });

  it('times are local: the system offset applies, UTC is not what the job names', async () => {
    const { c } = await journalAtKnownTimes();
    // 10:00:00 is the UTC time of the first entry; local time names it 11:00:00.
    expect(await keysConverted(c, "TOTIME('07/01/26' 105959)")).toEqual([]);
    expect(await keysConverted(c, "FROMTIME('07/01/26' 100000)")).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("read the date in the job's format and separators (*DMY with '.')", async () => {
    const { c } = await journalAtKnownTimes({ dateFormat: '*DMY', dateSeparator: '.', timeSeparator: '.' });
    expect(await keysConverted(c, "FROMTIME('01.07.26' '11.02.00')")).toEqual([5, 6]);
    const e = await failure(
      c.command(
        "DSPJRN JRN(TIMED/QSQJRN) FROMTIME('07/01/26' 110000) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/X)",
      ),
    );
    // A command's syntax errors come as CPF0006 with the CPD diagnostic, as through QCMDEXC.
    expect(e.message).toBe(
      "CPF0006: Errors occurred in command. CPD0084: Value '07/01/26' for parameter FROMTIME not a valid value.",
    );
  });

  it('refuse what IBM refuses: no such date, both a sequence and a time, an end before the start', async () => {
    const { c, seqOf } = await journalAtKnownTimes();
    const dspjrnFails = (options: string) =>
      failure(
        c.command(
          `DSPJRN JRN(TIMED/QSQJRN) RCVRNG(*CURCHAIN) ${options} OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/X)`,
        ),
      );
    expect((await dspjrnFails("FROMTIME('02/30/26' 110000)")).message).toContain(
      "CPD0084: Value '02/30/26' for parameter FROMTIME not a valid value.",
    );
    expect((await dspjrnFails("FROMTIME('07/01/26' 246000)")).message).toContain(
      "CPD0084: Value '246000' for parameter FROMTIME not a valid value.",
    );
    expect((await dspjrnFails(`FROMENTLRG(${seqOf.get(1)}) FROMTIME('07/01/26' 110000)`)).message).toContain(
      'FROMENT and FROMTIME cannot both be specified',
    );
    expect((await dspjrnFails("FROMTIME('07/01/26' 110200) TOTIME('07/01/26' 110000)")).messageId).toBe(
      'CPF7054',
    );
    expect((await dspjrnFails("FROMTIME('07/01/26' 120000)")).messageId).toBe('CPF7062');
  });

  it("QSYS2.DISPLAY_JOURNAL's STARTING_TIMESTAMP: entries at or after it, to the microsecond", async () => {
    const { c } = await journalAtKnownTimes();
    const keysFrom = async (timestamp: string) => {
      const rows = await c.query(
        "SELECT ENTRY_DATA FROM TABLE(QSYS2.DISPLAY_JOURNAL('TIMED', 'QSQJRN', '', '*CURCHAIN', ?, NULL, 'R', 'PT', '', '')) X ORDER BY SEQUENCE_NUMBER",
        [timestamp],
      );
      return rows.map((r) => {
        const data = r.ENTRY_DATA as Uint8Array;
        return new DataView(data.buffer, data.byteOffset).getInt32(0);
      });
    };
    expect(await keysFrom('2026-07-01-11.01.00.000001')).toEqual([4, 5, 6]);
    expect(await keysFrom('2026-07-01 11:00:30')).toEqual([2, 3, 4, 5, 6]);
    await expect(keysFrom('July 1st')).rejects.toThrow(/SQL0180/);
  });
});
