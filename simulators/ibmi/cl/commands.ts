// The CL commands the simulated IBM i runs through QCMDEXC, with the authority each needs
// ("Authority required for objects used by commands") and the CPF message each refusal carries.
import type { Right } from '../system/authority';
import { NAMED, rights, type AuthorityName } from '../system/authority';
import { parseDds } from '../system/dds';
import { charColumn, discardingPending, q, reorganize, zonedColumn } from '../system/files';
import { cpf } from '../system/messages';
import { Args, type CommandShape } from './args';
import type { Journal } from '../system/journals';
import { commandError, parseCommand, atom } from './parse';
import { displayFieldDescriptions, displayJournal, DSPFFD_SHAPE, DSPJRN_SHAPE } from './outfiles';
import { sourceText } from './source';
import { encodeText } from '../../../lib/ibmi/ccsid';
import { defineObjectCommands } from './objects';
import { useFile, type CommandContext } from './context';

export type { CommandContext };

type Run = (ctx: CommandContext, a: Args) => void;
const COMMANDS: Record<string, { shape: CommandShape; run: Run }> = {};
const define = (name: string, shape: CommandShape, run: Run) => (COMMANDS[name] = { shape, run });

/** The commands this system has, as *CMD objects in QSYS. */
export const commandNames = (): string[] => Object.keys(COMMANDS);

export function runCommand(ctx: CommandContext, text: string): void {
  const parsed = parseCommand(text);
  const def = COMMANDS[parsed.name];
  if (!def) throw commandError('CPD0030', `Command ${parsed.name} in library *LIBL not found.`);
  ctx.system.command(ctx.job, parsed.name);
  def.run(ctx, new Args(parsed, def.shape, ctx.currentLibrary, (n, dot) => ctx.system.isSystemName(n, dot)));
}

const text = (a: Args) => a.text('TEXT', '');

define(
  'CRTLIB',
  { positional: ['LIB', 'TYPE'], keywords: ['TEXT', 'ASP', 'AUT', 'CRTAUT'], required: ['LIB'] },
  (c, a) => {
    c.system.createLibrary(c.job, a.name('LIB'), text(a), false);
  },
);

define(
  'CRTJRNRCV',
  { positional: ['JRNRCV'], keywords: ['THRESHOLD', 'TEXT', 'AUT', 'ASP'], required: ['JRNRCV'] },
  (c, a) => {
    const { library, name } = a.qualified('JRNRCV');
    c.system.useLibrary(c.job, library, ['*EXECUTE', '*ADD', '*READ']);
    c.system.createReceiver(c.job.profile.name, library, name, text(a));
  },
);

define(
  'CRTJRN',
  {
    positional: ['JRN', 'JRNRCV'],
    keywords: ['MNGRCV', 'DLTRCV', 'TEXT', 'AUT', 'ASP', 'RCVSIZOPT', 'JRNOBJLMT', 'MINENTDTA'],
    required: ['JRN', 'JRNRCV'],
  },
  (c, a) => {
    const { library, name } = a.qualified('JRN');
    c.system.useLibrary(c.job, library, ['*EXECUTE', '*ADD', '*READ']);
    const r = a.qualified('JRNRCV');
    c.system.useLibrary(c.job, r.library);
    const receiver = c.system.receiver(r.library, r.name);
    if (receiver.journal) throw cpf('CPF7040', receiver.name, receiver.library);
    const j = c.system.createJournal(
      c.job,
      library,
      name,
      receiver,
      a.special('MNGRCV', ['*SYSTEM', '*USER'], '*SYSTEM') as '*SYSTEM' | '*USER',
      a.special('DLTRCV', ['*YES', '*NO'], '*NO') === '*YES',
    );
    j.text = text(a);
    j.minimizeFiles = minimizeFiles(a) ?? '*NONE';
  },
);

/** MINENTDTA: *NONE, or a list of *FILE or *FLDBDY (not both) and *DTAARA. */
function minimizeFiles(a: Args): Journal['minimizeFiles'] | null {
  const values = a.list('MINENTDTA').flatMap((v) => (atom(v) ?? '').toUpperCase() || []);
  if (values.length === 0) return null;
  const known = ['*NONE', '*FILE', '*FLDBDY', '*DTAARA'];
  const bad = values.find((v) => !known.includes(v));
  if (bad) throw commandError('CPD0084', `Value '${bad}' for parameter MINENTDTA not a valid value.`);
  if (values.includes('*FILE') && values.includes('*FLDBDY'))
    throw commandError('CPD7085', 'MINENTDTA(*FILE) cannot be specified with *FLDBDY.');
  return values.includes('*FILE') ? '*FILE' : values.includes('*FLDBDY') ? '*FLDBDY' : '*NONE';
}

