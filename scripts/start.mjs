// `npm start`: makes sure Electron's binary is there (Electron 45's package no longer fetches it at
// install; its `install-electron` does), fetching it where the network allows, then starts the app.
// Where it cannot be fetched, one plain line says so and points to web mode.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));

/** The binary's path, as node_modules/electron names it in path.txt, when it is really there. */
function binary() {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const path = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(path) ? path : undefined;
}

let electron = binary();
if (!electron) {
  process.stdout.write("Fetching Electron's binary (once)…\n");
  const fetched = spawnSync(process.execPath, [join(electronDir, 'install.js')], { encoding: 'utf8' });
  electron = fetched.status === 0 ? binary() : undefined;
  if (!electron) {
    const why = `${fetched.stderr ?? ''}`
      .split('\n')
      .find((line) => /error|ENOTFOUND|ECONN|EAI_AGAIN|timed out/i.test(line));
    process.stderr.write(
      `Electron's binary could not be fetched${why ? ` (${why.trim().slice(0, 160)})` : ''}: ` +
        'use the app in a browser instead with "npm run web", or run "npx install-electron" where the network allows.\n',
    );
    process.exit(1);
  }
}

const app = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal));
app.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
