import { useStore } from './store';
import { AgentTypeList } from './screens/AgentTypeList';
import { AgentWizard } from './wizard/AgentWizard';

export function App() {
  const appInfo = useStore((s) => s.appInfo);
  const loadError = useStore((s) => s.loadError);
  const api = useStore((s) => s.api);
  const wizard = useStore((s) => s.wizard);
  return (
    <>
      <header className="app-head">
        <h1>CDC Admin</h1>
        {appInfo && (
          <span className="muted">
            {appInfo.version} · {appInfo.mode === 'web' ? 'web mode' : 'desktop'}
          </span>
        )}
      </header>
      <main>
        {!api && (
          <p role="alert" className="problem">
            This page needs the token from the URL that `npm run web` printed. Open that URL again.
          </p>
        )}
        {loadError && (
          <p role="alert" className="problem">
            {loadError}
          </p>
        )}
        <div className="layout">
          <AgentTypeList />
          {wizard ? (
            <AgentWizard />
          ) : (
            <p className="muted placeholder">Pick an agent type to configure it.</p>
          )}
        </div>
      </main>
    </>
  );
}
