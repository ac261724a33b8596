// Verify and repair of the selected running pipeline (docs/verify.md): the request, the report as
// it advances (refreshed with the run), and the report saved as CSV or JSON.
import { download } from '../platform/download';
import { differencesCsv, type VerifyReport, type VerifyRequest } from '../../shared/verify';
import { useStore } from './index';
import { address, failure, patch, refreshRun, stillOpen } from './pipelinePage';
import { runPart, shownNow } from './answerOrder';

export async function askVerify(
  action: 'verify' | 'repair' | 'cancel',
  request?: VerifyRequest,
): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    const verify = await api.requestEngineVerify({
      ...at,
      action,
      ...(request && action === 'verify' ? { request } : {}),
    });
    if (!stillOpen(at)) return patch({ busy: undefined });
    shownNow(runPart('verify', at));
    // What it is doing is said by the report itself (the Verify panel), for as long as it is true.
    patch({ verify, busy: undefined, notice: undefined });
    await refreshRun();
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}

/** Hands a report to the browser (or Electron) as a file: its differences as CSV, or all of it as JSON. */
export function saveReport(report: VerifyReport, format: 'csv' | 'json'): void {
  const text = format === 'csv' ? differencesCsv(report) : JSON.stringify(report, null, 2) + '\n';
  download(
    `verify-${report.requestedAt.slice(0, 19).replace(/[:T]/g, '-')}.${format}`,
    text,
    format === 'csv' ? 'text/csv;charset=utf-8' : 'application/json',
  );
}
