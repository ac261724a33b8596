import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectApi } from './platform/api';
import { connectPush } from './platform/push';
import { startPush } from './store/fleet';
import { App } from './App';
import { loadApp } from './store/app';
import { useStore } from './store';
import { startRouting } from './store/route';
import './styles.css';

// Rendered once the tab knows its access: no "needs a launch link" flashes while the code is exchanged.
void connectApi().then(({ api, webToken, problem }) => {
  if (problem) useStore.setState({ loadError: problem });
  if (api) {
    // Once the app is loaded, the address (a bookmark, a reload) opens what it names.
    void loadApp(api).then(() => startRouting());
    // One subscription for the window's life: main's pushes keep every screen current.
    startPush(connectPush(webToken));
  }
  const root = document.getElementById('root');
  if (root)
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
});
