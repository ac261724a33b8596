// The journal agent's checks, each with status, message and remedy (and the CL command that fixes it):
// the user profile against the spec's suggested one, the spec's eight permissions, journaling with
// IMAGES(*BOTH) and the journal detected per file, the journals' attributes, the sync library used by
// no other agent, the row identification, column types and members of each entity. A fixed number of
// queries, however many files.
import { journalHostCredentials, type JournalHostCredentials } from '../../../shared/agents/journal';
import { labelOf } from '../../../shared/config/parse';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { IBMI_NAME } from '../../../shared/config/fields';
import { clName, type IbmiConnection, type IbmiRow, cellText as text } from '../../../lib/ibmi/connection';
import { warning } from '../checkResults';
import { tableKey, tableRefOf } from '../source';
import { fileOf, hasSystemNames, objectsIn, type ObjectState } from './journals';
import { addedColumnClash, MEMBER_COLUMN } from './assemble';
import { catalogLayouts, membersRead, unknownColumns, unsupportedColumns, type FileLayout } from './layout';
import { journalAttributesCheck } from './journalAttributes';
import { ccsidOverridesCheck } from './ccsidOverrides';
import { forcedLayout } from './forcedCcsid';
import { heartbeatCheck, permissionChecks, type Privileges } from './permissions';
import type { SyncLibrary } from './syncLibrary';
import { ibmiFold } from '../../../shared/names';

/** source-agents.md's suggested profile, property by property, as QSYS2.USER_INFO shows it. */
const SUGGESTED: {
  label: string;
  column: string;
  expected: string;
  shown: (v: IbmiRow[string]) => string;
}[] = [
  { label: 'user class', column: 'USER_CLASS_NAME', expected: '*USER', shown: text },
  { label: 'group profile', column: 'GROUP_PROFILE_NAME', expected: 'QPGMR', shown: text },
  { label: 'status', column: 'STATUS', expected: '*ENABLED', shown: text },
  {
    label: 'password expiration interval',
    column: 'PASSWORD_EXPIRATION_INTERVAL',
    expected: '*NOMAX',
    // USER_INFO: -1 is *NOMAX, 0 is *SYSVAL, otherwise days.
    shown: (v) => (Number(v) === -1 ? '*NOMAX' : Number(v) === 0 ? '*SYSVAL' : `${Number(v)} days`),
  },
  {
    label: 'special authority',
    column: 'SPECIAL_AUTHORITIES',
    expected: '*NONE',
    shown: (v) => text(v) || '*NONE',
  },
  { label: 'limit capabilities', column: 'LIMIT_CAPABILITIES', expected: '*NO', shown: text },
];

export function profileCheck(user: string, profile: IbmiRow | undefined): CheckResult {
  if (!profile)
    return warning(
      'user-profile',
      `QSYS2.USER_INFO shows no profile ${user}: it cannot be compared with the suggested one.`,
      null,
    );
  const rows = SUGGESTED.map((p) => ({ ...p, found: p.shown(profile[p.column] ?? null) }));
  // Only a valid profile name is put in a command: anything else would change what the command does.
  const name = clName(user);
  const change = name
    ? `CHGUSRPRF USRPRF(${name}) USRCLS(*USER) GRPPRF(QPGMR) STATUS(*ENABLED) PWDEXPITV(*NOMAX) SPCAUT(*NONE) LMTCPB(*NO)`
    : null;
  const off = rows.filter((r) => r.found !== r.expected);
  const table = rows.map((r) => `${r.label}: expected ${r.expected}, found ${r.found}`).join('\n');
  const disabled = text(profile.STATUS) !== '*ENABLED';
  const notProgrammer =
    text(profile.GROUP_PROFILE_NAME) !== 'QPGMR' && !text(profile.SPECIAL_AUTHORITIES).includes('*ALLOBJ');
  return {
    id: 'user-profile',
    status: off.length === 0 ? 'passed' : disabled || notProgrammer ? 'failed' : 'warning',
    message:
      (off.length === 0
        ? `${user} matches the suggested profile.\n`
        : `${user} differs from the suggested profile in ${off.map((r) => r.label).join(', ')}` +
          (notProgrammer ? ' (the role must be at least QPGMR to read the journals)' : '') +
          '.\n') + table,
    remedy:
      off.length === 0
        ? null
        : (change ??
          `A security officer changes the profile ${JSON.stringify(user)} to the suggested one (it is not an IBM i profile name, so no command is written for it).`),
    fix: off.length === 0 ? null : change,
  };
}

