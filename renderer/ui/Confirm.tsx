// A question asked in place before an action that cannot be undone (Stop, Remove agent, Delete
// pipeline): it says what goes and what stays, takes focus where the button was, and answers Yes or
// Cancel. One shape for all, so every confirmation reads and behaves alike.
import type { ReactNode } from 'react';
import { useFocusOn } from './useFocusOn';

export function Confirm({
  label,
  yes,
  onYes,
  onCancel,
  children,
}: {
  /** The group's accessible name, e.g. "Confirm stop". */
  label: string;
  /** The Yes button's words, e.g. "Yes, stop it". */
  yes: string;
  onYes: () => void;
  onCancel: () => void;
  /** The question, saying what goes and what stays. */
  children: ReactNode;
}) {
  // Shown only while asked: focus comes here once, when it appears.
  const question = useFocusOn<HTMLParagraphElement>(true);
  return (
    <p role="group" aria-label={label} className="confirm" ref={question} tabIndex={-1}>
      {children}{' '}
      <button type="button" className="primary" onClick={onYes}>
        {yes}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </p>
  );
}
