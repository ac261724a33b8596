// What appears where the DBA acted takes focus (a result, a refusal, a question), so the keyboard is on
// it rather than back at the top of the page.
import { useEffect, useRef } from 'react';

/** A ref for the element that takes focus each time `shown` becomes something new (and not nothing). */
export function useFocusOn<T extends HTMLElement>(shown: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (shown) ref.current?.focus();
  }, [shown]);
  return ref;
}
