import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectApi, webToken } from './platform/api';
import { connectPush } from './platform/push';
import { startPush } from './store/fleet';
import { App } from './App';
import { loadApp } from './store/app';
import { startRouting } from './store/route';
import './styles.css';

const api = connectApi();
if (api) {
  // Once the app is loaded, the address (a bookmark, a reload) opens what it names.
  void loadApp(api).then(() => startRouting());
  // One subscription for the window's life: main's pushes keep every screen current.
  startPush(connectPush(window.api ? undefined : webToken()));
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
