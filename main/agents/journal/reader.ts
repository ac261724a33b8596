// Reading a journal: the receiver chain from JOURNAL_RECEIVER_INFO, and DSPJRN into an outfile in the
// sync library from a position onward, read back in order and removed again with DLTF.
import { JOURNAL_WORK_FILES } from '../../../shared/agents/journal';
import { IbmiError, type IbmiConnection, type IbmiRow, cellText as text } from '../../../lib/ibmi/connection';
import type { JournalEntryRow } from './assemble';
import type { JournalPosition } from './position';

export interface JournalName {
  library: string;
  name: string;
}

export interface ReceiverInfo {
  library: string;
  name: string;
  status: string;
  firstSequence: number;
  lastSequence: number;
  journal: JournalName;
}

/** The receivers of the journals, oldest first per journal (one query). */
export async function receiverChains(
  c: IbmiConnection,
  journals: readonly JournalName[],
): Promise<Map<string, ReceiverInfo[]>> {
  const chains = new Map<string, ReceiverInfo[]>(journals.map((j) => [journalKey(j), []]));
  if (journals.length === 0) return chains;
  const rows = await c.query(
    'SELECT JOURNAL_RECEIVER_LIBRARY, JOURNAL_RECEIVER_NAME, STATUS, FIRST_SEQUENCE_NUMBER, LAST_SEQUENCE_NUMBER, ' +
      'JOURNAL_LIBRARY, JOURNAL_NAME FROM QSYS2.JOURNAL_RECEIVER_INFO ' +
      `WHERE JOURNAL_LIBRARY IN (${journals.map(() => '?').join(', ')}) ORDER BY ATTACH_TIMESTAMP`,
    journals.map((j) => j.library),
  );
  for (const r of rows) {
    const journal = { library: text(r.JOURNAL_LIBRARY), name: text(r.JOURNAL_NAME) };
    chains.get(journalKey(journal))?.push({
      library: text(r.JOURNAL_RECEIVER_LIBRARY),
      name: text(r.JOURNAL_RECEIVER_NAME),
      status: text(r.STATUS),
      firstSequence: Number(r.FIRST_SEQUENCE_NUMBER ?? 0),
      lastSequence: Number(r.LAST_SEQUENCE_NUMBER ?? 0),
      journal,
    });
  }
  return chains;
}

const MAX_DSPJRN_FILES = 300;
/** A file has at most 8,000 fields on IBM i: NULLINDLEN's largest length. */
const MAX_FIELDS = 8000;

/** What one DSPJRN read may bring into memory: entries times their padded record (JOESD) and header. */
const READ_BUDGET_BYTES = 64 * 2 ** 20;
/** The outfile's other columns as the driver hands them, and the entry's own objects, per entry. */
const ENTRY_OVERHEAD_BYTES = 512;

const { journalOutfile: JOURNAL_OUTFILE, outfileLayout: OUTFILE_LAYOUT } = JOURNAL_WORK_FILES;
/**
 * Entries per DSPJRN read: JOESD is padded to the longest entry read (ENTDTALEN(*CALC)), so a file of
 * wide records gets fewer entries a read — 20,000 of an order line, ~2,000 of a 32 KB record — and one
 * read stays near 64 MB whatever the files hold.
 */
export function entriesPerRead(widestRecordBytes: number): number {
  const fit = Math.floor(READ_BUDGET_BYTES / (Math.max(0, widestRecordBytes) + ENTRY_OVERHEAD_BYTES));
  return Math.max(500, Math.min(20_000, fit));
}

export const journalKey = (j: JournalName) => `${j.library}/${j.name}`;

/** Each journal once, in the order first met. */
export const distinctJournals = (journals: Iterable<JournalName>): JournalName[] => [
  ...new Map([...journals].map((j) => [journalKey(j), j])).values(),
];

/** Where a position falls in the chain, for ordering positions across receivers; -1 when its receiver is gone. */
export function chainIndex(chain: readonly ReceiverInfo[], p: JournalPosition): number {
  return chain.findIndex((r) => r.library === p.library && r.name === p.receiver);
}

/** Orders positions by the chain, then by sequence; a receiver that is gone comes first. */
export const chainOrder =
  (chain: readonly ReceiverInfo[]) =>
  (a: JournalPosition, b: JournalPosition): number =>
    chainIndex(chain, a) - chainIndex(chain, b) || a.sequence - b.sequence;

/** The last entry of the journal now: where a snapshot's changes start. */
export function journalEnd(chain: readonly ReceiverInfo[]): JournalPosition | null {
  const attached = chain.find((r) => r.status === 'ATTACHED') ?? chain.at(-1);
  return attached
    ? { library: attached.library, receiver: attached.name, sequence: attached.lastSequence }
    : null;
}

