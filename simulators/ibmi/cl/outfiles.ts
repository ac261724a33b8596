// DSPJRN and DSPFFD with OUTPUT(*OUTFILE): the command creates the outfile (model QADSPJR5 for
// *TYPE5, QADSPFFD for field descriptions) when absent and writes one row per entry or field.
import { binaryDigits, fieldLength } from '../../../lib/ibmi/recordImage';
import { ddsFormatName } from '../../../lib/ibmi/dateTime';
import {
  assign,
  charColumn,
  discardingPending,
  q,
  writePending,
  zonedColumn,
  type ColumnSpec,
  type PhysicalFile,
  type SqlValue,
} from '../system/files';
import { selectEntries, type CodeSelection, type JournalEntry } from '../system/journals';
import { cpf } from '../system/messages';
import type { Args, CommandShape } from './args';
import { atom, commandError } from './parse';
import { clDateTime } from './dateTime';
import { useFile, type CommandContext } from './context';

const char = charColumn;
const zoned = zonedColumn;

/** The *TYPE5 outfile format (QJORDJE5), JOESD and JONVI sized by ENTDTALEN and NULLINDLEN. */
function type5Columns(esdLength: number, nviLength: number): ColumnSpec[] {
  return [
    zoned('JOENTL', 5),
    zoned('JOSEQN', 20),
    char('JOCODE', 1),
    char('JOENTT', 2),
    {
      name: 'JOTSTP',
      type: { kind: 'timestamp', ccsid: 37 },
      nullable: false,
      sqlType: 'TIMESTMP',
      length: 26,
      scale: null,
      defaultValue: null,
      hasDefault: true,
      text: '',
    },
    char('JOJOB', 10),
    char('JOUSER', 10),
    zoned('JONBR', 6),
    char('JOPGM', 10),
    char('JOPGMLIB', 10),
    char('JOPGMDEV', 10),
    zoned('JOPGMASP', 5),
    char('JOOBJ', 10),
    char('JOLIB', 10),
    char('JOMBR', 10),
    zoned('JOCTRR', 20),
    char('JOFLAG', 1),
    zoned('JOCCID', 20),
    char('JOUSPF', 10),
    char('JOSYNM', 8),
    char('JOJID', 10),
    char('JORCST', 1),
    char('JOTGR', 1),
    char('JOINCDAT', 1),
    char('JOIGNAPY', 1),
    char('JOMINESD', 1),
    char('JOOBJIND', 1),
    char('JOSYSSEQ', 20),
    char('JORCV', 10),
    char('JORCVLIB', 10),
    char('JORCVDEV', 10),
    zoned('JORCVASP', 5),
    zoned('JOARM', 5),
    char('JOOBJTYP', 7),
    char('JOFILTYP', 1),
    char('JOCMTLVL', 1),
    char('JONVI', nviLength),
    {
      name: 'JOESD',
      type: { kind: 'hex', length: esdLength },
      nullable: false,
      sqlType: 'BINARY',
      length: esdLength,
      scale: null,
      defaultValue: null,
      hasDefault: true,
      text: '',
    },
  ];
}

/**
 * `assign` for one column of an outfile, remembering its last value: most fields of a journal's
 * entries repeat from row to row (job, user, program, object, flags), and assigning one is pure.
 * Bytes are not remembered (each entry's image differs, and a Buffer could be changed after).
 */
function rememberingAssign(col: ColumnSpec): (v: SqlValue) => SqlValue {
  if (col.type.kind === 'rowid') return (v) => assign(col, v);
  let lastIn: SqlValue | undefined;
  let lastOut: SqlValue = null;
  return (v) => {
    if (v === lastIn) return lastOut;
    const out = assign(col, v);
    if (!Buffer.isBuffer(v) && !Buffer.isBuffer(out)) {
      lastIn = v;
      lastOut = out;
    }
    return out;
  };
}

/** An outfile's row: its fields by name, or by position in the outfile's columns (no object per row). */
type OutfileRow = Readonly<Record<string, SqlValue>> | readonly SqlValue[];

