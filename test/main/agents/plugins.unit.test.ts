// Agent types are plugins: a made-up type ("memory", a source read from an array) plugs into the
// engine's runtime through the plugins alone, and gets every generic behaviour (connection first,
// "unavailable" answers, fix then check again, a pipeline into the default SQLite target) with no
// other code. And no file outside a type's own folder and the registry names a type.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTypes } from '../../../shared/agents';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { AgentConnectionError } from '../../../main/agents/connectionError';
import { AGENT_PLUGINS } from '../../../main/agents/registry';
import type { Row, SourceAgent } from '../../../main/agents/source';
import type { AgentPlugin, AgentRuntime, ResolvedAgent, SourceAdmin } from '../../../main/agents/spi';
import { agentsRuntime } from '../../../main/engine/agentRuntime';
import { ProblemError } from '../../../main/platform/problem';
import { sourceFiles } from '../../helpers/sources';

const shape = {
  ref: { schema: 'mem', table: 'ITEMS' },
  columns: [
    { name: 'ID', sourceType: 'integer', nullable: false },
    { name: 'NAME', sourceType: 'text', nullable: true },
  ],
  key: ['ID'],
};
const entity: Entity = {
  source: shape.ref,
  target: { table: 'items' },
  rowIdentification: { kind: 'primaryKey' },
} as Entity;

/** The made-up type's state: its rows, whether it lets anyone in, and whether its one fix was made. */
const world = { rows: [] as Row[], reachable: true, fixed: false, checkpoint: {} as Record<string, string> };

function memorySource(): SourceAgent {
  return {
    check: async () => [],
    describe: async () => [shape],
    countRows: async () => world.rows.length,
    snapshotStart: async () => '1',
    readRows: async () => [],
    readChunk: async () => ({ rows: world.rows, next: null }),
    // A table the target has no checkpoint for is to be snapshotted first.
    readChanges: async (_tables, checkpoint) => ({
      changes: [],
      checkpoint: { 'mem.ITEMS': '1' },
      resnapshot: checkpoint['mem.ITEMS'] ? [] : [{ table: 'mem.ITEMS', reason: 'first run' }],
    }),
    loadCheckpoint: async () => world.checkpoint,
    saveCheckpoint: async (c) => void (world.checkpoint = c),
    backlog: async () => ({ rowsToRead: 0, versionsBehind: 0, perTable: [] }),
    close: async () => undefined,
  };
}

const signOn = () => {
  if (!world.reachable)
    throw new AgentConnectionError('The array is out of reach.', 'Bring it back.', 'unreachable');
};

const memoryPlugin: AgentPlugin = {
  definition: { ...agentTypes.sqlite, type: 'memory', title: 'Memory', roles: ['source'] },
  endpoint: () => undefined,
  testConnection: async () => ({ id: 'connection', status: 'passed', message: 'Opened.', remedy: null }),
  source: {
    names: { fold: (schema, table) => `${schema}\u0000${table}`, reserved: () => null },
    origin: () => ({ connector: 'sqlserver', server: 'memory', database: 'memory' }),
    openReader: async () => {
      signOn();
      return memorySource();
    },
    openAdmin: async (): Promise<SourceAdmin> => {
      signOn();
      return {
        check: async (): Promise<CheckResult[]> => [
          world.fixed
            ? { id: 'tidy', status: 'passed', message: 'Tidy.', remedy: null }
            : { id: 'tidy', status: 'failed', message: 'Untidy.', remedy: 'Tidy it.', fix: 'TIDY' },
        ],
        tables: async () => [],
        catalog: async () => [],
        loadCheckpoint: async () => world.checkpoint,
        backlog: async () => ({ rowsToRead: 7, minutesLeft: null, versionsBehind: 1 }),
        applyFix: async (fix) => {
          if (fix === 'TIDY') world.fixed = true;
        },
        close: async () => undefined,
      };
    },
    connected: () => 'Opened the array.',
    fixes: { checkIds: ['tidy'], described: 'tidy' },
    refusal: () => undefined,
  },
};

const agent: ResolvedAgent = {
  pipelineId: 'p',
  id: 'mem',
  type: 'memory',
  role: 'source',
  hostCredentials: {},
  configuration: {},
};

let runtime: AgentRuntime | undefined;
afterEach(async () => {
  await runtime?.close?.();
  Object.assign(world, { rows: [], reachable: true, fixed: false, checkpoint: {} });
});

