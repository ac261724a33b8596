// The open pipeline's rows kept aside (the target refused them): read when the Tables section opens and
// when an event says they changed; retried from the source, discarded, or exported as CSV.
import { coalesced } from '../../shared/coalesce';
import { csvText } from '../../shared/csv';
import { exactText, type ExceptionsRequest, type RowException } from '../../shared/exceptions';
import { download } from '../platform/download';
import { useStore } from './index';
import { address, failure, patch, stillOpen } from './pipelinePage';

/** Rows listed in the app at once (the CSV export takes every row kept). */
export const EXCEPTIONS_SHOWN = 200;
/** What one export reads at most: the store's own per-pipeline bound is larger only when set so. */
const EXPORT_ROWS = 100_000;

export async function loadExceptions(
  table = useStore.getState().pipelinePage.exceptionsTable,
): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  try {
    const exceptions = await api.listEngineExceptions({ ...at, query: { table, limit: EXCEPTIONS_SHOWN } });
    if (stillOpen(at)) patch({ exceptions, exceptionsTable: table });
  } catch (error) {
    if (stillOpen(at)) patch({ error: failure(at, error) });
  }
}

/** After an event said rows were kept, retried or discarded (many may come at once). */
export const refreshExceptions = coalesced(() => loadExceptions(), 500);

/** Retries kept rows (read again from the source by key) or discards them. */
export async function actOnExceptions(action: 'retry' | 'discard', which: ExceptionsRequest): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    const done = await api.actOnEngineExceptions({ ...at, action, which });
    if (!stillOpen(at)) return patch({ busy: undefined });
    const notice =
      action === 'retry'
        ? `Retried from the source: ${done.applied ?? 0} applied, ${done.refusedAgain ?? 0} refused again (kept with the new error).`
        : `${done.discarded ?? 0} kept ${done.discarded === 1 ? 'row' : 'rows'} discarded.`;
    patch({ busy: undefined, notice });
    await loadExceptions();
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}

const CSV_COLUMNS = [
  'id',
  'table',
  'operation',
  'key',
  'position',
  'values',
  'error',
  'raw image (hex)',
  'kept at',
  'tried at',
  'attempts',
];

const rowText = (row: RowException['key'] | null) =>
  row === null
    ? ''
    : Object.entries(row)
        .map(([k, v]) => `${k}=${exactText(v)}`)
        .join('; ');

export function exceptionsCsv(rows: readonly RowException[]): string {
  return csvText(
    CSV_COLUMNS,
    rows.map((e) => [
      String(e.id),
      e.table,
      e.op,
      rowText(e.key),
      e.position,
      rowText(e.values),
      e.error,
      e.raw ?? '',
      e.at,
      e.triedAt,
      String(e.attempts),
    ]),
  );
}

/** Every row kept (of the table listed, or all) as a CSV file. */
export async function exportExceptions(): Promise<void> {
  const { api, pipelinePage } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  try {
    const table = pipelinePage.exceptionsTable;
    const { rows } = await api.listEngineExceptions({ ...at, query: { table, limit: EXPORT_ROWS } });
    download(`${at.pipelineId}-exceptions.csv`, exceptionsCsv(rows), 'text/csv;charset=utf-8');
  } catch (error) {
    patch({ error: failure(at, error) });
  }
}