/** An outfile's records, made afresh for each call; with `positions`, only those fields need be made. */
interface OutfileRecords {
  rows(positions?: readonly number[]): Iterable<OutfileRow>;
  /**
   * How many there are, when they may be kept pending (Member.pending) instead of written at once: DSPJRN's
   * outfile is most often read once, whole, and deleted.
   */
  count?: number;
}

/** The fields at `positions` of each record, as the outfile's columns take them (one array, refilled). */
function* assignedFields(
  cols: readonly ColumnSpec[],
  records: OutfileRecords,
  positions: readonly number[],
): Generator<readonly SqlValue[]> {
  const assigners = positions.map((i) => rememberingAssign(cols[i] as ColumnSpec));
  const fields = new Array<SqlValue>(positions.length).fill(null);
  for (const row of records.rows(positions)) {
    const byPosition = Array.isArray(row);
    for (let k = 0; k < positions.length; k++) {
      const col = cols[positions[k] as number] as ColumnSpec;
      const value = byPosition
        ? (row as readonly SqlValue[])[positions[k] as number]
        : (row as Record<string, SqlValue>)[col.name];
      fields[k] = (assigners[k] as (v: SqlValue) => SqlValue)(value ?? col.defaultValue);
    }
    yield fields;
  }
}

/** Creates (or, with *REPLACE and another layout, re-creates) the outfile and writes `records` to its first member. */
function writeOutfile(
  c: CommandContext,
  a: Args,
  columns: ColumnSpec[],
  format: string,
  records: OutfileRecords,
) {
  const { library, name } = a.qualified('OUTFILE');
  c.system.useLibrary(c.job, library);
  const mode = atom(a.list('OUTMBR')[1]) ?? '*REPLACE';
  let file = c.system.file(library, name);
  const sameLayout =
    file !== undefined &&
    file.columns.length === columns.length &&
    file.columns.every(
      (col, i) =>
        col.name === columns[i]?.name && fieldLength(col.type) === fieldLength(columns[i]?.type ?? col.type),
    );
  if (file && !sameLayout) {
    if (mode === '*ADD') throw cpf('CPF3130', name, library);
    file = useFile(c, library, name, ['*OBJEXIST', '*OBJOPR']);
    c.system.deleteFile(file);
    file = undefined;
  }
  if (!file) {
    c.system.useLibrary(c.job, library, ['*EXECUTE', '*ADD', '*READ']);
    file = c.system.addFile(
      c.job,
      {
        library,
        name,
        origin: 'outfile',
        format,
        columns,
        key: null,
        reuseDeleted: false,
        maxMembers: 1,
        text: '',
      },
      name,
    );
  } else if (!c.system.can(c.job, file.authority, ['*OBJOPR', '*ADD', '*DLT']))
    throw cpf('CPF9802', '', name, library);
  const member = file.members[0] ?? c.system.addMember(file, name);
  if (mode === '*ADD') writePending(member);
  else {
    c.system.db.exec(`DELETE FROM ${q(discardingPending(member))}`);
    member.nextRrn = 1;
    member.deleted = [];
  }
  const cols = file.columns;
  const all = cols.map((_, i) => i);
  const table = member.tableName;
  const write = (firstRrn: number): number => {
    const insert = c.system.db.prepare(
      `INSERT INTO ${q(table)} (__RRN, ${cols.map((col) => q(col.name)).join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`,
    );
    // One parameter array, refilled per row: better-sqlite3 binds it before run() returns.
    const params: SqlValue[] = new Array<SqlValue>(cols.length + 1).fill(null);
    let rrn = firstRrn;
    c.system.db.transaction(() => {
      for (const fields of assignedFields(cols, records, all)) {
        params[0] = rrn++;
        for (let i = 0; i < fields.length; i++) params[i + 1] = fields[i] ?? null;
        insert.run(params);
      }
    })();
    return rrn - firstRrn;
  };
  if (records.count !== undefined && mode !== '*ADD') {
    member.nextRrn = 1 + records.count;
    member.pending = {
      count: records.count,
      fields: (positions) => assignedFields(cols, records, positions),
      write: () => void write(1),
    };
    return;
  }
  const first = member.nextRrn;
  member.nextRrn = first + write(first);
}

