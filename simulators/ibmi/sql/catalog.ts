// The QSYS2 catalog views and services the sandbox answers, each a fixed column list (names and
// types as IBM documents them) and the rows a given job may see: objects it holds some authority to.
import {
  authorityName,
  effectiveRights,
  newAuthority,
  rights,
  RIGHTS,
  type ObjectAuthority,
  type Right,
} from '../system/authority';
import { fieldLength } from '../../../lib/ibmi/recordImage';
import { commandNames } from '../cl/commands';
import type { PhysicalFile, SqlValue } from '../system/files';
import { attachedReceiver, firstSeq, lastSeq, selectEntries, type Receiver } from '../system/journals';
import { sqlError } from '../system/messages';
import type { Job, SimulatedIbmi } from '../system/simulatedIbmi';
import { expirationIntervalValue, principal } from '../system/users';

export interface Relation {
  /** `NAME TYPE` pairs; the type is what the answer's decltype shows (DECIMAL(21,0) comes back exact). */
  columns: string[];
  rows: SqlValue[][];
}

type Ctx = { system: SimulatedIbmi; job: Job };
const sees = (c: Ctx, auth: ObjectAuthority) => effectiveRights(principal(c.job.profile), auth).size > 0;
const yn = (b: boolean) => (b ? 'Y' : 'N');

/** SYSCOLUMNS.COLUMN_DEFAULT: the default as SQL text, 'NULL' for the null default, null for none. */
function defaultText(col: PhysicalFile['columns'][number]): string | null {
  if (!col.hasDefault) return null;
  const v = col.defaultValue;
  if (v === null) return 'NULL';
  if (Buffer.isBuffer(v)) return `X'${v.toString('hex').toUpperCase()}'`;
  return typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v);
}

function visibleFiles(c: Ctx) {
  return [...c.system.files.values()].filter(
    (f) => sees(c, f.authority) && sees(c, c.system.libraries.get(f.library)?.authority ?? f.authority),
  );
}