describe('a made-up agent type, given to the runtime as a plugin', () => {
  it('is checked connection first, and told apart when it cannot be reached', async () => {
    runtime = agentsRuntime({ plugins: { ...AGENT_PLUGINS, memory: memoryPlugin } });
    expect(await runtime.check(agent, [entity])).toEqual([
      { id: 'connection', status: 'passed', message: 'Opened the array.', remedy: null },
      { id: 'tidy', status: 'failed', message: 'Untidy.', remedy: 'Tidy it.', fix: 'TIDY' },
    ]);
    world.reachable = false;
    expect(await runtime.check(agent, [entity])).toEqual([
      { id: 'connection', status: 'failed', message: 'The array is out of reach.', remedy: 'Bring it back.' },
    ]);
    expect(await runtime.backlog(agent, [entity])).toEqual({
      unavailable: 'The array is out of reach. Bring it back.',
    });
  });

  it('answers its backlog only once a checkpoint exists, and applies its fix then checks again', async () => {
    runtime = agentsRuntime({ plugins: { ...AGENT_PLUGINS, memory: memoryPlugin } });
    expect(await runtime.backlog(agent, [entity])).toEqual({
      unavailable: 'No checkpoint at the source yet: the agent has not finished a snapshot.',
    });
    world.checkpoint = { 'mem.ITEMS': '1' };
    expect(await runtime.backlog(agent, [entity])).toEqual({
      rowsToRead: 7,
      minutesLeft: null,
      versionsBehind: 1,
    });
    await expect(runtime.applyFix(agent, [entity], 'other')).rejects.toThrow(ProblemError);
    const fixed = await runtime.applyFix(agent, [entity], 'tidy');
    expect(fixed.applied).toBe('TIDY');
    expect(fixed.checks.find((c) => c.id === 'tidy')?.status).toBe('passed');
  });

  it('runs a pipeline into the default SQLite target, through the runner', async () => {
    runtime = agentsRuntime({ plugins: { ...AGENT_PLUGINS, memory: memoryPlugin } });
    world.rows = [
      { ID: 1, NAME: 'one' },
      { ID: 2, NAME: 'two' },
    ];
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-plugin-'));
    const events: string[] = [];
    const snapshotDone = new Promise<void>((resolve, reject) => {
      runtime
        ?.start(agent, {
          entities: [entity],
          target: undefined,
          dataDir,
          peerPipelines: [],
          keepExceptions: () => ({}),
          verified: () => undefined,
          report: (kind) => {
            events.push(kind);
            if (kind === 'snapshot-done') resolve();
          },
          backlog: () => undefined,
          failed: (reason) => {
            events.push(`failed: ${reason}`);
          },
        })
        .catch(reject);
    });
    await snapshotDone;
    await runtime.stop(agent);
    const db = new Database(join(dataDir, 'replicas', 'p.sqlite'), { readonly: true });
    expect(db.prepare('SELECT ID, NAME FROM items ORDER BY ID').all()).toEqual(world.rows);
    db.close();
    expect(events).not.toContain(expect.stringMatching(/^failed/));
  });

  it('is unknown to a runtime without its plugin', async () => {
    runtime = agentsRuntime();
    await expect(runtime.check(agent, [entity])).rejects.toThrow('No plugin for agent type "memory"');
  });
});

describe('where agent types are named', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  // Each shipped type's own folder; the registry and the sandbox's sample pipelines name them too.
  const own: Record<string, string> = {
    'change-tracking': 'main/agents/changeTracking/',
    journal: 'main/agents/journal/',
    sqlite: 'main/agents/sqlite/',
    postgresql: 'main/agents/postgresql/',
  };
  // shared/agents/ declares the types (fields, roles, and how the app presents each).
  const alsoAllowed = ['main/agents/registry.ts', 'main/sandbox/', 'shared/agents/'];

  it('names each type only in its own folder, its declaration, the registry and the sandbox', () => {
    const outside: string[] = [];
    const files = ['main', 'renderer', 'shared'].flatMap((folder) => sourceFiles(join(root, folder)));
    for (const file of files) {
      const path = relative(root, file);
      if (alsoAllowed.some((a) => path.startsWith(a))) continue;
      const text = readFileSync(file, 'utf8');
      for (const [type, folder] of Object.entries(own))
        if (!path.startsWith(folder) && new RegExp(`['"\`]${type}['"\`]`).test(text))
          outside.push(`${path}: ${type}`);
    }
    expect(outside).toEqual([]);
  });

  it('has a plugin for every type shared/agents declares, with the same roles', () => {
    for (const [type, plugin] of Object.entries(AGENT_PLUGINS)) {
      const roles = agentTypes[type as keyof typeof agentTypes].roles;
      expect(plugin.definition.type).toBe(type);
      expect(roles.includes('source')).toBe(plugin.source !== undefined);
      expect(roles.includes('target')).toBe(plugin.target !== undefined);
    }
  });
});
