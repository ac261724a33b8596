// Rewind…, beside Start and Stop: the point asked for in the source's own terms (its startAt rule),
// what a rewind of this source applies again said before it is asked, then handed to the engine. The
// outcome arrives as a `rewound` or `rewind-refused` event in the pipeline's events.
import { useState } from 'react';
import { agentTypes, agentTypeSchema } from '../../../shared/agents';
import { startAtRuleOf } from '../../../shared/rewind';
import { useFocusOn } from '../../ui/useFocusOn';
import { rewindPipeline } from '../../store/pipelinePage';

/** The source type's start-point rule and what its rewind applies again; undefined when it has none. */
function rewindOf(type: string) {
  const known = agentTypeSchema.safeParse(type);
  const definition = known.success ? agentTypes[known.data] : undefined;
  const startAt = definition && startAtRuleOf(definition.sections.configuration);
  return startAt && { rule: startAt.rule, note: definition.ui?.rewindNote ?? '' };
}

/** Rewind…, among the pipeline's actions: only for a source type that names start points. */
export function RewindButton({
  type,
  disabled,
  onAsk,
}: {
  type: string;
  disabled: boolean;
  onAsk: () => void;
}) {
  if (!rewindOf(type)) return null;
  return (
    <button type="button" disabled={disabled} onClick={onAsk}>
      Rewind…
    </button>
  );
}

/** The question under the actions: the point, in the source's terms, and what the rewind does. */
export function RewindQuestion({ type, busy, onDone }: { type: string; busy: boolean; onDone: () => void }) {
  const [to, setTo] = useState('');
  const box = useFocusOn<HTMLDivElement>(true);
  const rewind = rewindOf(type);
  if (!rewind) return null;
  return (
    <div role="group" aria-label="Rewind" className="confirm" ref={box} tabIndex={-1}>
      <p>
        Rewind the pipeline? Every table goes back to the point and the changes since are applied again, by
        key, so the target ends equal to the source. {rewind.note}
      </p>
      <p>
        <label>
          Rewind to{' '}
          <input
            value={to}
            onChange={(e) => setTo(e.target.value)}
            aria-describedby="rewind-rule"
            maxLength={40}
          />
        </label>{' '}
        <span id="rewind-rule" className="muted">
          {rewind.rule}
        </span>
      </p>
      <p>
        <button
          type="button"
          className="primary"
          disabled={to.trim() === '' || busy}
          onClick={() =>
            void rewindPipeline(to.trim()).then((taken) => {
              if (taken) onDone();
            })
          }
        >
          Yes, rewind it
        </button>{' '}
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </p>
    </div>
  );
}