const VIEWS: Record<string, (c: Ctx) => Relation> = {
  SYSTABLES: (c) => ({
    columns: [
      'TABLE_NAME VARCHAR(128)',
      'TABLE_OWNER VARCHAR(128)',
      'TABLE_TYPE CHAR(1)',
      'COLUMN_COUNT INTEGER',
      'ROW_LENGTH INTEGER',
      'TABLE_TEXT VARCHAR(50)',
      'TABLE_SCHEMA VARCHAR(128)',
      'SYSTEM_TABLE_NAME CHAR(10)',
      'SYSTEM_TABLE_SCHEMA CHAR(10)',
      'FILE_TYPE CHAR(1)',
      'SYSTEM_TABLE CHAR(1)',
    ],
    rows: [
      ...visibleFiles(c).map((f) => [
        f.name,
        f.authority.owner,
        f.origin === 'sql' ? 'T' : 'P',
        f.columns.length,
        f.columns.reduce((n, col) => n + fieldLength(col.type), 0),
        f.text,
        f.library,
        f.name.padEnd(10),
        f.library.padEnd(10),
        f.columns.some((col) => col.name === 'SRCDTA') && f.columns.length === 3 ? 'S' : 'D',
        'N',
      ]),
      ...[...c.system.aliases.values()].map((a) => [
        a.name,
        a.authority.owner,
        'A',
        0,
        0,
        '',
        a.library,
        a.name.padEnd(10),
        a.library.padEnd(10),
        'D',
        'N',
      ]),
    ],
  }),
  SYSCOLUMNS: (c) => ({
    columns: [
      'COLUMN_NAME VARCHAR(128)',
      'TABLE_NAME VARCHAR(128)',
      'TABLE_OWNER VARCHAR(128)',
      'ORDINAL_POSITION INTEGER',
      'DATA_TYPE VARCHAR(8)',
      'LENGTH INTEGER',
      'NUMERIC_SCALE INTEGER',
      'IS_NULLABLE CHAR(1)',
      'HAS_DEFAULT CHAR(1)',
      'COLUMN_DEFAULT VARCHAR(2000)',
      'COLUMN_TEXT VARCHAR(50)',
      'SYSTEM_COLUMN_NAME CHAR(10)',
      'SYSTEM_TABLE_NAME CHAR(10)',
      'SYSTEM_TABLE_SCHEMA CHAR(10)',
      'TABLE_SCHEMA VARCHAR(128)',
      'CCSID INTEGER',
      'NUMERIC_PRECISION INTEGER',
      'CHARACTER_MAXIMUM_LENGTH INTEGER',
      'STORAGE INTEGER',
    ],
    rows: visibleFiles(c).flatMap((f) =>
      f.columns.map((col, i) => {
        const t = col.type;
        const numeric =
          t.kind === 'packed' || t.kind === 'zoned'
            ? t.precision
            : t.kind === 'decfloat'
              ? t.digits
              : t.kind === 'binary'
                ? ([0, 0, 5, 0, 10, 0, 0, 0, 19][t.bytes] ?? null)
                : null;
        return [
          col.name,
          f.name,
          f.authority.owner,
          i + 1,
          col.sqlType,
          col.length,
          col.scale,
          yn(col.nullable === true),
          yn(col.hasDefault),
          defaultText(col),
          col.text,
          col.name.padEnd(10),
          f.name.padEnd(10),
          f.library.padEnd(10),
          f.library,
          // FOR BIT DATA and BINARY columns: CCSID 65535, as SYSCOLUMNS reports them.
          'ccsid' in t ? t.ccsid : t.kind === 'hex' || t.kind === 'varhex' ? 65535 : null,
          numeric,
          t.kind === 'char' || t.kind === 'varchar' ? t.length : null,
          fieldLength(t),
        ];
      }),
    ),
  }),
  SYSCST: (c) => ({
    columns: [
      'CONSTRAINT_SCHEMA VARCHAR(128)',
      'CONSTRAINT_NAME VARCHAR(128)',
      'CONSTRAINT_TYPE VARCHAR(11)',
      'TABLE_SCHEMA VARCHAR(128)',
      'TABLE_NAME VARCHAR(128)',
      'SYSTEM_TABLE_SCHEMA CHAR(10)',
      'SYSTEM_TABLE_NAME CHAR(10)',
      'CONSTRAINT_KEYS INTEGER',
      'ENABLED VARCHAR(3)',
    ],
    rows: visibleFiles(c).flatMap((f) =>
      f.key?.constraint
        ? [
            [
              f.library,
              f.key.constraint.name,
              f.key.constraint.type,
              f.library,
              f.name,
              f.library.padEnd(10),
              f.name.padEnd(10),
              f.key.columns.length,
              'YES',
            ],
          ]
        : [],
    ),
  }),
  SYSKEYCST: (c) => ({
    columns: [
      'CONSTRAINT_SCHEMA VARCHAR(128)',
      'CONSTRAINT_NAME VARCHAR(128)',
      'COLUMN_NAME VARCHAR(128)',
      'ORDINAL_POSITION INTEGER',
      'COLUMN_POSITION INTEGER',
      'TABLE_SCHEMA VARCHAR(128)',
      'TABLE_NAME VARCHAR(128)',
      'SYSTEM_TABLE_SCHEMA CHAR(10)',
      'SYSTEM_TABLE_NAME CHAR(10)',
      'SYSTEM_COLUMN_NAME CHAR(10)',
    ],
    rows: visibleFiles(c).flatMap((f) =>
      f.key?.constraint
        ? f.key.columns.map((name, i) => [
            f.library,
            f.key?.constraint?.name ?? '',
            name,
            i + 1,
            f.columns.findIndex((col) => col.name === name) + 1,
            f.library,
            f.name,
            f.library.padEnd(10),
            f.name.padEnd(10),
            name.padEnd(10),
          ])
        : [],
    ),
  }),
  // One row per member ("SYSPARTITIONSTAT"), in the order the members were added (*FIRST first).
  SYSPARTITIONSTAT: (c) => ({
    columns: [
      'TABLE_SCHEMA VARCHAR(128)',
      'TABLE_NAME VARCHAR(128)',
      'TABLE_PARTITION VARCHAR(128)',
      'SYSTEM_TABLE_SCHEMA VARCHAR(10)',
      'SYSTEM_TABLE_NAME VARCHAR(10)',
      'SYSTEM_TABLE_MEMBER VARCHAR(10)',
      'NUMBER_ROWS BIGINT',
      'CREATE_TIMESTAMP TIMESTAMP',
    ],
    rows: visibleFiles(c).flatMap((f) =>
      f.members.map((m, i) => [
        f.library,
        f.name,
        m.name,
        f.library,
        f.name,
        m.name,
        c.system.countRecords(m),
        // Members added later were created later: the order *FIRST follows.
        new Date(Date.parse(`${f.created.slice(0, 10)}T${f.created.slice(11, 19)}Z`) + i * 1000)
          .toISOString()
          .replace('T', ' ')
          .replace('Z', ''),
      ]),
    ),
  }),
  SYSSCHEMAS: (c) => ({
    columns: [
      'SCHEMA_NAME VARCHAR(128)',
      'SCHEMA_OWNER VARCHAR(128)',
      'SCHEMA_CREATOR VARCHAR(128)',
      'CREATION_TIMESTAMP TIMESTAMP',
      'SCHEMA_TEXT VARCHAR(50)',
      'SYSTEM_SCHEMA_NAME CHAR(10)',
    ],
    rows: [...c.system.libraries.values()]
      .filter((l) => sees(c, l.authority))
      .map((l) => [l.name, l.authority.owner, l.authority.owner, l.created, l.text, l.name.padEnd(10)]),
  }),
  JOURNAL_RECEIVER_INFO: (c) => ({
    columns: [
      'JOURNAL_RECEIVER_LIBRARY VARCHAR(10)',
      'JOURNAL_RECEIVER_NAME VARCHAR(10)',
      'STATUS VARCHAR(10)',
      'NUMBER_OF_ENTRIES BIGINT',
      'ATTACH_TIMESTAMP TIMESTAMP',
      'DETACH_TIMESTAMP TIMESTAMP',
      'JOURNAL_LIBRARY VARCHAR(10)',
      'JOURNAL_NAME VARCHAR(10)',
      'FIRST_SEQUENCE_NUMBER DECIMAL(21,0)',
      'LAST_SEQUENCE_NUMBER DECIMAL(21,0)',
      'PREVIOUS_JOURNAL_RECEIVER_LIBRARY VARCHAR(10)',
      'PREVIOUS_JOURNAL_RECEIVER VARCHAR(10)',
      'NEXT_JOURNAL_RECEIVER_LIBRARY VARCHAR(10)',
      'NEXT_JOURNAL_RECEIVER VARCHAR(10)',
    ],
    rows: [...c.system.receivers.values()].filter((r) => sees(c, r.authority)).map((r) => receiverRow(r)),
  }),
  JOURNAL_INFO: (c) => ({
    columns: [
      'JOURNAL_LIBRARY VARCHAR(10)',
      'JOURNAL_NAME VARCHAR(10)',
      'ATTACHED_JOURNAL_RECEIVER_LIBRARY VARCHAR(10)',
      'ATTACHED_JOURNAL_RECEIVER_NAME VARCHAR(10)',
      'NUMBER_JOURNAL_RECEIVERS INTEGER',
      'MANAGE_RECEIVER_OPTION VARCHAR(7)',
      'DELETE_RECEIVER_OPTION VARCHAR(3)',
      'JOURNAL_TYPE VARCHAR(7)',
      'JOURNAL_STATE VARCHAR(8)',
      'NUMBER_JOURNALED_FILES INTEGER',
      'MINIMIZE_ESD_FOR_FILES VARCHAR(14)',
      'TEXT_DESCRIPTION VARCHAR(50)',
    ],
    rows: [...c.system.journals.values()]
      .filter((j) => sees(c, j.authority))
      .map((j) => [
        j.library,
        j.name,
        attachedReceiver(j)?.library ?? null,
        attachedReceiver(j)?.name ?? null,
        j.receivers.length,
        j.manageReceivers,
        j.deleteReceivers ? 'YES' : 'NO',
        '*LOCAL',
        '*ACTIVE',
        [...c.system.files.values()].filter(
          (f) => f.journal?.library === j.library && f.journal.name === j.name,
        ).length,
        { '*NONE': 'NO', '*FILE': 'FILE', '*FLDBDY': 'FIELD BOUNDARY' }[j.minimizeFiles],
        j.text,
      ]),
  }),
  USER_INFO: (c) => ({
    columns: [
      'AUTHORIZATION_NAME VARCHAR(10)',
      'STATUS VARCHAR(10)',
      'NO_PASSWORD_INDICATOR VARCHAR(3)',
      'PASSWORD_EXPIRATION_INTERVAL INTEGER',
      'USER_CLASS_NAME VARCHAR(10)',
      'SPECIAL_AUTHORITIES VARCHAR(88)',
      'GROUP_PROFILE_NAME VARCHAR(10)',
      'LIMIT_CAPABILITIES VARCHAR(10)',
      'TEXT_DESCRIPTION VARCHAR(50)',
    ],
    // The caller sees its own profile; *ALLOBJ or *SECADM sees them all.
    rows: [...c.system.users.values()]
      .filter(
        (u) =>
          u.name === c.job.profile.name ||
          c.job.profile.specialAuthorities.some((s) => s === '*ALLOBJ' || s === '*SECADM'),
      )
      .map((u) => [
        u.name,
        u.status,
        u.password === '' ? 'YES' : 'NO',
        expirationIntervalValue(u),
        u.userClass,
        u.specialAuthorities.length
          ? u.specialAuthorities
              .map((s) => s.padEnd(10))
              .join('')
              .trimEnd()
          : null,
        u.groupProfile ?? '*NONE',
        u.limitCapabilities,
        u.text ?? '',
      ]),
  }),
  OBJECT_PRIVILEGES: (c) => {
    const objects: [string, string, string, ObjectAuthority][] = [
      ...[...c.system.libraries.values()].map((l): [string, string, string, ObjectAuthority] => [
        'QSYS',
        l.name,
        '*LIB',
        l.authority,
      ]),
      ...[...c.system.files.values()].map((f): [string, string, string, ObjectAuthority] => [
        f.library,
        f.name,
        '*FILE',
        f.authority,
      ]),
      ...[...c.system.journals.values()].map((j): [string, string, string, ObjectAuthority] => [
        j.library,
        j.name,
        '*JRN',
        j.authority,
      ]),
      ...[...c.system.receivers.values()].map((r): [string, string, string, ObjectAuthority] => [
        r.library,
        r.name,
        '*JRNRCV',
        r.authority,
      ]),
      // Commands are objects in QSYS, public *USE unless GRTOBJAUT/RVKOBJAUT gave private authorities.
      ...commandNames().map((name): [string, string, string, ObjectAuthority] => [
        'QSYS',
        name,
        '*CMD',
        c.system.commands.get(name) ?? newAuthority('QSYS', '*USE'),
      ]),
    ];
    const flag = (set: ReadonlySet<Right>, r: Right) => (set.has(r) ? 'YES' : 'NO');
    return {
      columns: [
        'SYSTEM_OBJECT_SCHEMA VARCHAR(10)',
        'SYSTEM_OBJECT_NAME VARCHAR(10)',
        'OBJECT_TYPE VARCHAR(7)',
        'AUTHORIZATION_NAME VARCHAR(10)',
        'OBJECT_AUTHORITY VARCHAR(12)',
        'OWNER VARCHAR(10)',
        'OBJECT_OPERATIONAL VARCHAR(3)',
        'OBJECT_MANAGEMENT VARCHAR(3)',
        'OBJECT_EXISTENCE VARCHAR(3)',
        'OBJECT_ALTER VARCHAR(3)',
        'OBJECT_REFERENCE VARCHAR(3)',
        'DATA_READ VARCHAR(3)',
        'DATA_ADD VARCHAR(3)',
        'DATA_UPDATE VARCHAR(3)',
        'DATA_DELETE VARCHAR(3)',
        'DATA_EXECUTE VARCHAR(3)',
      ],
      rows: objects
        .filter(([, , , auth]) => sees(c, auth))
        .flatMap(([lib, name, type, auth]) => {
          const holders: [string, ReadonlySet<Right>][] = [
            [auth.owner, rights('*ALL')],
            ...[...auth.private.entries()].filter(([u]) => u !== auth.owner),
            ['*PUBLIC', auth.public],
          ];
          return holders.map(([who, set]) => [
            lib,
            name,
            type,
            who,
            authorityName(set),
            auth.owner,
            ...RIGHTS.map((r) => flag(set, r)),
          ]);
        }),
    };
  },
};