/**
 * The CL commands that journal a file with both images: CHGJRNOBJ when it is journaled with after
 * images only; STRJRNPF to the journal named (or the one of its library), or a new journal made in its
 * library when it has none. Null when the file is journaled as the agent needs.
 */
export function journalingFix(
  file: ObjectState,
  objects: readonly ObjectState[],
  named?: { library: string; name: string },
): string | null {
  const at = `${file.library}/${file.name}`;
  if (file.journal)
    return file.images === '*BOTH' ? null : `CHGJRNOBJ OBJ((${at} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`;
  const here = objects.find((x) => x.type === '*JRN' && x.library === file.library);
  const journal = named ?? (here ? { library: file.library, name: here.name } : null);
  const lib = file.library;
  return journal
    ? `STRJRNPF FILE(${at}) JRN(${journal.library}/${journal.name}) IMAGES(*BOTH)`
    : `CRTJRNRCV JRNRCV(${lib}/JRNRCV0001)\nCRTJRN JRN(${lib}/JRN) JRNRCV(${lib}/JRNRCV0001)\nSTRJRNPF FILE(${at}) JRN(${lib}/JRN) IMAGES(*BOTH)`;
}

function journalingChecks(entities: readonly Entity[], objects: ObjectState[]): CheckResult[] {
  const problems: string[] = [];
  const fixes: string[] = [];
  const detected: string[] = [];
  for (const e of entities) {
    const lib = ibmiFold(e.source.schema);
    const file = ibmiFold(e.source.table);
    const o = fileOf(objects, e.source);
    if (!o) {
      problems.push(`${lib}/${file} does not exist, or the user cannot see it.`);
      continue;
    }
    if (!o.journal) {
      problems.push(`${lib}/${file} is not journaled.`);
      fixes.push(journalingFix(o, objects, e.journal) ?? '');
      continue;
    }
    if (o.images !== '*BOTH') {
      problems.push(`${lib}/${file} is journaled with IMAGES(${o.images ?? '*AFTER'}), not *BOTH.`);
      fixes.push(journalingFix(o, objects, e.journal) ?? '');
    }
    if (e.journal && (e.journal.library !== o.journal.library || e.journal.name !== o.journal.name))
      problems.push(
        `${lib}/${file} is journaled to ${o.journal.library}/${o.journal.name}, not to ${e.journal.library}/${e.journal.name} as the entity says.`,
      );
    detected.push(
      `${lib}/${file}: ${o.journal.library}/${o.journal.name}${e.journal ? ' (set on the entity)' : ' (detected)'}`,
    );
  }
  return [
    {
      id: 'journaling',
      status: problems.length ? 'failed' : 'passed',
      message: problems.length
        ? problems.join('\n')
        : `Every file is journaled with IMAGES(*BOTH) (${entities.length} file${entities.length === 1 ? '' : 's'}).`,
      remedy: problems.length
        ? 'The database administrator journals each file with before and after images; the commands are below.'
        : null,
      fix: fixes.length ? fixes.join('\n') : null,
    },
    {
      id: 'journal-detected',
      status: detected.length === entities.length ? 'passed' : 'failed',
      message: detected.length ? detected.join('\n') : 'No journal was found for any file.',
      remedy:
        detected.length === entities.length
          ? null
          : 'Journal the files (see the journaling check), or set the journal on the entity.',
    },
  ];
}

/** Every column of every file is one the agent decodes (its type and CCSID), or the run does not start. */
function columnTypesCheck(layouts: readonly FileLayout[]): CheckResult {
  const problems = layouts.flatMap((l) =>
    unsupportedColumns(l).map((column) => `${l.library}/${l.file} ${column}.`),
  );
  const lobs = layouts.flatMap((l) =>
    l.fields.flatMap((f) =>
      f.type.kind === 'lob' ? [`${l.library}/${l.file} ${f.name} (${f.type.lob})`] : [],
    ),
  );
  // A journal entry holds a placeholder for a LOB: the value is read from the file when the change is applied.
  const lobNote = lobs.length
    ? `LOB columns are read from the file by key when each change is applied, not from the journal entry (it holds a placeholder): ` +
      `the target takes the value the row has then, so it may pass through a row's newer LOB early; a row deleted since is left to its delete. ` +
      `Each such change costs a read of the file: ${lobs.join(', ')}.`
    : '';
  return {
    id: 'column-types',
    status: problems.length ? 'failed' : lobs.length ? 'warning' : 'passed',
    message: problems.length
      ? `Columns the journal agent cannot replicate:\n${problems.join('\n')}${lobNote ? `\n${lobNote}` : ''}`
      : lobNote || `Every column of the ${layouts.length} file(s) has a type and CCSID the agent decodes.`,
    remedy: problems.length
      ? 'Leave these files out of the pipeline, or change the columns (a CCSID the agent decodes); the pipeline does not start while they are in it.'
      : null,
  };
}

