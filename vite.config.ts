import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { CONTENT_SECURITY_POLICY } from './main/platform/csp.ts';

// The renderer is one static bundle: Electron loads it from disk, web mode serves it over loopback.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [
    react(),
    {
      name: 'csp-meta',
      transformIndexHtml: () => [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
          injectTo: 'head-prepend',
        },
      ],
    },
  ],
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true },
});