export const DSPJRN_SHAPE: CommandShape = {
  positional: [
    'JRN',
    'FILE',
    'RCVRNG',
    'FROMENT',
    'FROMTIME',
    'TOENT',
    'TOTIME',
    'NBRENT',
    'JRNCDE',
    'ENTTYP',
  ],
  keywords: [
    'FROMENTLRG',
    'TOENTLRG',
    'JOB',
    'PGM',
    'USRPRF',
    'CMTCYCID',
    'DEPENT',
    'OUTPUT',
    'OUTFILFMT',
    'OUTFILE',
    'OUTMBR',
    'ENTDTALEN',
    'NULLINDLEN',
    'INCHIDENT',
    'OBJ',
    'OBJJID',
    'OBJFILTER',
  ],
  required: ['JRN'],
};

const mutuallyExclusive = (a: string, b: string) =>
  commandError('CPD0084', `Parameters ${a} and ${b} cannot both be specified.`);

function sequence(a: Args, short: string, large: string, special: string): number | null {
  const text = a.text(large, a.text(short, special));
  if (text === special) return null;
  if (!/^\d+$/.test(text))
    throw commandError('CPD0084', `Value '${text}' for parameter ${large} not a valid value.`);
  return Number(text);
}

export function displayJournal(c: CommandContext, a: Args): void {
  const { library, name } = a.qualified('JRN');
  c.system.useLibrary(c.job, library);
  const journal = c.system.journal(library, name);
  if (!c.system.can(c.job, journal.authority, ['*OBJOPR', '*READ', '*EXECUTE']))
    throw cpf('CPF9802', '', name, library);
  if (a.text('OUTPUT', '*') !== '*OUTFILE')
    throw commandError('CPD0084', 'Only OUTPUT(*OUTFILE) is available through QCMDEXC (no display device).');
  const format = a.special('OUTFILFMT', ['*TYPE1', '*TYPE2', '*TYPE3', '*TYPE4', '*TYPE5'], '*TYPE1');
  if (format !== '*TYPE5')
    throw commandError('CPD0084', `The sandbox writes OUTFILFMT(*TYPE5) only; got ${format}.`);

  const range = a.list('RCVRNG').map((v) => atom(v) ?? '');
  let receivers = journal.receivers.slice(-1);
  if (range[0] === '*CURCHAIN') receivers = journal.receivers.slice();
  else if (range.length >= 1 && range[0] !== '*CURRENT') {
    const at = (v: string, which: string) => {
      if (v === '*CURRENT') return journal.receivers.length - 1;
      const { library: rl, name: rn } = a.qualified('RCVRNG', { text: v, quoted: false });
      const r = c.system.receiver(rl, rn);
      const i = journal.receivers.indexOf(r);
      if (i < 0) throw cpf('CPF7053', which === 'start' ? '1' : '2');
      return i;
    };
    const start = at(range[0] ?? '', 'start');
    const end = at(range[1] ?? '*CURRENT', 'end');
    if (end < start) throw cpf('CPF7053', '3');
    receivers = journal.receivers.slice(start, end + 1);
  }
  for (const r of receivers)
    if (!c.system.can(c.job, r.authority, ['*OBJOPR', '*READ', '*EXECUTE']))
      throw cpf('CPF9802', '', r.name, r.library);

  const fileValues = a.list('FILE');
  const files =
    fileValues.length === 0 || atom(fileValues[0]) === '*ALLFILE'
      ? null
      : (fileValues.every((v) => !Array.isArray(v)) ? [fileValues] : fileValues).map((v) => {
          const [fileValue, memberValue] = Array.isArray(v) ? v : [v];
          const f = a.qualified('FILE', fileValue);
          const file = useFile(c, f.library, f.name, ['*OBJOPR', '*READ']);
          // DSPJRN's member element: *FIRST (the default) is the file's first member, *ALL every one.
          const member = atom(memberValue) ?? '*FIRST';
          return {
            library: f.library,
            file: f.name,
            member: member === '*ALL' ? null : member === '*FIRST' ? (file.members[0]?.name ?? null) : member,
          };
        });
  const codeValues = a.list('JRNCDE');
  const codes: CodeSelection[] | null =
    codeValues.length === 0 || atom(codeValues[0]) === '*ALL'
      ? null
      : (codeValues.every((v) => !Array.isArray(v)) &&
        codeValues.length <= 2 &&
        atom(codeValues[1])?.startsWith('*')
          ? [codeValues]
          : codeValues
        ).map((v) => {
          const [code, selection] = (Array.isArray(v) ? v : [v]).map((x) => atom(x) ?? '');
          return { code: code ?? '', ignoreFileSelection: selection === '*IGNFILSLT' };
        });
  const typeValues = a.list('ENTTYP').map((v) => atom(v) ?? '');
  const types = typeValues.length === 0 || typeValues[0] === '*ALL' ? null : typeValues;
  if (types && codes === null) throw cpf('CPF7065');

  const from = sequence(a, 'FROMENT', 'FROMENTLRG', '*FIRST');
  const to = sequence(a, 'TOENT', 'TOENTLRG', '*LAST');
  if (from !== null && to !== null && to < from && receivers.length === 1) throw cpf('CPF7054');
  const fromTime = clDateTime(a.raw('FROMTIME'), 'FROMTIME', '*FIRST', c.system.jobDates);
  const toSecond = clDateTime(a.raw('TOTIME'), 'TOTIME', '*LAST', c.system.jobDates);
  // TOTIME names a second: every entry within it is at or before it.
  const toTime = toSecond === null ? null : `${toSecond}.999999`;
  // A starting (or ending) point is a sequence number or a time, never both.
  if (from !== null && fromTime !== null) throw mutuallyExclusive('FROMENT', 'FROMTIME');
  if (to !== null && toTime !== null) throw mutuallyExclusive('TOENT', 'TOTIME');
  if (fromTime !== null && toTime !== null && toTime < fromTime) throw cpf('CPF7054');
  const entries = selectEntries({
    receivers,
    from,
    to,
    fromTime,
    toTime,
    files,
    codes,
    types,
    max: a.number('NBRENT', null),
  });
  if (entries.length === 0) throw cpf('CPF7062', name, library);

  const esdText = a.text('ENTDTALEN', '*OUTFILFMT');
  const longest = (length: (e: JournalEntry) => number) =>
    entries.reduce((n, e) => Math.max(n, length(e)), 1);
  const esdLength =
    esdText === '*CALC' ? longest((e) => e.data.length) : /^\d+$/.test(esdText) ? Number(esdText) : 100;
  const nviText = a.text('NULLINDLEN', '*CALC');
  const nviLength = nviText === '*CALC' ? longest((e) => e.nullIndicators.length) : Number(nviText) || 1;
  const columns = type5Columns(esdLength, nviLength);
  // JOENTL counts the entry from its first position: every field before JOESD, then the data.
  const header = columns.slice(0, -1).reduce((n, col) => n + fieldLength(col.type), 0);
  // Each entry's row is made as it is written or read: the outfile is never held twice in memory.
  const context = { systemName: c.system.systemName, esdLength, nviLength, header };
  writeOutfile(c, a, columns, 'QJORDJE5', {
    rows: (positions) => type5Rows(entries, columns, context, positions),
    count: entries.length,
  });
}