function journalArg(c: CommandContext, a: Args, needed: readonly Right[]) {
  const { library, name } = a.qualified('JRN');
  c.system.useLibrary(c.job, library);
  const j = c.system.journal(library, name);
  if (!c.system.can(c.job, j.authority, needed)) throw cpf('CPF9802', '', name, library);
  return j;
}

define(
  'STRJRNPF',
  { positional: ['FILE', 'JRN'], keywords: ['IMAGES', 'OMTJRNE', 'LOGLVL'], required: ['FILE', 'JRN'] },
  (c, a) => {
    const j = journalArg(c, a, ['*OBJOPR', '*OBJMGT']);
    const images = a.special('IMAGES', ['*AFTER', '*BOTH'], '*AFTER') as '*AFTER' | '*BOTH';
    for (const v of a.list('FILE')) {
      const { library, name } = a.qualified('FILE', v);
      const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT']);
      c.system.startJournaling(c.job, file, j, images);
    }
  },
);

define('ENDJRNPF', { positional: ['FILE', 'JRN'], keywords: [], required: ['FILE'] }, (c, a) => {
  for (const v of a.list('FILE')) {
    const { library, name } = a.qualified('FILE', v);
    c.system.endJournaling(c.job, useFile(c, library, name, ['*OBJOPR', '*OBJMGT']));
  }
});

define(
  'CHGJRNOBJ',
  { positional: ['OBJ', 'ATR'], keywords: ['IMAGES', 'OMTJRNE', 'PARTTRN'], required: ['OBJ', 'ATR'] },
  (c, a) => {
    const attribute = a.special('ATR', ['*IMAGES', '*OMTJRNE', '*PARTTRN'], '*IMAGES');
    for (const pair of a.list('OBJ')) {
      const [objectValue, typeValue] = Array.isArray(pair) ? pair : [pair, undefined];
      const type = atom(typeValue) ?? '*FILE';
      if (type !== '*FILE')
        throw commandError('CPD0084', `Value '${type}' for parameter OBJ not a valid value.`);
      const { library, name } = a.qualified('OBJ', objectValue);
      const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT']);
      if (!file.journal) throw cpf('CPF7032', name, library, 'FILE');
      if (attribute === '*IMAGES') {
        file.journal.images = a.special('IMAGES', ['*AFTER', '*BOTH'], '*BOTH') as '*AFTER' | '*BOTH';
        for (const m of file.members) c.system.journalFileEntry(c.job, file, m, 'D', 'DJ');
      }
    }
  },
);

define(
  'CHGJRN',
  {
    positional: ['JRN', 'JRNRCV'],
    keywords: ['MNGRCV', 'DLTRCV', 'SEQOPT', 'JRNSTATE', 'TEXT', 'THRESHOLD', 'MINENTDTA'],
    required: ['JRN'],
  },
  (c, a) => {
    const j = journalArg(c, a, ['*OBJOPR', '*OBJMGT']);
    const mngrcv = a.special('MNGRCV', ['*SAME', '*SYSTEM', '*USER'], '*SAME');
    if (mngrcv !== '*SAME') j.manageReceivers = mngrcv as '*SYSTEM' | '*USER';
    const dltrcv = a.special('DLTRCV', ['*SAME', '*YES', '*NO'], '*SAME');
    if (dltrcv !== '*SAME') j.deleteReceivers = dltrcv === '*YES';
    j.minimizeFiles = minimizeFiles(a) ?? j.minimizeFiles;
    const reset = a.special('SEQOPT', ['*CONT', '*RESET'], '*CONT') === '*RESET';
    const rcv = a.text('JRNRCV', '*SAME');
    if (rcv === '*SAME' && !reset) return;
    let next = null;
    if (rcv !== '*GEN' && rcv !== '*SAME') {
      const r = a.qualified('JRNRCV');
      next = c.system.receiver(r.library, r.name);
      if (next.journal) throw cpf('CPF7040', next.name, next.library);
    }
    c.system.changeReceiver(c.job, j, next, reset);
  },
);

