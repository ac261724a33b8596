// A pipeline's Checks: its agent's connection and permission checks as the engine runs them (they only
// read), failures first, with remedies and the statements that fix them; and the readiness report.
import { useFocusOn } from '../../ui/useFocusOn';
import { FIXABLE_CHECK_IDS } from '../../../shared/controlApi';
import { checksHeadline } from '../../../shared/checkSummary';
import { dateTime } from '../../../shared/format';
import { useStore } from '../../store';
import { applyFix, recheck, runChecks } from '../../store/pipelinePage';
import { CheckList } from '../../ui/CheckList';
import { ReadinessButton } from './ReadinessButton';

export function ChecksSection() {
  const results = useStore((s) => s.pipelinePage.results);
  const busy = useStore((s) => s.pipelinePage.busy);
  // The results appear under the button that asked for them, and take focus.
  const resultsRef = useFocusOn<HTMLDivElement>(results);
  return (
    <>
      <p className="row-actions">
        <button
          type="button"
          className="primary"
          disabled={busy !== undefined}
          onClick={() => void runChecks()}
        >
          {busy === 'checking' ? 'Checking…' : 'Run checks'}
        </button>
        <ReadinessButton />
        <span className="muted">Checks only read; a fix is applied only when you say so.</span>
      </p>
      {results && (
        <div aria-label="Check results" ref={resultsRef} tabIndex={-1}>
          <p>
            <strong>{checksHeadline(results.checks, results.tables ?? null)}</strong>{' '}
            <span className="muted">Checked at {dateTime(results.checkedAt)}.</span>
          </p>
          <CheckList
            checks={results.checks}
            fixable={FIXABLE_CHECK_IDS}
            onApply={(id) => void applyFix(id)}
            onRecheck={(id) => void recheck(id)}
          />
        </div>
      )}
    </>
  );
}