/** What DSPJRN knows of one entry while it writes the outfile. */
interface EntryContext {
  systemName: string;
  esdLength: number;
  nviLength: number;
  /** The length of every field before JOESD. */
  header: number;
}

/** The fields DSPJRN fills in QJORDJE5, each from the entry; the others keep their defaults. */
const TYPE5_FIELDS: [string, (e: JournalEntry, x: EntryContext) => SqlValue][] = [
  // Data past JOESD is still counted (truncated), pointed-to data (incomplete entries) is not.
  ['JOENTL', (e, x) => Math.min(99999, x.header + e.data.length)],
  ['JOSEQN', (e) => e.seq],
  ['JOCODE', (e) => e.code],
  ['JOENTT', (e) => e.type],
  ['JOTSTP', (e) => e.timestamp],
  ['JOJOB', (e) => e.job],
  ['JOUSER', (e) => e.jobUser],
  ['JONBR', (e) => Number(e.jobNumber)],
  ['JOPGM', (e) => e.program],
  ['JOPGMLIB', (e) => e.programLibrary],
  ['JOOBJ', (e) => e.object],
  ['JOLIB', (e) => e.library],
  ['JOMBR', (e) => e.member],
  ['JOCTRR', (e) => e.rrn],
  // JOFLAG 1: the entry carries a before or after image of a record.
  ['JOFLAG', (e) => (e.data.length > 0 ? '1' : '0')],
  ['JOCCID', (e) => e.commitCycle],
  ['JOUSPF', (e) => e.userProfile],
  ['JOSYNM', (_, x) => x.systemName],
  // Incomplete data: an image longer than the outfile's JOESD, or a LOB's *POINTER in its place.
  ['JOINCDAT', (e, x) => (e.data.length > x.esdLength || e.incomplete ? '1' : '0')],
  ['JOMINESD', (e) => (e.minimized ? '1' : '0')],
  ['JORCV', (e) => e.receiver.name],
  ['JORCVLIB', (e) => e.receiver.library],
  ['JOOBJTYP', (e) => e.objectType],
  ['JOFILTYP', (e) => (e.objectType === '*QDDS' ? '0' : '')],
  ['JOCMTLVL', (e) => (e.commitCycle ? '2' : '0')],
  ['JONVI', (e, x) => e.nullIndicators.padEnd(x.nviLength, '0').slice(0, x.nviLength)],
  // A view of the image, not a copy: assigning JOESD pads it into a buffer of its own.
  ['JOESD', (e, x) => Buffer.from(e.data.buffer, e.data.byteOffset, Math.min(x.esdLength, e.data.length))],
];

