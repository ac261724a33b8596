// Check results as a DBA reads them: status, what was found, what to do, and the statement that
// fixes it (copyable; applied only when the user says so, and only where the engine offers it).
import { useState } from 'react';
import type { CheckResult } from '../../shared/controlApi';
import { checkTitle, checksInOrder, uncheckedCauses } from '../../shared/checkSummary';

export function CheckList({
  checks,
  fixable = [],
  onApply,
  onRecheck,
}: {
  checks: readonly CheckResult[];
  fixable?: readonly string[];
  onApply?: (checkId: string) => void;
  /** Checks one again (after the DBA fixed it by hand, say). */
  onRecheck?: (checkId: string) => void;
}) {
  const causes = uncheckedCauses(checks);
  const row = (check: CheckResult) => (
    <li key={check.id} className={`check-${check.status}`} aria-label={`Check ${check.id}`}>
      <span className="status">{check.status}</span> <strong>{checkTitle(check.id)}</strong>: {check.message}
      {check.remedy && <span className="muted"> Remedy: {check.remedy}</span>}
      {check.atStart && (
        <span className="at-start">
          {' '}
          At Start the agent runs <code>{check.atStart}</code>
        </span>
      )}
      {onRecheck && check.status !== 'passed' && (
        <>
          {' '}
          <button
            type="button"
            className="link"
            onClick={() => onRecheck(check.id)}
            aria-label={`Check again: ${check.id}`}
          >
            Check again
          </button>
        </>
      )}
      {check.fix && (
        <Fix
          check={check}
          onApply={onApply && check.status !== 'passed' && fixable.includes(check.id) ? onApply : undefined}
        />
      )}
    </li>
  );
  const ordered = checksInOrder(checks);
  // Failures first; then what could not run, one line per cause naming every check it stopped; then the rest.
  return (
    <ul className="checks">
      {ordered.filter((c) => c.status === 'failed').map(row)}
      {causes.map((cause) => (
        <li
          key={cause.why}
          className="check-unchecked"
          aria-label={`Could not check ${cause.ids.join(', ')}`}
        >
          <span className="status">could not run</span>{' '}
          <strong>{cause.ids.map(checkTitle).join(', ')}</strong>: {cause.why}
          {cause.remedy && <span className="muted"> Remedy: {cause.remedy}</span>}
        </li>
      ))}
      {ordered.filter((c) => c.status === 'warning' || c.status === 'passed').map(row)}
    </ul>
  );
}

function Fix({ check, onApply }: { check: CheckResult; onApply?: (checkId: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState<'copied' | 'refused' | null>(null);
  return (
    <div className="fix">
      <pre aria-label={`Fix for ${check.id}`}>{check.fix}</pre>
      <div className="row-actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(check.fix ?? '').then(
              () => setCopied('copied'),
              () => setCopied('refused'),
            )
          }
        >
          Copy
        </button>
        {copied && (
          <span role="status" className={copied === 'copied' ? 'ok' : 'problem'}>
            {copied === 'copied'
              ? 'Copied to the clipboard.'
              : 'The browser refused the clipboard: select the statement and copy it.'}
          </span>
        )}
        {onApply && !confirming && (
          <button type="button" onClick={() => setConfirming(true)}>
            Apply…
          </button>
        )}
        {onApply && confirming && (
          <span role="group" aria-label={`Confirm fix for ${check.id}`}>
            Run this statement on the source database?{' '}
            <button
              type="button"
              className="primary"
              onClick={() => {
                setConfirming(false);
                onApply(check.id);
              }}
            >
              Yes, apply it
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        )}
      </div>
    </div>
  );
}
