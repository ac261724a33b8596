// The journal agent's table view: per entity, whether its file exists, its primary key, whether and
// where it is journaled and with which images, and what would stop the agent. Three queries in all.
import { rowIdentificationText, type Entity, type TableState } from '../../../shared/controlApi';
import type { IbmiConnection } from '../drivers/ibmi/connection';
import { tableKey, tableRefOf } from '../source';
import { fileOf, hasSystemNames, objectsIn } from './journals';
import { catalogLayouts, unknownColumns } from './layout';

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
    const problem = !file.journal
      ? 'Not journaled: STRJRNPF with IMAGES(*BOTH).'
      : file.images !== '*BOTH'
        ? `Journaled with ${file.images ?? '*AFTER'} images: CHGJRNOBJ to IMAGES(*BOTH).`
        : id.kind === 'primaryKey' && layout.primaryKey.length === 0
          ? 'No primary key: identify rows by a logical key or RRN.'
          : unknown.length > 0
            ? `The logical key names unknown columns: ${unknown.join(', ')}.`
            : null;
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