/**
 * Entries of the files from `from` (inclusive) onward, record, commitment and file entries, at most
 * `limit`. `mostFields`, the most fields a file read has, sizes the outfile's null indicators
 * (NULLINDLEN): with it fixed, so are the positions before JOESD from one read to the next.
 */
export async function readJournal(
  c: IbmiConnection,
  syncLibrary: string,
  journal: JournalName,
  /** `allMembers`: every member's entries (DSPJRN's member *ALL), not only the first's (*FIRST). */
  files: readonly { library: string; file: string; allMembers?: boolean }[],
  from: JournalPosition,
  limit: number,
  mostFields: number,
  /** User entries too (code U, whatever the file selection): where the heartbeat is. */
  userEntries = false,
): Promise<JournalEntryRow[]> {
  const outfile = `${syncLibrary}/${JOURNAL_OUTFILE}`;
  // DSPJRN's FILE takes at most 300 files; past that the journal is read whole and the entries of
  // other files are left out here (assemble() keeps only the tables it reads).
  const fileList =
    files.length > MAX_DSPJRN_FILES
      ? '*ALLFILE'
      : files.map((f) => `(${f.library}/${f.file}${f.allMembers ? ' *ALL' : ''})`).join(' ');
  const fromEntry = from.sequence > 0 ? String(from.sequence) : '*FIRST';
  const indicators = Math.min(MAX_FIELDS, Math.max(1, mostFields));
  const display = (selection: string) =>
    c.command(
      `DSPJRN JRN(${journal.library}/${journal.name}) FILE(${selection}) RCVRNG(${from.library}/${from.receiver} *CURRENT) ` +
        `FROMENTLRG(${fromEntry}) JRNCDE((C *IGNFILSLT) (R) (F) (D)${userEntries ? ' (U *IGNFILSLT)' : ''}) NBRENT(${limit}) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) ` +
        `OUTFILE(${outfile}) ENTDTALEN(*CALC) NULLINDLEN(${indicators})`,
    );
  try {
    try {
      await display(fileList);
    } catch (error) {
      // DSPJRN selects only files that exist under their name now. A file deleted, renamed or moved
      // still has entries to read up to its D DT, FN or FM (each carries the name it was written
      // under): the journal is read whole this time and the other files' entries are left out here.
      if (!(error instanceof IbmiError && error.messageId === 'CPF9812') || fileList === '*ALLFILE')
        throw error;
      await display('*ALLFILE');
    }
  } catch (error) {
    // CPF7062: no entries converted or copied — nothing new.
    if (error instanceof IbmiError && error.messageId === 'CPF7062') return [];
    throw error;
  }
  try {
    const rows = await c.query(
      `SELECT ${OUTFILE_COLUMNS} FROM ${syncLibrary}.${JOURNAL_OUTFILE} ORDER BY RRN(${JOURNAL_OUTFILE})`,
    );
    const header = await positionsBeforeEsd(c, syncLibrary, indicators);
    return rows.map((r) => outfileEntry(r, header));
  } finally {
    await c.command(`DLTF FILE(${outfile})`).catch(() => undefined);
  }
}

/**
 * The file DSPJRN refused for want of authority: CPF9802 ("Not authorized to object FILE in LIB.")
 * names the file, CPF9820 ("Not authorized to use library LIB.") its library, whose first file of
 * the read is answered (`byLibrary`). DSPJRN asks *USE of each file it selects, and CHKOBJ … AUT(*USE)
 * answers the same, so one refusal stops the whole read.
 */
export function refusedFile<T extends { library: string; file: string }>(
  error: unknown,
  files: readonly T[],
): { file: T; byLibrary: boolean } | undefined {
  if (!(error instanceof IbmiError)) return undefined;
  const said = error.message.toUpperCase();
  const byLibrary = error.messageId === 'CPF9820';
  const file =
    error.messageId === 'CPF9802'
      ? files.find((f) => said.includes(`OBJECT ${f.file} IN ${f.library}`))
      : byLibrary
        ? files.find((f) => said.includes(`LIBRARY ${f.library}.`))
        : undefined;
  return file && { file, byLibrary };
}

