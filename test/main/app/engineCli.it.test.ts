// `npm run engine` as a user runs it: its usage, its refusals without a stack trace, and with
// --sandbox-ibmi a running journal pipeline that survives a restart of the engine (the simulated IBM i
// exists before the engine resumes its pipelines).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../../main/client/engineClient';
import { SEED_AGENT } from '../../../simulators/ibmi/seed';
import { until } from '../../helpers/until';

const CLI = fileURLToPath(new URL('../../../main/app/engineCli.ts', import.meta.url));
const run = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8' });

let children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
});

/** Starts the engine CLI and answers once it listens: its URL, and the token when it printed one. */
function start(dataDir: string): Promise<{ child: ChildProcess; url: string; token?: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--port', '0', '--data', dataDir, '--sandbox-ibmi'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Engine listening on (http:\/\/\S+) /.exec(out)?.[1];
      if (url && out.includes('Simulated IBM i'))
        resolve({ child, url, token: /admin token of this engine\.\n\n {2}(\S+)/.exec(out)?.[1] });
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`the engine exited (${code}):\n${out}`)));
  });
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('npm run engine', () => {
  it('prints its usage for --help, and refuses an unknown option in one line with the usage', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run engine -- \[options\]/);
    const wrong = run(['--bogus']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^Unknown option '--bogus'\n\nUsage: /);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    expect(run(['--port', '99999']).stderr).toMatch(/^--port must be a whole number from 0 to 65535/);
  });

  it('speaks HTTPS only when told to listen beyond loopback, printing its certificate fingerprint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-engine-cli-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--host', '0.0.0.0', '--port', '0', '--data', dataDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Engine listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the engine exited (${code}):\n${out}`)));
    });
    expect(out).toMatch(/Engine listening on https:\/\/0\.0\.0\.0:\d+ /);
    expect(out).toMatch(/SHA-256 fingerprint is\n {2}([0-9A-F]{2}:){31}[0-9A-F]{2}\n/);
    expect(out).not.toContain('http://');
    expect(run(['--host', '0.0.0.0', '--tls-cert', '/nowhere.pem']).stderr).toMatch(
      /^--tls-cert and --tls-key go together/,
    );
    await stopped(child);
  });

  it('resumes a running sandbox journal pipeline after a restart', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-engine-cli-'));
    const first = await start(dataDir);
    const token = first.token ?? '';
    let client: EngineClient = createEngineClient({ baseUrl: first.url, token });
    const ids = { pipelineId: 'shop', agentId: 'as400' };
    await client.createPipeline({}, { id: ids.pipelineId, name: 'shop' });
    await client.createAgent(
      { pipelineId: ids.pipelineId },
      { id: ids.agentId, type: 'journal', role: 'source' },
    );
    await client.putCredentials(ids, {
      hostCredentials: {
        connectionName: 'Sandbox',
        host: 'sandbox-ibmi',
        databaseName: '*SYSBAS',
        username: SEED_AGENT.user,
        password: SEED_AGENT.password,
      },
    });
    await client.putSpecific(ids, { configuration: {} });
    await client.putEntities(
      { pipelineId: ids.pipelineId },
      { entities: [{ source: { schema: 'SHOP', table: 'CUSTOMER' }, target: { table: 'customer' } }] },
    );
    await client.startAgent(ids);
    const snapshotted = async (c: EngineClient) =>
      (await c.listEvents({ pipelineId: ids.pipelineId })).some((e) => e.kind === 'snapshot-done');
    await until('the first snapshot', () => snapshotted(client), 30_000);
    await stopped(first.child);

    const second = await start(dataDir);
    client = createEngineClient({ baseUrl: second.url, token });
    await until(
      'the pipeline resumed after the restart',
      async () =>
        (await client.listEvents({ pipelineId: ids.pipelineId })).some(
          (e) => e.kind === 'resumed-after-restart',
        ),
      30_000,
    );
    // The source answers through this start's simulated IBM i: the pipeline did not fail on resuming.
    await until(
      'the backlog read after the restart',
      async () => (await client.getBacklog(ids)).current !== null,
      30_000,
    );
    const events = async () => (await client.listEvents({ pipelineId: ids.pipelineId })).map((e) => e.kind);
    const agent = await client.getAgent(ids);
    expect(agent.state).toBe('running');
    expect(await events()).not.toContain('failed');
    await stopped(second.child);
  });
});