// SNDJRNE: a user entry (journal code U) of the caller's type and data, which the command's text gives
// in the job's CCSID. The entry names no object here (FILE, OBJ: *NONE); it needs *OBJOPR and *ADD
// on the journal (QJOSJRNE's "Authorities and Locks").
define(
  'SNDJRNE',
  {
    positional: ['JRN', 'TYPE', 'ENTDTA'],
    keywords: ['FILE', 'OBJ', 'OBJPATH', 'OBJFID', 'FORCE', 'OVRSTATE', 'OVRRMTFTR'],
    required: ['JRN'],
  },
  (c, a) => {
    for (const k of ['FILE', 'OBJ', 'OBJPATH', 'OBJFID'])
      if (a.has(k) && a.text(k, '*NONE') !== '*NONE')
        throw commandError('CPD0084', `The sandbox sends user entries with no object; got ${k}.`);
    const j = journalArg(c, a, ['*OBJOPR', '*ADD']);
    const type = a.text('TYPE', '00');
    if (!/^[A-Z0-9]{2}$/.test(type))
      throw commandError('CPD0084', `Value '${type}' for parameter TYPE not a valid value.`);
    const data = a.text('ENTDTA', '*BLANK');
    c.system.userEntry(
      c.job,
      j,
      type,
      data === '*BLANK' ? encodeText(' ', c.system.ccsid) : encodeText(data, c.system.ccsid),
    );
  },
);

define('DLTJRNRCV', { positional: ['JRNRCV'], keywords: ['DLTOPT'], required: ['JRNRCV'] }, (c, a) => {
  const { library, name } = a.qualified('JRNRCV');
  c.system.useLibrary(c.job, library);
  const r = c.system.receiver(library, name);
  if (!c.system.can(c.job, r.authority, ['*OBJEXIST'])) throw cpf('CPF9802', '', name, library);
  c.system.deleteReceiver(r);
});

define(
  'CRTPF',
  {
    positional: ['FILE', 'SRCFILE', 'SRCMBR', 'RCDLEN'],
    keywords: ['MBR', 'MAXMBRS', 'REUSEDLT', 'TEXT', 'SIZE', 'AUT', 'CCSID', 'FILETYPE'],
    required: ['FILE'],
  },
  (c, a) => {
    const { library, name } = a.qualified('FILE');
    c.system.useLibrary(c.job, library, ['*EXECUTE', '*ADD', '*READ']);
    const maxText = a.text('MAXMBRS', '1');
    const maxMembers = maxText === '*NOMAX' ? null : Number(maxText);
    const memberText = a.text('MBR', '*FILE');
    const member = memberText === '*NONE' ? null : memberText === '*FILE' ? name : memberText;
    const common = {
      library,
      name,
      reuseDeleted: a.special('REUSEDLT', ['*YES', '*NO'], '*NO') === '*YES',
      maxMembers,
    };
    const recordLength = a.number('RCDLEN', null);
    if (a.has('RCDLEN') && !a.has('SRCFILE')) {
      if (!recordLength)
        throw commandError(
          'CPD0084',
          `Value '${a.text('RCDLEN', '')}' for parameter RCDLEN not a valid value.`,
        );
      // A program-described file: one character field named after the file.
      c.system.addFile(
        c.job,
        {
          ...common,
          origin: 'dds',
          format: name,
          columns: [charColumn(name, recordLength)],
          key: null,
          text: text(a),
        },
        member,
      );
      return;
    }
    const src = a.qualified('SRCFILE', a.raw('SRCFILE') ?? { text: 'QDDSSRC', quoted: false });
    const srcMember = a.text('SRCMBR', '*FILE');
    const dds = parseDds(
      sourceText(c, src.library, src.name, srcMember === '*FILE' ? name : srcMember),
      Number(a.text('CCSID', String(c.system.ccsid))) || c.system.ccsid,
    );
    c.system.addFile(
      c.job,
      {
        ...common,
        origin: 'dds',
        format: dds.format,
        columns: dds.columns,
        key: dds.keys.length ? { columns: dds.keys, unique: dds.unique, constraint: null } : null,
        text: text(a) || dds.text,
      },
      member,
    );
  },
);

