// Object commands a DBA runs on journaled files, with the journal entries IBM documents for each:
// RNMOBJ (D FN), MOVOBJ (D FM), RMVM (F DM), and saving to and restoring from a save file (SAVOBJ,
// F MS "Member saved"; RSTOBJ, F MR "Member restored": the member's records become the saved ones).
import type { Args, CommandShape } from './args';
import { useFile, type CommandContext } from './context';
import { q } from '../system/files';
import { cpf } from '../system/messages';

type Define = (name: string, shape: CommandShape, run: (c: CommandContext, a: Args) => void) => void;

/** A save file's content: each saved file's members with their records, RRNs and free slots. */
interface SavedFile {
  library: string;
  name: string;
  columns: string;
  members: { name: string; rows: Record<string, unknown>[]; nextRrn: number; deleted: number[] }[];
}
const saveFiles = new WeakMap<object, Map<string, SavedFile[]>>();

function savf(c: CommandContext, a: Args): { key: string; files: Map<string, SavedFile[]> } {
  const { library, name } = a.qualified('SAVF');
  const files = saveFiles.get(c.system) ?? new Map<string, SavedFile[]>();
  saveFiles.set(c.system, files);
  const key = `${library}/${name}`;
  if (!files.has(key)) throw cpf('CPF9812', name, library);
  return { key, files };
}

export function defineObjectCommands(define: Define): void {
  define(
    'RNMOBJ',
    {
      positional: ['OBJ', 'OBJTYPE', 'NEWOBJ'],
      keywords: ['SYSOBJNAM', 'ASPDEV'],
      required: ['OBJ', 'OBJTYPE', 'NEWOBJ'],
    },
    (c, a) => {
      a.special('OBJTYPE', ['*FILE'], '*FILE');
      const { library, name } = a.qualified('OBJ');
      const file = useFile(c, library, name, ['*OBJMGT', '*OBJOPR']);
      c.system.relocateFile(c.job, file, { library, name: a.name('NEWOBJ') });
    },
  );

  define(
    'MOVOBJ',
    {
      positional: ['OBJ', 'OBJTYPE', 'TOLIB'],
      keywords: ['ASPDEV', 'TOASPDEV'],
      required: ['OBJ', 'OBJTYPE', 'TOLIB'],
    },
    (c, a) => {
      a.special('OBJTYPE', ['*FILE'], '*FILE');
      const { library, name } = a.qualified('OBJ');
      const file = useFile(c, library, name, ['*OBJMGT', '*OBJOPR']);
      const to = a.name('TOLIB');
      c.system.useLibrary(c.job, to, ['*ADD', '*READ']);
      c.system.relocateFile(c.job, file, { library: to, name });
    },
  );

  define('RMVM', { positional: ['FILE', 'MBR'], keywords: [], required: ['FILE', 'MBR'] }, (c, a) => {
    const { library, name } = a.qualified('FILE');
    const file = useFile(c, library, name, ['*OBJEXIST', '*OBJOPR']);
    c.system.removeMember(c.job, file, c.system.member(file, a.name('MBR')));
  });

  define('CRTSAVF', { positional: ['FILE'], keywords: ['TEXT', 'AUT'], required: ['FILE'] }, (c, a) => {
    const { library, name } = a.qualified('FILE');
    c.system.useLibrary(c.job, library, ['*ADD', '*READ']);
    const files = saveFiles.get(c.system) ?? new Map<string, SavedFile[]>();
    saveFiles.set(c.system, files);
    if (files.has(`${library}/${name}`) || c.system.objectExists(library, name))
      throw cpf('CPF5813', name, library);
    files.set(`${library}/${name}`, []);
  });

  define(
    'SAVOBJ',
    {
      positional: ['OBJ', 'LIB', 'DEV'],
      keywords: ['OBJTYPE', 'SAVF', 'CLEAR', 'SAVACT', 'ACCPTH'],
      required: ['OBJ', 'LIB', 'DEV'],
    },
    (c, a) => {
      a.special('DEV', ['*SAVF'], '*SAVF');
      const lib = a.name('LIB');
      const file = useFile(c, lib, a.name('OBJ'), ['*OBJEXIST']);
      const { key, files } = savf(c, a);
      // A save file holds one save; CLEAR(*ALL) (or an empty file) lets the new one in.
      files.set(key, [
        {
          library: file.library,
          name: file.name,
          columns: file.columns.map((col) => `${col.name} ${JSON.stringify(col.type)}`).join(),
          members: file.members.map((m) => ({
            name: m.name,
            rows: c.system.db.prepare(`SELECT * FROM ${q(m.table)} ORDER BY __RRN`).all() as Record<
              string,
              unknown
            >[],
            nextRrn: m.nextRrn,
            deleted: [...m.deleted],
          })),
        },
      ]);
      for (const m of file.members) c.system.journalFileEntry(c.job, file, m, 'F', 'MS');
    },
  );

  define(
    'RSTOBJ',
    {
      positional: ['OBJ', 'SAVLIB', 'DEV'],
      keywords: ['OBJTYPE', 'SAVF', 'MBROPT', 'ALWOBJDIF', 'RSTLIB'],
      required: ['OBJ', 'SAVLIB', 'DEV'],
    },
    (c, a) => {
      a.special('DEV', ['*SAVF'], '*SAVF');
      const savLib = a.name('SAVLIB');
      const objName = a.name('OBJ');
      const { key, files } = savf(c, a);
      const saved = files.get(key)?.find((f) => f.library === savLib && f.name === objName);
      if (!saved) throw cpf('CPF3782', objName, savLib);
      const rstLib = a.text('RSTLIB', '*SAVLIB');
      const file = useFile(c, rstLib === '*SAVLIB' ? savLib : rstLib, objName, ['*OBJEXIST', '*OBJMGT']);
      // A file whose record format changed since the save is not restored over (ALWOBJDIF aside).
      const now = file.columns.map((col) => `${col.name} ${JSON.stringify(col.type)}`).join();
      if (now !== saved.columns) throw cpf('CPF3782', file.name, file.library);
      // MBROPT(*MATCH), the default: the members saved and existing are restored.
      for (const s of saved.members) {
        const member = file.members.find((m) => m.name === s.name);
        if (!member) continue;
        c.system.db.exec(`DELETE FROM ${q(member.table)}`);
        const names = Object.keys(s.rows[0] ?? {});
        if (names.length > 0) {
          const insert = c.system.db.prepare(
            `INSERT INTO ${q(member.table)} (${names.map(q).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
          );
          for (const row of s.rows) insert.run(...names.map((n) => row[n]));
        }
        member.nextRrn = s.nextRrn;
        member.deleted = [...s.deleted];
        c.system.journalFileEntry(c.job, file, member, 'F', 'MR');
      }
    },
  );
}
