// Lint rules keep the layers apart (scripts/layers.mjs): shared/ is pure TypeScript, the renderer reaches
// Node only through the API contract, and imports run one way between folders.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { fileURLToPath } from 'node:url';
import { layerViolation } from './scripts/layers.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The layers as a lint rule: each import, static, type-only, re-export or import(), checked. */
const layers = {
  rules: {
    direction: {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const check = (node, source) => {
          if (!source || typeof source.value !== 'string') return;
          const why = layerViolation(root, context.filename, source.value);
          if (why) context.report({ node, message: `${source.value}: ${why}.` });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source),
          ExportNamedDeclaration: (node) => check(node, node.source),
          ExportAllDeclaration: (node) => check(node, node.source),
          ImportExpression: (node) => check(node, node.source),
        };
      },
    },
  },
};

const nodeOnly = ['node:*', 'fs', 'path', 'os', 'http', 'https', 'net', 'tls', 'crypto', 'child_process'];
const driverModules = ['electron', 'mssql', 'tedious', 'odbc', 'better-sqlite3', 'pg'];

export default tseslint.config(
  { ignores: ['dist/', 'release/', 'node_modules/', 'test/artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['{main,renderer,shared,simulators,lib}/**/*.{ts,tsx}'],
    plugins: { layers },
    rules: { 'layers/direction': 'error' },
  },
  {
    // CommonJS on purpose (the stand-in `electron` both module systems load).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [...nodeOnly, ...driverModules], message: 'shared/ stays free of Node and drivers.' },
            { group: ['react', 'react-dom', 'zustand'], message: 'shared/ stays free of the DOM and UI.' },
            {
              group: ['**/main/**', '**/renderer/**'],
              message: 'shared/ imports nothing from main/ or renderer/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...nodeOnly, ...driverModules],
              message: 'The renderer reaches Node only through the API contract.',
            },
            { group: ['**/main/**'], message: 'The renderer imports shared/, never main/.' },
          ],
        },
      ],
    },
  },
);