/**
 * Entries as outfile rows by position: each field's column found by name once per command, and one row
 * array filled per entry, which the writer reads before it asks for the next. With `positions`, only
 * the fields at those positions are made (a plain read of some columns).
 */
function* type5Rows(
  entries: readonly JournalEntry[],
  columns: readonly ColumnSpec[],
  x: EntryContext,
  positions?: readonly number[],
): Generator<SqlValue[]> {
  const fields = TYPE5_FIELDS.flatMap(([name, read]): [number, typeof read][] => {
    const at = columns.findIndex((col) => col.name === name);
    if (at < 0) throw new Error(`QJORDJE5 has no field ${name}.`);
    return !positions || positions.includes(at) ? [[at, read]] : [];
  });
  const row = new Array<SqlValue>(columns.length).fill(null);
  for (const e of entries) {
    for (const [at, read] of fields) row[at] = read(e, x);
    yield row;
  }
}

export const DSPFFD_SHAPE: CommandShape = {
  positional: ['FILE', 'OUTPUT', 'OUTFILE', 'OUTMBR'],
  keywords: ['RCDFMT', 'SYSTEM'],
  required: ['FILE'],
};

const FIELD_TYPE: Record<string, string> = {
  char: 'A',
  varchar: 'A',
  packed: 'P',
  zoned: 'S',
  binary: 'B',
  float: 'F',
  date: 'L',
  time: 'T',
  timestamp: 'Z',
  hex: 'H',
  varhex: 'H',
  graphic: 'G',
  vargraphic: 'G',
};
const VARYING = new Set(['varchar', 'vargraphic', 'varhex']);

