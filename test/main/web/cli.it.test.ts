// `npm run web` as a user runs it: the local engine's port follows the same setting as the desktop
// app's (CDC_ADMIN_ENGINE_PORT), unless --engine-port says otherwise, and a bad value is refused by name.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
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

it('keeps its log in the data folder, and the diagnostics bundle carries it', async () => {
  const data = mkdtempSync(join(tmpdir(), 'cdc-web-cli-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--port', '0', '--engine-port', String(await freePort()), '--data', data],
    { stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
  );
  children.push(child);
  let out = '';
  const openUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /http:\/\/127\.0\.0\.1:\d+\/#code=\S+/.exec(out)?.[0];
      if (url && /Local engine/.test(out)) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`web mode exited with ${code}: ${out}`)));
  });
  const base = openUrl.split('/#')[0] ?? '';
  const code = openUrl.split('#code=')[1] ?? '';
  const session = (await (
    await fetch(`${base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    })
  ).json()) as { value: { token: string } };
  const answer = (await (
    await fetch(`${base}/api/createDiagnostics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.value.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    })
  ).json()) as { ok: boolean; value: { base64: string } };
  expect(answer.ok).toBe(true);
  const files = unzipSync(Buffer.from(answer.value.base64, 'base64'));
  const logs = Object.keys(files).filter((name) => /(^|\/)logs\/cdc-admin\.log$/.test(name));
  expect(logs).toHaveLength(1);
  expect(strFromU8(files[logs[0] ?? ''] ?? new Uint8Array())).toContain('"event":"web.listening"');
  expect(readFileSync(join(data, 'logs', 'cdc-admin.log'), 'utf8')).toContain('"event":"web.listening"');
});
