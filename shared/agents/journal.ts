// The journal agent: IBM i tables read through their journals.
import { z } from 'zod';
import {
  boolean,
  choice,
  ibmiName,
  integer,
  nullableChoice,
  numberChoice,
  optionalPatternText,
  text,
} from '../config/fields';
import { section } from '../config/section';
import { parseUserCharacters, USER_CHARACTERS_PATTERN, USER_CHARACTERS_RULE } from '../config/userCharacters';
import { IBMI_NATIONAL_CHARACTERS } from '../config/ibmiNames';
import {
  connectionName,
  host,
  maskSalt,
  maxConnectionsCount,
  password,
  pipelineFields,
  provenanceColumn,
  START_AT_TIME,
} from './common';

export const DATE_FORMATS = ['julian', 'mdy', 'dmy', 'ymd', 'usa', 'iso', 'eur', 'jis'] as const;
export const TIME_FORMATS = ['hms', 'usa', 'iso', 'eur', 'jis'] as const;
/** What the journal agent does with a field it cannot decode (imageDecoder.ts, decodeLenient). */
export const INVALID_DECIMAL_CHOICES = ['keep-row-aside', 'null', 'zero'] as const;
export const INVALID_DATE_CHOICES = ['keep-row-aside', 'null', 'earliest'] as const;
export const INVALID_TEXT_CHOICES = ['keep-row-aside', 'null', 'replace'] as const;
/** How Arabic (420) and Hebrew (424) text reaches the target (docs/journal-agent.md, "Arabic and Hebrew"). */
export const TEXT_ORDER_CHOICES = ['logical', 'stored'] as const;
export const BLOCK_SIZES = [0, 8, 16, 32, 64, 128, 256, 512] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];

const advanced = 'advanced' as const;

/** A journal position as the agent writes one: LIBRARY/RECEIVER/SEQUENCE. */
const systemName = `[A-Z${IBMI_NATIONAL_CHARACTERS}][A-Z0-9_${IBMI_NATIONAL_CHARACTERS}]{0,9}`;
export const JOURNAL_POSITION = new RegExp(`^(${systemName})\\/(${systemName})\\/(\\d{1,20})$`, 'u');
const START_AT = new RegExp(`${JOURNAL_POSITION.source}|${START_AT_TIME.source}`, 'u');
const POINT_RULE =
  'a journal position LIBRARY/RECEIVER/SEQUENCE or a time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm]';

/** The files the agent makes and deletes in its sync library: DSPJRN's and DSPFFD's outfiles. */
export const JOURNAL_WORK_FILES = {
  journalOutfile: 'JRNOUT',
  outfileLayout: 'JRNFFD',
  fileLayout: 'FFDOUT',
} as const;

/** The catalog views CREATE SCHEMA puts in every SQL schema, so in the sync library too (Db2 for i SQL reference). */
const SCHEMA_CATALOG_VIEWS = (
  'SYSCHKCST SYSCOLUMNS SYSCST SYSCSTCOL SYSCSTDEP SYSFIELDS SYSINDEXES SYSKEYCST SYSKEYS SYSPACKAGE ' +
  'SYSREFCST SYSTABLES SYSTRIGCOL SYSTRIGDEP SYSTRIGGER SYSTRIGUPD SYSVIEWDEP SYSVIEWS'
).split(' ');

/**
 * Whether a name in the sync library is the agent's or the system's own: a work file the agent deletes
 * after each read, the library's journal and its receivers (QSQJRN…), a catalog view. (Member aliases
 * are named by a hash of the member: 36⁹ names, none fixed.)
 */
export const isSyncLibraryObject = (name: string): boolean =>
  (Object.values(JOURNAL_WORK_FILES) as string[]).includes(name) ||
  name.startsWith('QSQJRN') ||
  SCHEMA_CATALOG_VIEWS.includes(name);

