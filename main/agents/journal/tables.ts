// The journal agent's table view: per entity, whether its file exists, its primary key, whether and
// where it is journaled and with which images, and what would stop the agent. Three queries in all.
import {
  rowIdentificationText,
  type CatalogTable,
  type Entity,
  type TableState,
} from '../../../shared/controlApi';
import { cellText as text, type IbmiConnection } from '../../../lib/ibmi/connection';
import { tableKey, tableRefOf } from '../source';
import { fileOf, hasSystemNames, objectsIn, type ObjectState } from './journals';
import { journalingFix } from './checks';
import { catalogLayouts, primaryKeys, unknownColumns } from './layout';

/** What stops the agent reading a file's journal, in words; null when it is journaled with both images. */
function journalingProblem(file: ObjectState): string | null {
  if (!file.journal) return 'Not journaled: STRJRNPF with IMAGES(*BOTH).';
  if (file.images !== '*BOTH')
    return `Journaled with ${file.images ?? '*AFTER'} images: CHGJRNOBJ to IMAGES(*BOTH).`;
  return null;
}

export async function journalTables(c: IbmiConnection, entities: readonly Entity[]): Promise<TableState[]> {
  const named = entities.filter((e) => hasSystemNames(e.source));
  const objects = await objectsIn(
    c,
    named.map((e) => e.source.schema),
  );
  const layouts = await catalogLayouts(c, named.map(tableRefOf));
  return entities.map((e) => {
    const base = {
      table: tableKey(e.source),
      rowIdentification: rowIdentificationText(e),
      changeTracking: null,
    };
    const layout = layouts.find((l) => tableKey(l.ref) === tableKey(e.source));
    const file = fileOf(objects, e.source);
    if (!file || !layout)
      return {
        ...base,
        exists: false,
        primaryKey: [],
        journalImages: null,
        journal: null,
        problem: named.includes(e)
          ? 'The file does not exist, or the user cannot see it.'
          : 'Not an IBM i system name (1 to 10 of A-Z, 0-9, _, $, # or @).',
      };
    const journal = e.journal ?? file.journal;
    const id = e.rowIdentification;
    const unknown = id.kind === 'logicalKey' ? unknownColumns(layout, id.columns) : [];
    const problem =
      journalingProblem(file) ??
      (id.kind === 'primaryKey' && layout.primaryKey.length === 0
        ? 'No primary key: identify rows by a logical key or RRN.'
        : unknown.length > 0
          ? `The logical key names unknown columns: ${unknown.join(', ')}.`
          : null);
    return {
      ...base,
      exists: true,
      primaryKey: layout.primaryKey,
      journalImages: file.journal ? (file.images ?? '*AFTER') : null,
      journal: journal ? `${journal.library}/${journal.name}` : null,
      problem,
    };
  });
}

/**
 * Every file a journal entity could read: the physical and SQL tables of the user's libraries (IBM's
 * Q… libraries and the sync library left out), with rows, primary key, journal and images, and the
 * CL commands that journal it with both images when it is not. Four queries however many files.
 */
export async function journalCatalog(c: IbmiConnection, syncLibrary: string): Promise<CatalogTable[]> {
  const files = (
    await c.query(
      'SELECT SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME FROM QSYS2.SYSTABLES ' +
        "WHERE TABLE_TYPE IN ('T', 'P') AND FILE_TYPE = 'D' AND SYSTEM_TABLE = 'N' " +
        "AND SYSTEM_TABLE_SCHEMA NOT LIKE 'Q%' AND SYSTEM_TABLE_SCHEMA <> ?",
      [syncLibrary],
    )
  )
    .map((r) => ({ schema: text(r.SYSTEM_TABLE_SCHEMA), table: text(r.SYSTEM_TABLE_NAME) }))
    .filter(hasSystemNames);
  if (files.length === 0) return [];
  const libraries = [...new Set(files.map((f) => f.schema))];
  const marks = libraries.map(() => '?').join(', ');
  // One after the other: one connection runs one statement at a time.
  const objects = await objectsIn(c, libraries);
  const keys = await primaryKeys(c, files);
  const counts = await c.query(
    'SELECT SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME, SUM(NUMBER_ROWS) AS N FROM QSYS2.SYSPARTITIONSTAT ' +
      `WHERE SYSTEM_TABLE_SCHEMA IN (${marks}) GROUP BY SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME`,
    libraries,
  );
  const rows = new Map(
    counts.map((r) => [`${text(r.SYSTEM_TABLE_SCHEMA)}/${text(r.SYSTEM_TABLE_NAME)}`, Number(r.N)]),
  );
  return files.map((f) => {
    const at = `${f.schema}/${f.table}`;
    const file = fileOf(objects, f);
    const journaled = file?.journal ?? null;
    const problem = file ? journalingProblem(file) : 'The user cannot see the file (no authority to it).';
    return {
      schema: f.schema,
      table: f.table,
      rows: rows.get(at) ?? null,
      primaryKey: keys.get(at) ?? [],
      changeTracking: null,
      journal: journaled ? `${journaled.library}/${journaled.name}` : null,
      journalImages: journaled ? (file?.images ?? '*AFTER') : null,
      problem,
      fix: file ? journalingFix(file, objects) : null,
    };
  });
}