define(
  'CRTSRCPF',
  { positional: ['FILE', 'RCDLEN', 'MBR'], keywords: ['TEXT', 'MAXMBRS', 'CCSID'], required: ['FILE'] },
  (c, a) => {
    const { library, name } = a.qualified('FILE');
    c.system.useLibrary(c.job, library, ['*EXECUTE', '*ADD', '*READ']);
    const length = (a.number('RCDLEN', 92) ?? 92) - 12;
    const memberText = a.text('MBR', '*NONE');
    c.system.addFile(
      c.job,
      {
        library,
        name,
        origin: 'dds',
        format: name,
        reuseDeleted: false,
        maxMembers: null,
        key: null,
        text: text(a),
        columns: [zonedColumn('SRCSEQ', 6, 2), zonedColumn('SRCDAT', 6), charColumn('SRCDTA', length)],
      },
      memberText === '*NONE' ? null : memberText === '*FILE' ? name : memberText,
    );
  },
);

define('ADDPFM', { positional: ['FILE', 'MBR'], keywords: ['TEXT'], required: ['FILE', 'MBR'] }, (c, a) => {
  const { library, name } = a.qualified('FILE');
  const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT']);
  c.system.addMember(file, a.name('MBR'));
});

define(
  'RGZPFM',
  {
    positional: ['FILE', 'MBR'],
    keywords: ['KEYFILE', 'RBDACCPTH', 'ALWCANCEL', 'LOCK'],
    required: ['FILE'],
  },
  (c, a) => {
    const { library, name } = a.qualified('FILE');
    const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT']);
    const member = c.system.member(file, a.text('MBR', '*FIRST'));
    const keyFile = a.text('KEYFILE', '*NONE');
    reorganize(c.system.db, file, member, keyFile === '*FILE');
    c.system.journalFileEntry(c.job, file, member, 'F', 'RG');
  },
);

define('CLRPFM', { positional: ['FILE', 'MBR'], keywords: [], required: ['FILE'] }, (c, a) => {
  const { library, name } = a.qualified('FILE');
  const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT', '*DLT']);
  const member = c.system.member(file, a.text('MBR', '*FIRST'));
  c.system.db.exec(`DELETE FROM ${q(discardingPending(member))}`);
  member.deleted = [];
  member.nextRrn = 1;
  c.system.journalFileEntry(c.job, file, member, 'F', 'CR');
});

define(
  'CHGPF',
  {
    positional: ['FILE'],
    keywords: ['REUSEDLT', 'MAXMBRS', 'SIZE', 'TEXT', 'SRCFILE', 'SRCMBR'],
    required: ['FILE'],
  },
  (c, a) => {
    const { library, name } = a.qualified('FILE');
    const file = useFile(c, library, name, ['*OBJOPR', '*OBJMGT', '*OBJALTER']);
    if (a.has('SRCFILE')) {
      // The file takes the record format of the new DDS source; data is mapped field by field (a new
      // field holds its default, a field left out is gone), journaled as one D CG.
      const src = a.qualified('SRCFILE');
      const srcMember = a.text('SRCMBR', '*FILE');
      const ccsid = file.columns.find((col) => 'ccsid' in col.type)?.type;
      const dds = parseDds(
        sourceText(c, src.library, src.name, srcMember === '*FILE' ? name : srcMember),
        ccsid && 'ccsid' in ccsid ? ccsid.ccsid : c.system.ccsid,
      );
      if (dds.keys.join() !== (file.key?.columns ?? []).join())
        throw cpf('CPF7304', name, library, 'the new source changes the key fields');
      c.system.alterFile(c.job, file, dds.columns);
    }
    const reuse = a.special('REUSEDLT', ['*SAME', '*YES', '*NO'], '*SAME');
    if (reuse !== '*SAME') file.reuseDeleted = reuse === '*YES';
    const max = a.text('MAXMBRS', '*SAME');
    if (max !== '*SAME') file.maxMembers = max === '*NOMAX' ? null : Number(max);
    if (a.has('TEXT')) file.text = text(a);
  },
);

define('DLTF', { positional: ['FILE'], keywords: ['SYSTEM', 'RMVCST'], required: ['FILE'] }, (c, a) => {
  const { library, name } = a.qualified('FILE');
  c.system.useLibrary(c.job, library);
  const file = c.system.file(library, name);
  if (!file) throw cpf('CPF2105', name, library, 'FILE');
  if (!c.system.can(c.job, file.authority, ['*OBJEXIST', '*OBJOPR']))
    throw cpf('CPF2189', name, library, 'FILE');
  if (file.journal) for (const m of file.members) c.system.journalFileEntry(c.job, file, m, 'F', 'MD');
  c.system.deleteFile(file);
});

