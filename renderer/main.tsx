import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectApi, webToken } from './api';
import { connectPush } from './push';
import { startPush } from './store/fleet';
import { App } from './App';
import { loadApp } from './store/app';
import './styles.css';

const api = connectApi();
if (api) {
  void loadApp(api);
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
