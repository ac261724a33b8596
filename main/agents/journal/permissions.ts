// The spec's eight permissions of the journal agent, each tested from QSYS2.OBJECT_PRIVILEGES the way
// IBM i resolves authority: *ALLOBJ, then the owner, then the user's private authority, then its
// group's, then *PUBLIC. Objects the agent will create itself (the sync library and its files) are
// its own, so only the right to create them is asked for.
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { clName, type IbmiRow, cellText as text } from '../../../lib/ibmi/connection';
import { fileOf, hasSystemNames, type ObjectState } from './journals';
import { heartbeatCommand, heartbeatGrant } from './heartbeat';
import type { SyncLibrary } from './syncLibrary';
import { ibmiFold } from '../../../shared/names';

export interface Privileges {
  user: string;
  group: string | null;
  allObjects: boolean;
  rows: IbmiRow[];
}

const COLUMNS: Record<string, string> = {
  '*OBJOPR': 'OBJECT_OPERATIONAL',
  '*OBJMGT': 'OBJECT_MANAGEMENT',
  '*OBJEXIST': 'OBJECT_EXISTENCE',
  '*READ': 'DATA_READ',
  '*ADD': 'DATA_ADD',
  '*UPD': 'DATA_UPDATE',
  '*DLT': 'DATA_DELETE',
  '*EXECUTE': 'DATA_EXECUTE',
};
const USE = ['*OBJOPR', '*READ', '*EXECUTE'];
const CHANGE = ['*OBJOPR', '*READ', '*ADD', '*UPD', '*DLT', '*EXECUTE'];

interface Needed {
  library: string;
  name: string;
  type: string;
  rights: string[];
}

/** The rights missing on an object (all of them when the user cannot see it at all). */
function missing(p: Privileges, n: Needed): string[] {
  if (p.allObjects) return [];
  const rows = p.rows.filter(
    (r) =>
      text(r.SYSTEM_OBJECT_SCHEMA) === n.library &&
      text(r.SYSTEM_OBJECT_NAME) === n.name &&
      text(r.OBJECT_TYPE) === n.type,
  );
  if (rows.length === 0) return n.rights;
  const owner = text(rows[0]?.OWNER);
  if (owner === p.user || (p.group !== null && owner === p.group)) return [];
  const held =
    rows.find((r) => text(r.AUTHORIZATION_NAME) === p.user) ??
    (p.group ? rows.find((r) => text(r.AUTHORIZATION_NAME) === p.group) : undefined) ??
    rows.find((r) => text(r.AUTHORIZATION_NAME) === '*PUBLIC');
  return n.rights.filter((right) => text(held?.[COLUMNS[right] ?? '']) !== 'YES');
}

const command = (name: string): Needed => ({
  library: 'QSYS',
  name,
  type: '*CMD',
  rights: ['*OBJOPR', '*EXECUTE'],
});
const library = (name: string, rights: string[]): Needed => ({ library: 'QSYS', name, type: '*LIB', rights });

function grant(user: string, n: Needed): string {
  const object =
    n.type === '*LIB' || n.type === '*CMD'
      ? n.type === '*CMD'
        ? `QSYS/${n.name}`
        : n.name
      : `${n.library}/${n.name}`;
  const aut = n.rights.every((r) => USE.includes(r))
    ? '*USE'
    : n.rights.every((r) => CHANGE.includes(r))
      ? '*CHANGE'
      : n.rights.join(' ');
  return `GRTOBJAUT OBJ(${object}) OBJTYPE(${n.type}) USER(${user}) AUT(${aut})`;
}

/** "LIB/JRN (*JRN) lacks *ADD; DSPJRN (*CMD) lacks *EXECUTE": what each object lacks. */
const lackingText = (short: readonly { n: Needed; lacking: string[] }[]) =>
  short
    .map(
      ({ n, lacking }) =>
        `${n.type === '*LIB' || n.type === '*CMD' ? n.name : `${n.library}/${n.name}`} (${n.type}) lacks ${lacking.join(' ')}`,
    )
    .join('; ');

function result(p: Privileges, id: string, purpose: string, needs: Needed[], passedNote = ''): CheckResult {
  const short = needs.map((n) => ({ n, lacking: missing(p, n) })).filter((x) => x.lacking.length > 0);
  if (short.length === 0)
    return {
      id,
      status: 'passed',
      message: `${p.user} may ${purpose}.${passedNote ? ` ${passedNote}` : ''}`,
      remedy: null,
    };
  return {
    id,
    status: 'failed',
    message: `${p.user} may not ${purpose}: ${lackingText(short)}.`,
    remedy: clName(p.user)
      ? 'A security officer grants the authorities with the commands below.'
      : `A security officer grants the authorities to the profile (${JSON.stringify(p.user)} is not an IBM i profile name, so no command is written for it).`,
    fix: clName(p.user) ? short.map(({ n }) => grant(p.user, { ...n, rights: n.rights })).join('\n') : null,
  };
}