function receiverRow(r: Receiver): SqlValue[] {
  const j = r.journal;
  const i = j ? j.receivers.indexOf(r) : -1;
  const previous = j && i > 0 ? j.receivers[i - 1] : undefined;
  const next = j && i >= 0 ? j.receivers[i + 1] : undefined;
  const status = !j ? 'EMPTY' : attachedReceiver(j) === r ? 'ATTACHED' : 'ONLINE';
  return [
    r.library,
    r.name,
    status,
    r.entries.length,
    r.attached,
    r.detached,
    j?.library ?? null,
    j?.name ?? null,
    firstSeq(r),
    lastSeq(r),
    previous?.library ?? null,
    previous?.name ?? null,
    next?.library ?? null,
    next?.name ?? null,
  ];
}

export const isCatalogView = (schema: string, name: string) =>
  (schema === 'QSYS2' && name in VIEWS) || (schema === 'SYSIBM' && name === 'SYSDUMMY1');

export function catalogView(c: Ctx, schema: string, name: string): Relation {
  if (schema === 'SYSIBM' && name === 'SYSDUMMY1') return { columns: ['IBMREQD CHAR(1)'], rows: [['Y']] };
  const view = VIEWS[name];
  if (!view) throw sqlError(-204, name, schema, 'FILE');
  return view(c);
}