/** Why a file is suspended when its authority (or its library's) was revoked, and what gives it back. */
export function notAuthorizedReason(
  f: { library: string; file: string },
  profile: string,
  command: string,
  library = false,
): string {
  return library
    ? `the user profile ${profile} is no longer authorized to library ${f.library} (CPF9820 on ${command}): ` +
        `grant it again (GRTOBJAUT OBJ(${f.library}) OBJTYPE(*LIB) USER(${profile}) AUT(*USE)), then resume the table`
    : `the user profile ${profile} is no longer authorized to ${f.library}/${f.file} (CPF9802 on ${command}): ` +
        `grant it again (GRTOBJAUT OBJ(${f.library}/${f.file}) OBJTYPE(*FILE) USER(${profile}) AUT(*USE)), then resume the table`;
}

/** The columns of a DSPJRN *TYPE5 outfile the agent reads, in the order it selects them. */
const OUTFILE_COLUMNS =
  'JOENTL, JOINCDAT, JOSEQN, JOCODE, JOENTT, JOTSTP, JOJOB, JOUSER, JONBR, JOPGM, JOUSPF, JOLIB, JOOBJ, JOMBR, JOCTRR, JOCCID, JORCVLIB, JORCV, JONVI, JOMINESD, JOESD';

/** One outfile row as an entry; `header` is how many positions precede JOESD (positionsBeforeEsd). */
export const outfileEntry = (r: IbmiRow, header: number): JournalEntryRow => ({
  sequence: Number(r.JOSEQN),
  code: text(r.JOCODE),
  type: text(r.JOENTT),
  timestamp: text(r.JOTSTP),
  library: text(r.JOLIB),
  file: text(r.JOOBJ),
  member: text(r.JOMBR),
  rrn: Number(r.JOCTRR),
  cycle: Number(r.JOCCID),
  receiverLibrary: text(r.JORCVLIB),
  receiver: text(r.JORCV),
  nullIndicators: String(r.JONVI ?? ''),
  data: r.JOESD instanceof Uint8Array ? r.JOESD : new Uint8Array(0),
  minimized: text(r.JOMINESD) === '1',
  imageLength: text(r.JOINCDAT) === '1' || Number(r.JOENTL) >= 99999 ? undefined : Number(r.JOENTL) - header,
  origin: {
    job: text(r.JOJOB),
    jobUser: text(r.JOUSER),
    // A job number is six digits, leading zeros kept (WRKJOB shows 012345).
    jobNumber: String(Number(r.JONBR ?? 0)).padStart(6, '0'),
    program: text(r.JOPGM),
    userProfile: text(r.JOUSPF),
  },
});

/** Per connection (one system, one release), the positions before JOESD by NULLINDLEN. */
const knownHeaders = new WeakMap<IbmiConnection, Map<number, number>>();

/**
 * How many positions of the outfile's record come before JOESD (its output buffer position less one,
 * from DSPFFD): JOENTL counts the entry from its first position, and JONVI before JOESD is as long as
 * NULLINDLEN says, so the prefix is read from the outfile itself, never assumed — once per connection
 * and length: three statements a read fewer on a link where each costs a round trip.
 */
async function positionsBeforeEsd(
  c: IbmiConnection,
  syncLibrary: string,
  indicators: number,
): Promise<number> {
  const known = knownHeaders.get(c) ?? new Map<number, number>();
  knownHeaders.set(c, known);
  const cached = known.get(indicators);
  if (cached !== undefined) return cached;
  const outfile = `${syncLibrary}/${OUTFILE_LAYOUT}`;
  await c.command(`DSPFFD FILE(${syncLibrary}/${JOURNAL_OUTFILE}) OUTPUT(*OUTFILE) OUTFILE(${outfile})`);
  try {
    const [row] = await c.query(`SELECT WHFOBO FROM ${syncLibrary}.${OUTFILE_LAYOUT} WHERE WHFLDE = 'JOESD'`);
    const header = Number(row?.WHFOBO ?? 1) - 1;
    if (row) known.set(indicators, header);
    return header;
  } finally {
    await c.command(`DLTF FILE(${outfile})`).catch(() => undefined);
  }
}

/** Why a table's position is lost: the receiver it resumes in was deleted before the agent read it. */
export function receiverGoneReason(position: JournalPosition, table: string): string {
  return (
    `Journal receiver ${position.library}/${position.receiver}, where ${table} resumes (after sequence ${position.sequence}), ` +
    'was deleted before the agent read it: the changes in it cannot be read, so the table is copied again rather than skip them.'
  );
}

/** The position furthest back in the chain (a receiver that is gone counts as furthest back). */
export function earliest(chain: readonly ReceiverInfo[], positions: JournalPosition[]): JournalPosition {
  const order = chainOrder(chain);
  return positions.reduce((a, b) => (order(a, b) <= 0 ? a : b));
}