function ffdColumns(): ColumnSpec[] {
  return [
    char('WHFILE', 10),
    char('WHLIB', 10),
    char('WHFTYP', 1),
    zoned('WHCNT', 5),
    char('WHNAME', 10),
    char('WHTEXT', 50),
    zoned('WHFLDN', 5),
    zoned('WHRLEN', 5),
    char('WHFLDI', 10),
    char('WHFLDE', 10),
    zoned('WHFOBO', 5),
    zoned('WHIBO', 5),
    zoned('WHFLDB', 5),
    zoned('WHFLDD', 2),
    zoned('WHFLDP', 2),
    char('WHFTXT', 50),
    char('WHFLDT', 1),
    char('WHFIOB', 1),
    char('WHVARL', 1),
    zoned('WHALLC', 5),
    char('WHNULL', 1),
    char('WHFMT', 4),
    char('WHSEP', 1),
    zoned('WHCCSID', 5),
  ];
}

export function displayFieldDescriptions(c: CommandContext, a: Args): void {
  const { library, name } = a.qualifiedGeneric('FILE');
  if (a.text('OUTPUT', '*') !== '*OUTFILE')
    throw commandError('CPD0084', 'Only OUTPUT(*OUTFILE) is available through QCMDEXC (no display device).');
  // FILE(lib/*ALL) or a generic name (ABC*): every such file in the library the job may use, in name
  // order; one it may not is left out, as DSPFFD passes over it with a diagnostic message.
  const generic = name === '*ALL' ? '' : name.endsWith('*') ? name.slice(0, -1) : null;
  let files: PhysicalFile[];
  if (generic === null) files = [useFile(c, library, name, ['*OBJOPR'])];
  else {
    c.system.useLibrary(c.job, library);
    files = [...c.system.files.values()]
      .filter((f) => f.library === library && f.name.startsWith(generic))
      .filter((f) => c.system.can(c.job, f.authority, ['*OBJOPR']))
      .sort((x, y) => x.name.localeCompare(y.name));
    if (files.length === 0) throw cpf('CPF3012', name, library);
  }
  const rows = files.flatMap(fieldRows);
  writeOutfile(c, a, ffdColumns(), 'QWHDRFFD', { rows: () => rows });
}

/** One outfile row per field of a file, as QADSPFFD lays them out. */
function fieldRows(file: PhysicalFile): Record<string, SqlValue>[] {
  const recordLength = file.columns.reduce((n, col) => n + fieldLength(col.type), 0);
  let offset = 1;
  return file.columns.map((col) => {
    const t = col.type;
    const length = fieldLength(t);
    const row: Record<string, SqlValue> = {
      WHFILE: file.name,
      WHLIB: file.library,
      WHFTYP: 'P',
      WHCNT: 1,
      WHNAME: file.format,
      WHTEXT: file.text,
      WHFLDN: file.columns.length,
      WHRLEN: recordLength,
      WHFLDI: col.name,
      WHFLDE: col.name,
      WHFOBO: offset,
      WHIBO: offset,
      WHFLDB: length,
      WHFLDD:
        t.kind === 'packed' || t.kind === 'zoned'
          ? t.precision
          : t.kind === 'binary'
            ? binaryDigits[t.bytes]
            : 0,
      WHFLDP: t.kind === 'packed' || t.kind === 'zoned' ? t.scale : t.kind === 'binary' ? (t.scale ?? 0) : 0,
      WHFTXT: col.text,
      // SQL-only types (DECFLOAT, LOBs) have no DDS letter here: a blank the agent does not take as text.
      WHFLDT: col.ddsType ?? FIELD_TYPE[t.kind] ?? ' ',
      WHFIOB: 'B',
      WHVARL: VARYING.has(t.kind) ? 'Y' : 'N',
      WHALLC: t.kind === 'varchar' || t.kind === 'varhex' || t.kind === 'vargraphic' ? t.length : 0,
      WHNULL: col.nullable ? 'Y' : 'N',
      WHFMT: t.kind === 'date' || t.kind === 'time' ? ddsFormatName(t.format) : '',
      WHSEP: (t.kind === 'date' || t.kind === 'time') && t.separator ? t.separator : '',
      WHCCSID: 'ccsid' in t ? t.ccsid : t.kind === 'hex' || t.kind === 'varhex' ? 65535 : 0,
    };
    offset += length;
    return row;
  });
}