/** Files with several members: those replicated (all, or the entity's choice), the member leading each row's key. */
function membersCheck(layouts: readonly FileLayout[], entities: readonly Entity[]): CheckResult {
  const failed: string[] = [];
  const lines: string[] = [];
  for (const l of layouts) {
    const chosen = entities.find((e) => tableKey(e.source) === tableKey(l.ref))?.members;
    const { read, unknown } = membersRead(l, chosen);
    if (unknown.length)
      failed.push(
        `${l.library}/${l.file} has no member ${unknown.join(', ')} (it has ${l.members.join(', ')}).`,
      );
    else if (l.members.length > 1)
      lines.push(
        `${l.library}/${l.file} has ${l.members.length} members (${l.members.join(', ')}): ` +
          `${chosen ? `${read.join(', ')} replicate${read.length === 1 ? 's' : ''}` : 'each replicates'}, its rows keyed by ${MEMBER_COLUMN} first.`,
      );
  }
  return {
    id: 'members',
    status: failed.length ? 'failed' : 'passed',
    message: [...failed, ...lines].join('\n') || 'Every file has one member.',
    remedy: failed.length
      ? "Name only the file's members in the entity's members, or leave it out for all."
      : null,
  };
}

async function rowIdentificationChecks(
  c: IbmiConnection,
  entities: readonly Entity[],
): Promise<CheckResult[]> {
  const badNames = entities.filter((e) => !hasSystemNames(e.source));
  if (badNames.length)
    return [
      {
        id: 'row-identification',
        status: 'failed',
        message: `Not IBM i system names (1 to 10 of A-Z, 0-9, _, $, # or @): ${badNames.map((e) => tableKey(e.source)).join(', ')}.`,
        remedy: "Name each entity's source by its library and file (system) names.",
      },
    ];
  const tagged = await catalogLayouts(c, entities.map(tableRefOf));
  // Columns as the entities' forced CCSIDs read them; an override that does not fit is the
  // ccsid-overrides check's to name, and the column-types check sees the file's own tags.
  const layouts = tagged.map((l) => {
    try {
      return forcedLayout(
        l,
        entities.find((e) => tableKey(e.source) === tableKey(l.ref))?.forceCcsid,
        tableKey(l.ref),
      );
    } catch {
      return l;
    }
  });
  const overrides = await ccsidOverridesCheck(c, tagged, entities);
  const failed: string[] = [];
  const warned: string[] = [];
  for (const e of entities) {
    const l = layouts.find((x) => tableKey(x.ref) === tableKey(e.source));
    if (!l) continue; // the journaling check says it is missing
    const id = e.rowIdentification;
    if (id.kind === 'primaryKey' && l.primaryKey.length === 0)
      failed.push(
        `${l.library}/${l.file} has no primary key: choose a logical key (any columns, all allowed) or RRN.`,
      );
    if (id.kind === 'logicalKey') {
      const unknown = unknownColumns(l, id.columns);
      if (unknown.length)
        failed.push(
          `The logical key of ${l.library}/${l.file} names unknown columns: ${unknown.join(', ')}.`,
        );
    }
    const clash = addedColumnClash(l.columns, { rrn: id.kind === 'rrn', member: l.members.length > 1 });
    if (clash) failed.push(`${l.library}/${l.file} ${clash}.`);
    if (id.kind === 'rrn')
      warned.push(
        `${l.library}/${l.file} is identified by RRN: a reorganisation (RGZPFM) renumbers its records; the agent then snapshots it again.`,
      );
  }
  return [
    columnTypesCheck(layouts),
    ...(overrides ? [overrides] : []),
    membersCheck(layouts, entities),
    {
      id: 'row-identification',
      status: failed.length ? 'failed' : warned.length ? 'warning' : 'passed',
      message: [...failed, ...warned].join('\n') || 'Every entity has a usable row identification.',
      remedy:
        failed.length || warned.length ? 'Prefer a logical key over RRN; it survives reorganisations.' : null,
    },
  ];
}

