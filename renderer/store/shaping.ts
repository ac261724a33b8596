// A table's shaping saved from its story (docs/shaping.md): the pipeline's entities read again, this
// table's masks, target names, row filter, skipped deletes and mode replaced, the rest kept as stored.
import type { Entity } from '../../shared/controlApi';
import { tableModeSchema, type ColumnShaping, type TableMode } from '../../shared/shaping';
import { tableText } from '../../shared/names';
import { useStore } from './index';
import { address, failure } from './pipelinePage';

export interface ShapingDraft {
  columnShaping: Record<string, ColumnShaping>;
  rowFilter: string;
  skipDeletes: boolean;
  /** How the target holds the rows: live, soft delete or history (a new mode takes its default column names). */
  mode: TableMode['kind'];
}

/** The stored shaping of one table, for its editor; undefined when the table is no entity. */
export async function loadShaping(table: string): Promise<ShapingDraft | string | undefined> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return undefined;
  try {
    const { entities } = await api.getEngineEntities({ profileId: at.profileId, pipelineId: at.pipelineId });
    const e = entities.find((x) => tableText(x.source.schema, x.source.table) === table);
    return (
      e && {
        columnShaping: e.columnShaping ?? {},
        rowFilter: e.rowFilter ?? '',
        skipDeletes: e.skipOperations?.includes('delete') ?? false,
        mode: e.tableMode?.kind ?? 'live',
      }
    );
  } catch (error) {
    return failure(at, error);
  }
}

const shaped = (e: Entity, d: ShapingDraft): Entity => {
  const { columnShaping: _c, rowFilter: _f, skipOperations: _s, tableMode: mode, ...rest } = e;
  const columns = Object.fromEntries(
    Object.entries(d.columnShaping).filter(([, s]) => s.mask !== undefined || s.targetName !== undefined),
  );
  return {
    ...rest,
    ...(Object.keys(columns).length > 0 && { columnShaping: columns }),
    ...(d.rowFilter.trim() !== '' && { rowFilter: d.rowFilter.trim() }),
    ...(d.skipDeletes && { skipOperations: ['delete'] }),
    // The stored mode's column names are kept; a new mode takes its default names (the schema's).
    ...(d.mode !== 'live' && {
      tableMode: mode?.kind === d.mode ? mode : tableModeSchema.parse({ kind: d.mode }),
    }),
  };
};

/** Saves the table's shaping; answers what the engine said (its warnings), or its refusal. */
export async function saveShaping(
  table: string,
  draft: ShapingDraft,
): Promise<{ ok: boolean; message: string }> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return { ok: false, message: 'No pipeline is open.' };
  try {
    const { entities } = await api.getEngineEntities({ profileId: at.profileId, pipelineId: at.pipelineId });
    const next = entities.map((e) =>
      tableText(e.source.schema, e.source.table) === table ? shaped(e, draft) : e,
    );
    const answer = await api.saveEngineEntities({
      profileId: at.profileId,
      pipelineId: at.pipelineId,
      entities: next,
    });
    return { ok: true, message: ['Shaping saved.', ...answer.warnings].join(' ') };
  } catch (error) {
    return { ok: false, message: failure(at, error) };
  }
}
