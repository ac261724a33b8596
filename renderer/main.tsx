import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectApi } from './api';
import { App } from './App';
import { loadApp } from './store/app';
import './styles.css';

const api = connectApi();
if (api) void loadApp(api);

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