export function permissionChecks(
  p: Privileges,
  entities: readonly Entity[],
  objects: ObjectState[],
  sync: SyncLibrary,
): CheckResult[] {
  const lib = sync.library;
  const libraryExists = p.rows.some(
    (r) => text(r.OBJECT_TYPE) === '*LIB' && text(r.SYSTEM_OBJECT_NAME) === lib,
  );
  const own = (what: string) => `${lib} does not exist yet; the agent will own ${what}.`;
  const tables = entities.filter((e) => hasSystemNames(e.source));
  const sourceNeeds = tables.flatMap((e) => {
    const l = ibmiFold(e.source.schema);
    return [
      library(l, ['*EXECUTE']),
      { library: l, name: ibmiFold(e.source.table), type: '*FILE', rights: ['*OBJOPR', '*READ'] },
    ];
  });
  const journals = journalsNeeded(tables, objects, USE);
  const checkpoint = objects.some((o) => o.library === lib && o.name === sync.table);
  const syncJournal = objects.some((o) => o.library === lib && o.type === '*JRN' && o.name === 'QSQJRN');
  return [
    result(p, 'permission-read-source', 'read the source tables and their schema', sourceNeeds),
    result(
      p,
      'permission-create-library',
      `create the sync library ${lib}`,
      libraryExists ? [] : ['CRTLIB', 'CRTJRNRCV', 'CRTJRN'].map(command),
      libraryExists ? `${lib} exists already.` : '',
    ),
    result(
      p,
      'permission-create-files',
      `create files in ${lib}`,
      libraryExists ? [library(lib, ['*EXECUTE', '*READ', '*ADD'])] : [],
      libraryExists ? '' : own('it'),
    ),
    result(
      p,
      'permission-sync-files',
      `read and write the files in ${lib}`,
      checkpoint ? [{ library: lib, name: sync.table, type: '*FILE', rights: CHANGE }] : [],
      checkpoint ? '' : own('its files'),
    ),
    result(p, 'permission-chgjrn', `change the journal of ${lib} (CHGJRN, to delete old receivers)`, [
      command('CHGJRN'),
      ...(syncJournal
        ? [{ library: lib, name: 'QSQJRN', type: '*JRN', rights: ['*OBJOPR', '*OBJMGT'] }]
        : []),
    ]),
    result(p, 'permission-dspjrn', "read the tables' journals (DSPJRN)", [command('DSPJRN'), ...journals]),
    result(p, 'permission-chgpf', `change files in ${lib} (CHGPF)`, [command('CHGPF')]),
    result(p, 'permission-dltf', `delete files in ${lib} (DLTF)`, [
      command('DLTF'),
      ...(libraryExists ? [library(lib, ['*EXECUTE'])] : []),
    ]),
  ];
}

/** The journals of the tables (an entity's own override first), each once, with the rights asked. */
function journalsNeeded(tables: readonly Entity[], objects: ObjectState[], rights: string[]): Needed[] {
  const journals = new Map<string, Needed>();
  for (const e of tables) {
    const j = e.journal ?? fileOf(objects, e.source)?.journal;
    if (j) journals.set(`${j.library}/${j.name}`, { library: j.library, name: j.name, type: '*JRN', rights });
  }
  return [...journals.values()];
}

/**
 * With the heartbeat on: whether the profile may send its entries to the tables' journals (SNDJRNE
 * needs *OBJOPR and *ADD on each, beyond the spec's permissions). Without, a warning naming the grant:
 * the agent runs without a heartbeat. With, the entries are the write shown at Start.
 */
export function heartbeatCheck(
  p: Privileges,
  entities: readonly Entity[],
  objects: ObjectState[],
  tag: string,
): CheckResult {
  const journals = journalsNeeded(
    entities.filter((e) => hasSystemNames(e.source)),
    objects,
    ['*OBJOPR', '*ADD'],
  );
  const short = [command('SNDJRNE'), ...journals]
    .map((n) => ({ n, lacking: missing(p, n) }))
    .filter((x) => x.lacking.length > 0);
  if (short.length === 0)
    return {
      id: 'heartbeat',
      status: 'passed',
      message: `${p.user} may send heartbeat entries to the tables' journals (SNDJRNE).`,
      remedy: null,
      ...(journals.length && { atStart: journals.map((j) => heartbeatCommand(j, tag)).join('; ') }),
    };
  const named = clName(p.user);
  return {
    id: 'heartbeat',
    status: 'warning',
    message:
      `The heartbeat is on, but ${p.user} may not send its entries to the tables' journals (SNDJRNE): ` +
      `${lackingText(short)}. The agent runs without a heartbeat, and a quiet journal shows "idle since" instead of how fresh it is.`,
    remedy: `A security officer grants the authorities${named ? ' with the commands below' : ''}, or set the heartbeat to 0.`,
    fix: named
      ? short.map(({ n }) => (n.type === '*JRN' ? heartbeatGrant(n, named) : grant(named, n))).join('\n')
      : null,
  };
}