export const journalHostCredentials = section({
  id: 'hostCredentials',
  title: 'Host credentials',
  description:
    'How the agent reaches the IBM i system. Journal library and journal name are detected per file.',
  schema: z.strictObject({
    connectionName,
    host,
    databaseName: text({ label: 'Database', help: 'Database name.', max: 128 }),
    username: text({
      label: 'User profile',
      help: 'Account with read and write access to the target tables.',
      max: 128,
    }),
    password,
    maxConnectionsCount,
    maskSalt,
    dateFormat: choice({
      label: 'Date format',
      help: 'Date format negotiated with the driver, unless the agent settings override it.',
      values: DATE_FORMATS,
      default: 'iso',
      group: advanced,
    }),
    timeFormat: choice({
      label: 'Time format',
      help: 'Time format negotiated with the driver, unless the agent settings override it.',
      values: TIME_FORMATS,
      default: 'iso',
      group: advanced,
    }),
    blockSize: numberChoice({
      label: 'Block size (kilobytes)',
      help: 'Block fetch size of the driver; 0 turns block fetch off.',
      values: BLOCK_SIZES,
      default: 32,
      group: advanced,
    }),
    useConnectionPool: boolean({
      label: 'Use connection pool',
      help: 'Reuse connections.',
      default: true,
      group: advanced,
    }),
    syncLibrary: ibmiName({
      label: 'Sync library',
      help:
        'Library the agent creates on the source for its files and journal checkpoint; created if absent. ' +
        'Each journal agent on one source needs its own.',
      default: 'SYNC',
      userLibrary: true,
      group: advanced,
    }),
    journalCheckpointTable: ibmiName({
      label: 'Journal checkpoint table',
      help: 'Name of the journal checkpoint table in the sync library.',
      default: 'JOURNALSCP',
      notTaken: {
        test: isSyncLibraryObject,
        rule:
          `not a name the agent or the system keeps in the sync library (${Object.values(JOURNAL_WORK_FILES).join(', ')}, ` +
          'QSQJRN…, the SYS… catalog views)',
      },
      group: advanced,
    }),
    enableDdsDiscovery: boolean({
      label: 'Enable DDS discovery',
      help: "Read each file's field layout with DSPFFD (needed for DDS files with non-ISO dates).",
      default: false,
      group: advanced,
    }),
    useDatabaseTimezone: boolean({
      label: 'Use database timezone',
      help: 'On: apply the database timezone to incoming source data. Off: leave the data untouched.',
      default: false,
      group: advanced,
    }),
  }),
  refusedKeys: {
    port:
      'the journal agent has no port setting: IBM i host servers listen on fixed, well-known ports, ' +
      'so remove "port" from the body',
  },
});

/** Who changed each row, from its journal entry (DSPJRN's JOJOB, JOUSER, JONBR, JOPGM, JOUSPF). */
function journalProvenanceFields() {
  const of = (what: string) => `Target column holding ${what}. Null for copied rows.`;
  return {
    provenanceJob: provenanceColumn(
      'Job name column',
      of('the name of the job that changed the row (JOJOB)'),
    ),
    provenanceJobUser: provenanceColumn(
      'Job user column',
      of("the user of that job (JOUSER), part of the job's qualified name"),
    ),
    provenanceJobNumber: provenanceColumn(
      'Job number column',
      of('the number of that job (JONBR, six digits)'),
    ),
    provenanceProgram: provenanceColumn('Program column', of('the program that changed the row (JOPGM)')),
    provenanceUserProfile: provenanceColumn(
      'User profile column',
      of(
        'the user profile the job ran under when it changed the row (JOUSPF), which a job switching profiles (a server job) tells apart from the job user',
      ),
    ),
  };
}

const inheritDate = 'inherit the date format of the host credentials';
const inheritTime = 'inherit the time format of the host credentials';