const AUT_VALUES = ['*ALL', '*CHANGE', '*USE', '*EXCLUDE', ...NAMED['*ALL']];

/** The AUT parameter's values (`missing` for one left empty), each a named or specific authority or one of `also`. */
function autValues(a: Args, missing: string, also: readonly string[] = []): string[] {
  const values = a.list('AUT').map((v) => atom(v) ?? missing);
  for (const v of values)
    if (!AUT_VALUES.includes(v) && !also.includes(v))
      throw commandError('CPD0084', `Value '${v}' for parameter AUT not a valid value.`);
  return values;
}

// CHKOBJ: whether a file exists (CPF9801) and the job holds the authorities AUT names (CPF9802), as
// "Check Object (CHKOBJ)" says; AUT(*NONE), the default, checks existence alone. Files only here.
define(
  'CHKOBJ',
  { positional: ['OBJ', 'OBJTYPE', 'MBR', 'AUT'], keywords: [], required: ['OBJ', 'OBJTYPE'] },
  (c, a) => {
    const { library, name } = a.qualified('OBJ');
    a.special('OBJTYPE', ['*FILE'], '*FILE');
    c.system.useLibrary(c.job, library);
    const file = c.system.file(library, name);
    if (!file) throw cpf('CPF9801', '', name, library);
    const values = autValues(a, '*NONE', ['*NONE']);
    const needed = values.flatMap((v): Right[] =>
      v === '*NONE' ? [] : v in NAMED ? [...rights(v as AuthorityName)] : [v as Right],
    );
    if (needed.length > 0 && !c.system.can(c.job, file.authority, needed))
      throw cpf('CPF9802', '', name, library);
  },
);

function grantOrRevoke(c: CommandContext, a: Args, grant: boolean) {
  const { library, name } = a.qualified('OBJ');
  const type = a.special('OBJTYPE', ['*FILE', '*LIB', '*JRN', '*JRNRCV', '*CMD'], '*FILE');
  const auth =
    type === '*LIB'
      ? c.system.libraries.get(name)?.authority
      : type === '*CMD'
        ? (c.system.commands.get(name) ??
          c.system.commands
            .set(name, { owner: 'QSYS', public: rights('*USE'), private: new Map() })
            .get(name) ??
          undefined)
        : type === '*FILE'
          ? c.system.file(library, name)?.authority
          : type === '*JRN'
            ? c.system.journals.get(`${library}/${name}`)?.authority
            : c.system.receivers.get(`${library}/${name}`)?.authority;
  if (!auth) throw cpf('CPF2105', name, library, type.slice(1));
  if (!c.system.can(c.job, auth, ['*OBJMGT']) && auth.owner !== c.job.profile.name)
    throw cpf('CPF2189', name, library, type.slice(1));
  const values = autValues(a, '');
  const named = values.length === 1 && (values[0] ?? '') in NAMED ? rights(values[0] as AuthorityName) : null;
  for (const u of a.list('USER').map((v) => atom(v) ?? '')) {
    const current = u === '*PUBLIC' ? auth.public : (auth.private.get(u) ?? new Set());
    const next = grant
      ? named && u !== '*PUBLIC'
        ? named
        : new Set([...current, ...(named ?? (values as Right[]))])
      : new Set([...current].filter((r) => !(named ?? new Set(values as Right[])).has(r)));
    if (u === '*PUBLIC') auth.public = next;
    else auth.private.set(u, next);
  }
}

const AUT_SHAPE: CommandShape = {
  positional: ['OBJ', 'OBJTYPE', 'USER', 'AUT'],
  keywords: ['ASPDEV', 'REPLACE'],
  required: ['OBJ', 'OBJTYPE'],
};
define('GRTOBJAUT', AUT_SHAPE, (c, a) => grantOrRevoke(c, a, true));
define('RVKOBJAUT', AUT_SHAPE, (c, a) => grantOrRevoke(c, a, false));

define('DSPJRN', DSPJRN_SHAPE, (c, a) => displayJournal(c, a));
defineObjectCommands(define);
define('DSPFFD', DSPFFD_SHAPE, (c, a) => displayFieldDescriptions(c, a));
