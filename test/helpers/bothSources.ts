// Both simulators for a suite that runs a scenario against each source: a simulated SQL Server with
// Change Tracking and snapshot isolation on, a simulated IBM i with its sample libraries, a PostgreSQL
// client, and a contract harness per source kind (closed after the suite). Hooks register on the call.
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Row, SourceAgent, TableRef } from '../../main/agents/source';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_ADMIN } from '../../simulators/ibmi/seed';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import type { SourceHarness } from '../main/agents/contract/sourceAgent';
import { changeTrackingHarness, sandboxCredentials } from './changeTracking';
import { journalHarness, sandboxIbmiCredentials } from './journal';
import { postgresClient } from './replica';
import { DBA, sandboxPool } from './sandbox';

export interface BothSources {
  mssql(): SandboxSqlServer;
  ibmi(): SandboxIbmi;
  client(): pg.Client;
  /** A harness on the source of that kind, its tables in the suite's own schema and pipeline. */
  harness(kind: 'change-tracking' | 'journal'): Promise<SourceHarness>;
}

export function bothSources(names: { pipelineId: string; ibmiSchema: string }): BothSources {
  let mssql: SandboxSqlServer | undefined;
  let ibmi: SandboxIbmi | undefined;
  let client: pg.Client | undefined;
  const harnesses: SourceHarness[] = [];
  beforeAll(async () => {
    mssql = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
    const pool = await sandboxPool(mssql, { max: 1 });
    await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
      ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;`);
    await pool.close();
    ibmi = await startSandboxIbmi({ seed: true });
    client = await postgresClient();
  });
  afterAll(async () => {
    for (const h of harnesses) await h.close();
    await client?.end();
    await ibmi?.close();
    await mssql?.close();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('The simulators start in beforeAll.');
    return v;
  };
  return {
    mssql: () => ready(mssql),
    ibmi: () => ready(ibmi),
    client: () => ready(client),
    harness: async (kind) => {
      let h: SourceHarness;
      if (kind === 'change-tracking')
        h = await changeTrackingHarness(sandboxCredentials(ready(mssql)), { pipelineId: names.pipelineId });
      else {
        const sandbox = ready(ibmi);
        const journal = journalHarness(
          await sandbox.connect({ ...SEED_ADMIN }),
          sandboxIbmiCredentials(sandbox),
          {
            schema: names.ibmiSchema,
            pipelineId: names.pipelineId,
          },
        );
        await journal.prepare();
        h = journal;
      }
      harnesses.push(h);
      return h;
    },
  };
}

/** The object with one method replaced: every other property answers as the object's own. */
export function withMethod<T extends object>(object: T, method: keyof T & string, replacement: unknown): T {
  return new Proxy(object, {
    get(target, property) {
      if (property === method) return replacement;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/** The agent, with `readChunk` wrapped: work before each chunk is read, and after it is read. */
export function interceptChunks(
  agent: SourceAgent,
  around: { before?(n: number): Promise<void>; after?(n: number, rows: Row[]): Promise<void> },
): SourceAgent {
  let n = 0;
  return withMethod(agent, 'readChunk', async (table: TableRef, cursor: string | null, limit: number) => {
    const at = n++;
    await around.before?.(at);
    const chunk = await agent.readChunk(table, cursor, limit);
    await around.after?.(at, chunk.rows);
    return chunk;
  });
}