export const journalConfiguration = section({
  id: 'configuration',
  title: 'Agent settings',
  description:
    'Settings specific to the journal agent. Empty date and time formats inherit those of the host credentials.',
  schema: z.strictObject({
    dateFormat: nullableChoice({
      label: 'Date format',
      help: 'Used when negotiating the driver connection. Empty: the host credentials decide.',
      values: DATE_FORMATS,
      nullMeans: inheritDate,
    }),
    timeFormat: nullableChoice({
      label: 'Time format',
      help: 'Used when negotiating the driver connection. Empty: the host credentials decide.',
      values: TIME_FORMATS,
      nullMeans: inheritTime,
    }),
    invalidDecimals: choice({
      label: 'Invalid decimals',
      help:
        'A packed or zoned field holding bytes that are no decimal (blanks, a bad sign, written by a program ' +
        'or CPYF FMTOPT(*NOCHK)): "keep-row-aside" keeps the row in the exceptions store with its raw ' +
        'bytes and the reason, and the table goes on; "null" or "zero" writes that value instead and ' +
        'applies the row. Each replacement is counted in an event.',
      values: INVALID_DECIMAL_CHOICES,
      default: 'keep-row-aside',
    }),
    invalidDates: choice({
      label: 'Invalid dates',
      help:
        'A date, time or timestamp field holding no valid value (00/00/00 in a *MDY date, blanks): ' +
        '"keep-row-aside" keeps the row aside as above; "null" writes null; "earliest" writes 0001-01-01 ' +
        "(Db2's earliest date; midnight for a time or timestamp). Each replacement is counted.",
      values: INVALID_DATE_CHOICES,
      default: 'keep-row-aside',
    }),
    invalidText: choice({
      label: 'Text with no character',
      help:
        'A character or graphic field holding a byte sequence its CCSID maps to no character (written by a ' +
        'program, or a character the agent\'s CCSID table lacks): "keep-row-aside" keeps the row aside with ' +
        'its raw bytes as above; "null" writes null; "replace" writes U+FFFD in place of each such sequence. ' +
        'Each replacement is counted; a character is never lost without a word.',
      values: INVALID_TEXT_CHOICES,
      default: 'keep-row-aside',
    }),
    textOrder: choice({
      label: 'Arabic and Hebrew text order',
      help:
        'CCSID 420 (Arabic) and 424 (Hebrew) text is stored in visual order, as a 5250 screen shows it. ' +
        '"logical": the target gets it as IBM\'s Toolbox for Java reads it, in logical (Unicode) order with ' +
        '420\'s shaped letters read as letters; "stored": the characters in the order the bytes hold them. ' +
        'A table may say otherwise, for its file or per column (docs/journal-agent.md, "Arabic and Hebrew").',
      values: TEXT_ORDER_CHOICES,
      default: 'logical',
      group: advanced,
    }),
    userCharacters: optionalPatternText({
      label: 'User-defined characters',
      help:
        "The shop's own table for the user-defined area of its double-byte CCSIDs (gaiji, made with IBM's " +
        'character generator): each code and the Unicode character it stands for, such as 6941=U+20BB7. ' +
        "Left out, or for a code the table does not name, the agent reads such a code as IBM's Toolbox " +
        'does, as a private-use character (6941 is U+E000 in the Japanese CCSIDs).',
      max: 20_000,
      pattern: USER_CHARACTERS_PATTERN,
      patternRule: USER_CHARACTERS_RULE,
      holds: (v) => parseUserCharacters(v) !== null,
      group: advanced,
    }),
    startAt: optionalPatternText({
      label: 'Start at',
      help:
        'Where tables without a position start reading their journal, with snapshot mode "never": a journal ' +
        'position (LIBRARY/RECEIVER/SEQUENCE, the entry itself included), or a time (YYYY-MM-DD HH:MM:SS in ' +
        "the IBM i's local time, or with Z or an offset such as +01:00), from the first entry at or after it. " +
        'Left out: from the end of the journal. A point the journal no longer holds is refused with the ' +
        'earliest one it does.',
      max: 40,
      pattern: START_AT,
      patternRule: POINT_RULE,
      group: advanced,
    }),
    stopAt: optionalPatternText({
      label: 'Stop at',
      help:
        'Where the pipeline stops by itself, for a cut-over or the end of a replayed window: a journal position ' +
        '(LIBRARY/RECEIVER/SEQUENCE, that entry the last one read; it stops the tables of its own journal) or a ' +
        "time (YYYY-MM-DD HH:MM:SS in the IBM i's local time, or with Z or an offset: no entry written after it " +
        'is read, so a transaction committed after it is not applied). Once every table has read up to it the ' +
        'pipeline stops, with a stop-point-reached event. Left out: the pipeline runs on.',
      max: 40,
      pattern: START_AT,
      patternRule: POINT_RULE,
      group: advanced,
    }),
    heartbeatSeconds: integer({
      label: 'Heartbeat (seconds)',
      help:
        'How often the agent writes a user entry (SNDJRNE, journal code U, entry type HB, no file) to each ' +
        'journal it reads: a write to the source journals you confirm at Start, which needs *OBJOPR and *ADD ' +
        "on them beyond the agent's own authority. The entry is read with the tables' entries, and its commit " +
        'at the target measures freshness while nothing else changes ("fresh to N s"). Other user entries in ' +
        'the journals are read too, and passed over. 0: none, as before.',
      min: 0,
      max: 3_600,
      default: 0,
      group: advanced,
    }),
    ...journalProvenanceFields(),
    ...pipelineFields,
  }),
});

export type JournalHostCredentials = z.output<typeof journalHostCredentials.schema>;
export type JournalConfiguration = z.output<typeof journalConfiguration.schema>;

interface FormatSources {
  dateFormat?: DateFormat | null;
  timeFormat?: TimeFormat | null;
}

/** decisions.md: the format a connection uses is `configuration.X ?? hostCredentials.X ?? "iso"`. */
export function effectiveJournalFormats(
  hostCredentials: FormatSources | undefined,
  configuration: FormatSources | undefined,
): { dateFormat: DateFormat; timeFormat: TimeFormat } {
  return {
    dateFormat: configuration?.dateFormat ?? hostCredentials?.dateFormat ?? 'iso',
    timeFormat: configuration?.timeFormat ?? hostCredentials?.timeFormat ?? 'iso',
  };
}