const text = (v: SqlValue | undefined) =>
  v === null || v === undefined ? null : String(v).trim().toUpperCase();

/** TABLE(QSYS2.<name>(args)): OBJECT_STATISTICS and DISPLAY_JOURNAL, arguments by position. */
export function tableFunction(c: Ctx, name: string, args: SqlValue[]): Relation {
  if (name === 'OBJECT_STATISTICS') return objectStatistics(c, args);
  if (name === 'DISPLAY_JOURNAL') return displayJournal(c, args);
  throw sqlError(-204, name, 'QSYS2', 'FUNCTION');
}

function objectStatistics(c: Ctx, args: SqlValue[]): Relation {
  const library = text(args[0]) ?? '';
  const types = (text(args[1]) ?? '*ALL').split(/[\s,]+/).filter(Boolean);
  const only = text(args[2]);
  const libraries = library === '*ALL' || library === '*ALLUSR' ? [...c.system.libraries.keys()] : [library];
  const rows: SqlValue[][] = [];
  const want = (t: string) => types.includes('*ALL') || types.includes(t);
  const named = (n: string) => !only || only === '*ALL' || only === n;
  /** One row; objects that are not files are never journaled and have no SQL type. */
  const row = (
    lib: string,
    o: { name: string; authority: ObjectAuthority; created: string; text: string },
    type: string,
    file?: PhysicalFile,
  ): SqlValue[] => [
    o.name,
    type,
    o.authority.owner,
    o.created,
    o.text,
    file ? 'PF' : '',
    file?.journal ? 'YES' : 'NO',
    file?.journal?.name ?? null,
    file?.journal?.library ?? null,
    file?.journal?.images ?? null,
    file?.journal?.since ?? null,
    file?.origin === 'sql' ? 'TABLE' : null,
    lib,
  ];
  for (const lib of libraries) {
    const l = c.system.libraries.get(lib);
    if (!l || !sees(c, l.authority)) continue;
    const mine = <T extends { library: string; name: string; authority: ObjectAuthority }>(
      all: Iterable<T>,
    ) => [...all].filter((o) => o.library === lib && sees(c, o.authority) && named(o.name));
    if (want('*FILE')) for (const f of mine(c.system.files.values())) rows.push(row(lib, f, '*FILE', f));
    if (want('*JRN')) for (const j of mine(c.system.journals.values())) rows.push(row(lib, j, '*JRN'));
    if (want('*JRNRCV')) for (const r of mine(c.system.receivers.values())) rows.push(row(lib, r, '*JRNRCV'));
  }
  return {
    columns: [
      'OBJNAME VARCHAR(10)',
      'OBJTYPE VARCHAR(8)',
      'OBJOWNER VARCHAR(10)',
      'OBJCREATED TIMESTAMP',
      'OBJTEXT VARCHAR(50)',
      'OBJATTRIBUTE VARCHAR(10)',
      'JOURNALED VARCHAR(3)',
      'JOURNAL_NAME VARCHAR(10)',
      'JOURNAL_LIBRARY VARCHAR(10)',
      'JOURNAL_IMAGES VARCHAR(6)',
      'JOURNAL_START_TIMESTAMP TIMESTAMP',
      'SQL_OBJECT_TYPE VARCHAR(9)',
      'OBJLIB VARCHAR(10)',
    ],
    rows,
  };
}

