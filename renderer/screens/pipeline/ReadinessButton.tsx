// "Readiness report": the engine runs the checks and reads the tables, and the page it makes is saved
// (with its PDF in the desktop app; in a browser, printed from the saved page).
import { useFocusOn } from '../../ui/useFocusOn';
import { useState } from 'react';
import { useStore } from '../../store';
import { address, failure } from '../../store/pipelinePage';
import { download, fromBase64 } from '../../platform/download';

export function ReadinessButton() {
  const [state, setState] = useState<{ busy?: boolean; saved?: string; error?: string }>({});
  const said = useFocusOn<HTMLSpanElement>(state.saved ?? state.error);
  const web = useStore((s) => s.appInfo?.mode === 'web');
  const make = async () => {
    const { api } = useStore.getState();
    const at = address();
    if (!api || !at) return;
    setState({ busy: true });
    try {
      const report = await api.createReadinessReport(at);
      download(`${report.fileName}.html`, report.html, 'text/html');
      if (report.pdfBase64)
        download(`${report.fileName}.pdf`, fromBase64(report.pdfBase64), 'application/pdf');
      setState({ saved: report.pdfBase64 ? `${report.fileName}.html and .pdf` : `${report.fileName}.html` });
    } catch (error) {
      setState({ error: failure(at, error) });
    }
  };
  return (
    <>
      <button type="button" disabled={state.busy} onClick={() => void make()}>
        {state.busy ? 'Making the report…' : 'Readiness report'}
      </button>
      {(state.saved || state.error) && (
        <span
          ref={said}
          tabIndex={-1}
          role="status"
          className={state.error ? 'problem' : 'ok'}
          aria-label="Readiness report"
        >
          {state.error ??
            `Saved ${state.saved}${web ? ': open it and print it (Ctrl+P) to save it as PDF.' : '.'}`}
        </span>
      )}
    </>
  );
}
