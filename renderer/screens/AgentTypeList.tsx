// The agent types, by what they are in a pipeline: a source it reads, or a target it writes to (a
// pipeline with no target agent writes to a SQLite file in the app's data folder).
import { agentTypes as definitions } from '../../shared/agents';
import { useStore } from '../store';
import { openWizard } from '../store/wizard';

export function AgentTypeList() {
  const agentTypes = useStore((s) => s.agentTypes);
  const wizard = useStore((s) => s.wizard);
  const list = (role: 'source' | 'target') =>
    agentTypes
      .filter((t) => t.roles.includes(role))
      .map((t) => (
        <li key={t.type}>
          <button
            type="button"
            aria-pressed={wizard?.agentType === t.type && wizard.role === role}
            onClick={() =>
              // Another target type for the pipeline the target wizard was opened for keeps it; a
              // new source never inherits the last pipeline's id.
              openWizard(
                t.type,
                role,
                role === 'target' && wizard?.role === 'target' ? wizard.pipelineId : undefined,
              )
            }
          >
            <strong>{role === 'target' ? (definitions[t.type].ui?.targetTitle ?? t.title) : t.title}</strong>{' '}
            <span className="muted">
              {t.database}
              {role === 'target' ? ' target' : ''}
            </span>
          </button>
          {role === 'source' && <p className="muted">{t.description}</p>}
        </li>
      ));
  return (
    <nav aria-label="Agent types" className="agent-types">
      <h2>Source agents</h2>
      <ul>{list('source')}</ul>
      <h2>Targets</h2>
      <p className="muted">
        Where a pipeline writes. Without a target agent it writes to a SQLite file in the app&apos;s data
        folder; add one here to write to a database of your own (tables created from the source&apos;s
        columns).
      </p>
      <ul>{list('target')}</ul>
    </nav>
  );
}
