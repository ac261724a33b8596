// `npm run web` as a user runs it: the local engine's port follows the same setting as the desktop
// app's (CDC_ADMIN_ENGINE_PORT), unless --engine-port says otherwise, and a bad value is refused by name.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../../helpers/ports';

const CLI = fileURLToPath(new URL('../../../main/web/cli.ts', import.meta.url));
let children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
});

/** Starts web mode and answers the local engine's line once printed. */
function engineLine(env: Record<string, string>, args: string[] = []): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), 'cdc-web-cli-'));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--data', data, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = /Local engine[^\n]*/.exec(out)?.[0];
      if (line) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`web mode exited with ${code}: ${out}`)));
  });
}

it('runs the local engine on CDC_ADMIN_ENGINE_PORT, as the desktop app does', async () => {
  const port = await freePort();
  expect(await engineLine({ CDC_ADMIN_ENGINE_PORT: String(port) })).toContain(`http://127.0.0.1:${port}`);
});

it('lets --engine-port win over the variable', async () => {
  const [env, flag] = [await freePort(), await freePort()];
  expect(await engineLine({ CDC_ADMIN_ENGINE_PORT: String(env) }, ['--engine-port', String(flag)])).toContain(
    `http://127.0.0.1:${flag}`,
  );
});

it('refuses a variable that is not a port, naming it', () => {
  const data = mkdtempSync(join(tmpdir(), 'cdc-web-cli-'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--data', data], {
    encoding: 'utf8',
    env: { ...process.env, CDC_ADMIN_ENGINE_PORT: 'http' },
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('CDC_ADMIN_ENGINE_PORT');
  expect(r.stderr).toContain('got "http"');
});