/** A timestamp argument ('YYYY-MM-DD-HH.MM.SS.ffffff' or 'YYYY-MM-DD HH:MM:SS[.ffffff]') as entries carry one. */
function entryTimestamp(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[- ](\d{2})[.:](\d{2})[.:](\d{2})(?:\.(\d{1,6}))?$/.exec(value.trim());
  if (!m) throw sqlError(-180);
  return `${m[1]} ${m[2]}:${m[3]}:${m[4]}.${(m[5] ?? '').padEnd(6, '0')}`;
}

function displayJournal(c: Ctx, args: SqlValue[]): Relation {
  const [lib, name, rcvLib, rcvName, startTimestamp, startSeq, codes, types, objLib, objName] =
    args.map(text);
  const journal = c.system.journal(lib ?? '', name ?? '');
  if (!sees(c, journal.authority)) throw sqlError(-551, name ?? '', lib ?? '', 'JRN');
  let receivers = journal.receivers.slice(-1);
  if (rcvName === '*CURCHAIN') receivers = journal.receivers.slice();
  else if (rcvName && rcvName !== '*CURRENT') {
    const start = journal.receivers.indexOf(c.system.receiver(rcvLib ?? lib ?? '', rcvName));
    receivers = journal.receivers.slice(Math.max(0, start));
  }
  const entries = selectEntries({
    receivers,
    from: startSeq ? Number(startSeq) : null,
    to: null,
    // STARTING_TIMESTAMP: the entries at or after it, in the system's local time as they carry it.
    fromTime: startTimestamp ? entryTimestamp(startTimestamp) : null,
    files: objLib && objName ? [{ library: objLib, file: objName, member: null }] : null,
    codes:
      codes && codes !== '*ALL'
        ? codes.split(/[\s,]+/).map((code) => ({ code, ignoreFileSelection: false }))
        : null,
    types: types && types !== '*ALL' ? types.split(/[\s,]+/) : null,
    max: null,
  });
  return {
    columns: [
      'ENTRY_TIMESTAMP TIMESTAMP',
      'SEQUENCE_NUMBER DECIMAL(21,0)',
      'JOURNAL_CODE VARCHAR(1)',
      'JOURNAL_ENTRY_TYPE VARCHAR(2)',
      'COUNT_OR_RRN DECIMAL(21,0)',
      'COMMIT_CYCLE DECIMAL(21,0)',
      'JOURNAL_RECEIVER_LIBRARY VARCHAR(10)',
      'JOURNAL_RECEIVER_NAME VARCHAR(10)',
      'JOB_NAME VARCHAR(10)',
      'JOB_USER VARCHAR(10)',
      'JOB_NUMBER VARCHAR(6)',
      'CURRENT_USER VARCHAR(10)',
      'OBJECT VARCHAR(62)',
      'OBJECT_TYPE VARCHAR(7)',
      'NULL_VALUE_INDICATORS VARCHAR(8000)',
      'ENTRY_DATA BLOB',
    ],
    rows: entries.map((e) => [
      e.timestamp,
      e.seq,
      e.code,
      e.type,
      e.rrn,
      e.commitCycle,
      e.receiver.library,
      e.receiver.name,
      e.job,
      e.jobUser,
      e.jobNumber,
      e.userProfile,
      e.object ? `${e.object.padEnd(10)}${e.library.padEnd(10)}${e.member.padEnd(10)}` : null,
      e.objectType || null,
      e.nullIndicators || null,
      Buffer.from(e.data),
    ]),
  };
}
