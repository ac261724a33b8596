// The layers of the code, declared once: each folder (sub-folders included, each named) and what it may
// import besides itself and shared/. Any folder may import shared/; within shared/, the table holds too.
// A key may also be one file that stands apart from its folder (the agent registry names every agent).
// The agent type and driver folders are read from the tree (AGENT_FOLDERS, DRIVER_FOLDERS).
// The lint rule "layers/direction" (eslint.config.js) and test/repo/layers.unit.test.ts read this table, and
// docs/architecture.md shows it. Tests (test/, simulators/*/test/), scripts and benchmarks are outside it.
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The sub-folders of a folder of the project, as table keys. */
const foldersIn = (folder) =>
  readdirSync(join(ROOT, folder), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${folder}/${d.name}`)
    .sort();

/** Shared driver code (a database's connection, types, errors), used by the agent types of that database. */
export const DRIVER_FOLDERS = foldersIn('main/agents/drivers');
/**
 * One folder per agent type, read from the tree: a new type's folder needs no row here. Each may import
 * the plugin contract, any driver and the platform, and only the registry imports it.
 */
export const AGENT_FOLDERS = foldersIn('main/agents').filter((f) => f !== 'main/agents/drivers');

export const LAYERS = {
  // The Electron and web entries register the sandbox with the app, loaded on demand.
  'main/desktop': ['main/app', 'main/sandbox', 'main/platform', 'main/platform/http'],
  'main/web': ['main/app', 'main/sandbox', 'main/platform', 'main/platform/http'],
  'main/app': ['main/engine', 'main/client', 'main/runner', 'main/agents', 'main/sandbox', 'main/platform'],
  // The lazy sandbox entry: the only way from the app to the simulators.
  'main/sandbox': ['simulators/mssql', 'simulators/ibmi', 'lib/ibmi', 'main/platform'],
  'main/engine': [
    'main/engine/store',
    'main/runner',
    'main/runner/verify',
    'main/runner/shaping',
    'main/agents',
    'main/platform',
    'main/platform/http',
  ],
  'main/engine/store': ['main/platform'],
  'main/client': ['main/platform'],
  'main/runner': ['main/runner/verify', 'main/runner/shaping', 'main/agents', 'main/platform'],
  'main/runner/shaping': ['main/agents', 'main/platform'],
  'main/runner/verify': ['main/agents', 'main/platform'],
  // The plugin contract; only the registry names the agent folders that implement it.
  'main/agents': ['main/platform'],
  'main/agents/registry.ts': [...AGENT_FOLDERS, 'main/platform'],
  ...Object.fromEntries(
    AGENT_FOLDERS.map((f) => [f, ['main/agents', ...DRIVER_FOLDERS, 'lib/ibmi', 'main/platform']]),
  ),
  // A driver may use the plugin contract's types (a change, a verdict on an error), never a type's folder.
  ...Object.fromEntries(DRIVER_FOLDERS.map((f) => [f, ['main/agents', 'lib/ibmi', 'main/platform']])),
  'main/platform': [],
  'main/platform/http': ['main/platform'],

  renderer: [
    'renderer/screens',
    'renderer/screens/pipeline',
    'renderer/wizard',
    'renderer/ui',
    'renderer/store',
    'renderer/platform',
  ],
  'renderer/screens/pipeline': [
    'renderer/screens',
    'renderer/wizard',
    'renderer/ui',
    'renderer/store',
    'renderer/platform',
  ],
  'renderer/screens': ['renderer/wizard', 'renderer/ui', 'renderer/store', 'renderer/platform'],
  'renderer/wizard': ['renderer/ui', 'renderer/store', 'renderer/platform'],
  'renderer/ui': ['renderer/store', 'renderer/platform'],
  'renderer/store': ['renderer/platform'],
  'renderer/platform': [],

  shared: ['shared/agents', 'shared/config'],
  'shared/agents': ['shared/config'],
  'shared/config': [],

  // The simulators implement the IBM i driver's connection interface and share its codecs, which
  // tests against references outside our code (ICU's uconv, IBM's examples) keep honest.
  simulators: [],
  'simulators/mssql': [
    'simulators/mssql/tsql',
    'simulators/mssql/tds',
    'simulators/mssql/tds/dataTypes',
    'simulators',
  ],
  'simulators/mssql/tsql': ['simulators/mssql/tds', 'simulators/mssql/tds/dataTypes', 'simulators'],
  'simulators/mssql/tds': ['simulators/mssql/tds/dataTypes', 'simulators'],
  // One file per data type, and the type names and the dispatch table they share.
  'simulators/mssql/tds/dataTypes': [],
  'simulators/ibmi': [
    'simulators/ibmi/cl',
    'simulators/ibmi/sql',
    'simulators/ibmi/system',
    'lib/ibmi',
    'simulators',
  ],
  'simulators/ibmi/sql': ['simulators/ibmi/cl', 'simulators/ibmi/system', 'lib/ibmi'],
  'simulators/ibmi/cl': ['simulators/ibmi/system', 'lib/ibmi'],
  'simulators/ibmi/system': ['lib/ibmi', 'simulators'],

  // IBM i's connection interface and codecs (EBCDIC, packed and zoned decimal, record images), below
  // both of their users: the journal agent (through the ODBC driver in main/agents/drivers/ibmi) and
  // the simulated IBM i. Nothing of main/ or simulators/ is reached from here.
  'lib/ibmi': [],
};

const posixPath = (path) => path.split(sep).join('/');

const TYPE_ROW = 'main/agents/<type>';
const DRIVER_ROW = 'main/agents/drivers/<database>';

/** A row's allowed folders as the README shows them: the folders read from the tree as one word. */
function shownAllowed(folder, allowed) {
  if (folder === 'main/agents/registry.ts')
    return [TYPE_ROW, ...allowed.filter((f) => !AGENT_FOLDERS.includes(f))];
  if (AGENT_FOLDERS.includes(folder))
    return [...allowed.filter((f) => !DRIVER_FOLDERS.includes(f)), DRIVER_ROW];
  return allowed;
}

/** The table as Markdown, for the README (npm run docs writes it; a test keeps it current). */
export function layerTable() {
  // A folder read from the tree stands as its kind's one row, so a new type or driver leaves the README as it is.
  const rows = Object.entries(LAYERS).flatMap(([folder, allowed]) => {
    const name = AGENT_FOLDERS.includes(folder)
      ? TYPE_ROW
      : DRIVER_FOLDERS.includes(folder)
        ? DRIVER_ROW
        : folder;
    const first = name === folder || folder === AGENT_FOLDERS[0] || folder === DRIVER_FOLDERS[0];
    if (!first) return [];
    const shown = shownAllowed(folder, allowed);
    return [
      `| \`${name}${name.endsWith('.ts') ? '' : '/'}\` | ${shown.length ? shown.map((a) => `\`${a}\``).join(', ') : '—'} |`,
    ];
  });
  return ['| Folder | May import, besides itself and `shared/` |', '| --- | --- |', ...rows].join('\n');
}

/** The table's key a path falls under (the longest that contains it), or undefined outside it. */
export function layerOf(root, path) {
  const rel = posixPath(relative(root, path));
  if (rel.startsWith('..') || /(^|\/)test\//.test(rel)) return undefined;
  let best;
  for (const key of Object.keys(LAYERS)) {
    // An import names a file without its extension, or a folder by its index.
    const inside = key.endsWith('.ts')
      ? rel === key || rel === key.slice(0, -3)
      : rel === key || rel.startsWith(`${key}/`);
    if (inside && (!best || key.length > best.length)) best = key;
  }
  return best;
}

/** Why `file` may not import `spec`, or null when it may. */
export function layerViolation(root, file, spec) {
  const from = layerOf(root, file);
  if (spec === 'electron')
    return !from || from === 'main/desktop' ? null : 'only main/desktop/ imports electron';
  if (!from || !spec.startsWith('.')) return null;
  const target = layerOf(root, resolve(dirname(file), spec));
  // Who may import a folder may import a file of it that stands apart.
  const to = target?.endsWith('.ts') ? dirname(target) : target;
  if (!to || to === from) return null;
  if (to.startsWith('shared') && !from.startsWith('shared')) return null;
  if (LAYERS[from].includes(to)) return null;
  // A file key's own folder is its layer too (the registry is of main/agents/).
  if (from.endsWith('.ts') && to === dirname(from)) return null;
  return `${from}/ may not import ${to}/ (scripts/layers.mjs)`;
}
