import { showScreen, useStore } from './store';
import type { Screen } from '../shared/route';
import { AgentTypeList } from './screens/AgentTypeList';
import { PipelinesScreen } from './screens/pipeline/PipelinesScreen';
import { DiagnosticsScreen } from './screens/DiagnosticsScreen';
import { EnginesScreen } from './screens/EnginesScreen';
import { HomeScreen } from './screens/HomeScreen';
import { AgentWizard } from './wizard/AgentWizard';

export function App() {
  const appInfo = useStore((s) => s.appInfo);
  const loadError = useStore((s) => s.loadError);
  const api = useStore((s) => s.api);
  const wizard = useStore((s) => s.wizard);
  const screen = useStore((s) => s.screen);
  const tab = (id: Screen, label: string) => (
    <button
      type="button"
      className="tab"
      aria-current={screen === id ? 'page' : undefined}
      onClick={() => showScreen(id)}
    >
      {label}
    </button>
  );
  return (
    <>
      <header className="app-head">
        <h1>CDC Admin</h1>
        {appInfo && (
          <span className="muted">
            {appInfo.version} · {appInfo.mode === 'web' ? 'web mode' : 'desktop'}
          </span>
        )}
        <nav aria-label="Screens" className="tabs">
          {tab('home', 'Home')}
          {tab('agents', 'Agents')}
          {tab('engines', 'Engines')}
          {tab('pipelines', 'Pipelines')}
          {tab('diagnostics', 'Diagnostics')}
        </nav>
      </header>
      <main>
        {!api && !loadError && (
          <p role="alert" className="problem">
            This page needs a launch link that `npm run web` printed: each opens one tab.
          </p>
        )}
        {loadError && (
          <p role="alert" className="problem">
            {loadError}
          </p>
        )}
        {api && screen === 'home' && <HomeScreen />}
        {api && screen === 'engines' && <EnginesScreen />}
        {api && screen === 'pipelines' && <PipelinesScreen />}
        {api && screen === 'diagnostics' && <DiagnosticsScreen />}
        {api && screen === 'agents' && (
          <div className="layout">
            <AgentTypeList />
            {wizard ? (
              <AgentWizard />
            ) : (
              <p className="muted placeholder">Pick an agent type to configure it.</p>
            )}
          </div>
        )}
      </main>
    </>
  );
}