export async function journalChecks(
  c: IbmiConnection,
  credentials: JournalHostCredentials,
  sync: SyncLibrary,
  entities: readonly Entity[],
  /** With the heartbeat on, its entries' data (heartbeatTag): its authority is checked too. */
  heartbeatTag?: string,
): Promise<CheckResult[]> {
  const user = ibmiFold(credentials.username);
  const [profile] = await c.query(
    'SELECT STATUS, PASSWORD_EXPIRATION_INTERVAL, USER_CLASS_NAME, SPECIAL_AUTHORITIES, GROUP_PROFILE_NAME, LIMIT_CAPABILITIES ' +
      'FROM QSYS2.USER_INFO WHERE AUTHORIZATION_NAME = ?',
    [user],
  );
  const sourceLibraries = entities.map((e) => e.source.schema).filter((l) => IBMI_NAME.test(l));
  const objects = await objectsIn(c, [...sourceLibraries, sync.library]);
  const journalLibraries = objects.flatMap((o) => (o.journal ? [o.journal.library] : []));
  const privileges: Privileges = {
    user,
    group: text(profile?.GROUP_PROFILE_NAME) || null,
    allObjects: text(profile?.SPECIAL_AUTHORITIES).includes('*ALLOBJ'),
    rows: await c.query(
      'SELECT SYSTEM_OBJECT_SCHEMA, SYSTEM_OBJECT_NAME, OBJECT_TYPE, AUTHORIZATION_NAME, OWNER, OBJECT_OPERATIONAL, ' +
        'OBJECT_MANAGEMENT, OBJECT_EXISTENCE, DATA_READ, DATA_ADD, DATA_UPDATE, DATA_DELETE, DATA_EXECUTE ' +
        "FROM QSYS2.OBJECT_PRIVILEGES WHERE (OBJECT_TYPE IN ('*LIB', '*CMD') AND SYSTEM_OBJECT_SCHEMA = 'QSYS') " +
        `OR SYSTEM_OBJECT_SCHEMA IN (${[...sourceLibraries, ...journalLibraries, sync.library].map(() => '?').join(', ')})`,
      [...sourceLibraries, ...journalLibraries, sync.library].map((l) => ibmiFold(l)),
    ),
  };
  const checkpointExists = objects.some((o) => o.library === sync.library && o.name === sync.table);
  const others = checkpointExists ? await sync.otherAgents().catch(() => null) : [];
  // A source file journaled in the sync library: its receivers would go with the library's own.
  const readThroughSync = entities.flatMap((e) => {
    const journal = e.journal ?? fileOf(objects, e.source)?.journal;
    return journal?.library === sync.library
      ? [`${tableKey(e.source)} (${journal.library}/${journal.name})`]
      : [];
  });
  return [
    profileCheck(user, profile),
    ...permissionChecks(privileges, entities, objects, sync),
    ...(heartbeatTag !== undefined ? [heartbeatCheck(privileges, entities, objects, heartbeatTag)] : []),
    ...(entities.length ? journalingChecks(entities, objects) : []),
    ...(entities.length
      ? [
          await journalAttributesCheck(
            c,
            entities.flatMap((e) => fileOf(objects, e.source) ?? []),
          ),
        ]
      : []),
    {
      id: 'sync-library',
      status: others === null || others.length || readThroughSync.length ? 'failed' : 'passed',
      message: readThroughSync.length
        ? `${sync.library} holds the journal of ${readThroughSync.join(', ')}: the agent deletes the old receivers of its sync library's journal (CHGJRN … DLTRCV(*YES)), which would delete receivers those changes are read from.`
        : others === null
          ? `${sync.qualified} cannot be read by ${user}.`
          : others.length
            ? `${sync.library} already keeps the checkpoints of ${others.join(', ')}: each journal agent on one source needs its own sync library.`
            : objects.some((o) => o.library === sync.library)
              ? `${sync.library} exists and no other agent uses it.`
              : `${sync.library} does not exist yet: the agent will create it at Start (CREATE SCHEMA ${sync.library}).`,
      remedy:
        others?.length || readThroughSync.length
          ? `Set another "${labelOf(journalHostCredentials, 'syncLibrary')}" in the host credentials.`
          : null,
      atStart:
        others?.length || readThroughSync.length || objects.some((o) => o.library === sync.library)
          ? null
          : `CREATE SCHEMA ${sync.library}`,
    },
    ...(entities.length ? await rowIdentificationChecks(c, entities) : []),
  ];
}
