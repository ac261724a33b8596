import { useStore } from '../store';
import { openWizard } from '../store/wizard';

export function AgentTypeList() {
  const agentTypes = useStore((s) => s.agentTypes);
  const selected = useStore((s) => s.wizard?.agentType);
  return (
    <nav aria-label="Agent types" className="agent-types">
      <h2>Source agents</h2>
      <ul>
        {agentTypes.map((t) => (
          <li key={t.type}>
            <button type="button" aria-pressed={selected === t.type} onClick={() => openWizard(t.type)}>
              <strong>{t.title}</strong> <span className="muted">{t.database}</span>
            </button>
            <p className="muted">{t.description}</p>
          </li>
        ))}
      </ul>
    </nav>
  );
}
