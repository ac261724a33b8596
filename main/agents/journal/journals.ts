// Journal library and name per file, detected from the source (engine 2.0.10 on, in the spec's words):
// QSYS2.OBJECT_STATISTICS says for each file whether, where and with which images it is journaled.
// One statement for any number of libraries (a UNION ALL of the table function per library).
import { IBMI_NAME } from '../../../shared/config/fields';
import { ibmiName, type IbmiConnection, cellText as text } from '../../../lib/ibmi/connection';
import { tableKey, type TableRef } from '../source';
import type { JournalName } from './reader';
import { ibmiFold } from '../../../shared/names';

export interface ObjectState {
  library: string;
  name: string;
  type: string;
  owner: string;
  journal: JournalName | null;
  images: string | null;
}

/** Whether an entity's source is named by IBM i system names (anything else never reaches a statement). */
export const hasSystemNames = (ref: TableRef): boolean =>
  IBMI_NAME.test(ref.schema) && IBMI_NAME.test(ref.table);

/** The entity's file among the objects found, by its system names. */
export const fileOf = (objects: readonly ObjectState[], ref: TableRef): ObjectState | undefined =>
  objects.find(
    (o) => o.type === '*FILE' && o.library === ibmiFold(ref.schema) && o.name === ibmiFold(ref.table),
  );

/** The files and journals (and, with `withLibraries`, nothing more) in the libraries, one query. */
export async function objectsIn(c: IbmiConnection, libraries: readonly string[]): Promise<ObjectState[]> {
  const libs = [...new Set(libraries.map((l) => ibmiName(l, 'Library')))];
  if (libs.length === 0) return [];
  const rows = await c.query(
    libs
      .map(
        (_, i) =>
          'SELECT OBJLIB, OBJNAME, OBJTYPE, OBJOWNER, JOURNALED, JOURNAL_LIBRARY, JOURNAL_NAME, JOURNAL_IMAGES ' +
          `FROM TABLE(QSYS2.OBJECT_STATISTICS(?, '*FILE *JRN', '*ALL')) O${i}`,
      )
      .join(' UNION ALL '),
    libs,
  );
  return rows.map((r) => ({
    library: text(r.OBJLIB),
    name: text(r.OBJNAME),
    type: text(r.OBJTYPE),
    owner: text(r.OBJOWNER),
    journal:
      text(r.JOURNALED) === 'YES' ? { library: text(r.JOURNAL_LIBRARY), name: text(r.JOURNAL_NAME) } : null,
    images: text(r.JOURNAL_IMAGES) || null,
  }));
}

/** Per table (by its key): the file's state, when the file exists and the user may see it. */
export async function detectJournals(
  c: IbmiConnection,
  tables: readonly TableRef[],
): Promise<Map<string, ObjectState>> {
  const objects = await objectsIn(
    c,
    tables.map((t) => t.schema),
  );
  const out = new Map<string, ObjectState>();
  for (const t of tables) {
    const library = ibmiName(t.schema, 'Library');
    const file = ibmiName(t.table, 'File');
    const found = objects.find((o) => o.type === '*FILE' && o.library === library && o.name === file);
    if (found) out.set(tableKey(t), found);
  }
  return out;
}

/**
 * The sync library's journal has its old receivers deleted by the agent (rotateJournal): a source file
 * journaled in that library would lose the receivers its changes are read from. Refused, naming both.
 */
export function refuseSyncJournal(
  syncLibrary: string,
  tables: readonly TableRef[],
  journals: readonly (JournalName | undefined)[],
): void {
  const i = journals.findIndex((j) => j?.library === syncLibrary);
  if (i < 0) return;
  const j = journals[i] as JournalName;
  throw new Error(
    `${tableKey(tables[i] as TableRef)} is journaled to ${j.library}/${j.name}, in the sync library ${syncLibrary}, whose receivers the agent deletes (CHGJRN … DLTRCV(*YES)): set another syncLibrary.`,
  );
}
