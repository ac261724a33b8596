// Sandbox mode as the app asks for it: the simulated SQL Server (sample Sales database) and the
// simulated IBM i (sample SHOP and LEGACY libraries), each started once, with the logins the sample
// pipelines use, and those pipelines. The app loads this module on demand (a chunk of its own in the bundle).
import type { z } from 'zod';
import type { AgentType } from '../../shared/agents';
import type { entitiesBodySchema } from '../../shared/controlApi';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_ADMIN, SEED_AGENT, SEED_USERS } from '../../simulators/ibmi/seed';
import { createWorkload } from './workload';
import type { SandboxDetails, WorkloadStatus } from '../../shared/sandbox';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { SEED_AGENT_LOGIN, SEED_DATABASE, SEED_LOGINS } from '../../simulators/mssql/seed';

/** A sample pipeline reading a simulator into the default SQLite target. */
export interface SandboxPipeline {
  ids: { pipelineId: string; agentId: string };
  name: string;
  type: AgentType;
  hostCredentials: Record<string, unknown>;
  configuration: Record<string, unknown>;
  entities: z.input<typeof entitiesBodySchema>['entities'];
}

export interface SandboxSystems {
  sqlServer: { port: number; pipeline: SandboxPipeline };
  ibmi: { host: string; pipeline: SandboxPipeline };
}

// The journal agent as CDCAGENT: SQL tables by key, a DDS file by a logical key.
const ibmiPipeline = (host: string): SandboxPipeline => ({
  ids: { pipelineId: 'sandbox-ibmi', agentId: 'as400' },
  name: 'Sandbox: IBM i SHOP and LEGACY to SQLite',
  type: 'journal',
  hostCredentials: {
    connectionName: 'Sandbox IBM i',
    host,
    databaseName: '*SYSBAS',
    username: SEED_AGENT.user,
    password: SEED_AGENT.password,
    enableDdsDiscovery: true,
  },
  configuration: { dateFormat: null, timeFormat: null },
  entities: [
    { source: { schema: 'SHOP', table: 'CUSTOMER' }, target: { table: 'customer' } },
    { source: { schema: 'SHOP', table: 'ORDERS' }, target: { table: 'orders' } },
    {
      source: { schema: 'LEGACY', table: 'ITEMS' },
      target: { table: 'items' },
      rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] },
    },
  ],
});

const sqlServerPipeline = (port: number): SandboxPipeline => ({
  ids: { pipelineId: 'sandbox', agentId: 'sales' },
  name: 'Sandbox: Sales to SQLite',
  type: 'change-tracking',
  hostCredentials: {
    connectionName: 'Sandbox Sales',
    host: '127.0.0.1',
    port,
    databaseName: SEED_DATABASE,
    username: SEED_AGENT_LOGIN.name,
    password: SEED_AGENT_LOGIN.password,
  },
  configuration: {},
  entities: ['Customers', 'Orders', 'OrderLines'].map((table) => ({
    source: { schema: 'dbo', table },
    target: { table: table.toLowerCase() },
  })),
});

export interface SandboxMode {
  /** Starts both simulators the first time; later calls answer the running ones. */
  start(): Promise<SandboxSystems>;
  /** How to reach the simulators (sample passwords included: they are public); null before a start. */
  details(): Promise<SandboxDetails | null>;
  /** Sets the workload's rate (0 switches it off). */
  setWorkload(changesPerSecond: number): Promise<WorkloadStatus>;
  close(): Promise<void>;
}

/** What each sample login may do, in words for the sandbox panel. */
const SQL_LOGIN_ROLES: Record<string, string> = {
  sa: 'administrator (sysadmin)',
  [SEED_AGENT_LOGIN.name]: "what the change-tracking agent needs (the sample pipeline's login)",
  cdc_limited: 'no VIEW CHANGE TRACKING, no CREATE SCHEMA: checks fail with it',
};
const IBMI_USER_ROLES: Record<string, string> = {
  [SEED_AGENT.user]: "the profile source-agents.md suggests (the sample pipeline's)",
  CDCREAD: 'reads SHOP only: checks fail with it',
  QSECOFR: 'security officer (*ALLOBJ)',
};

export function sandboxMode(): SandboxMode {
  let sqlServer: Promise<SandboxSqlServer> | undefined;
  let ibmi: Promise<SandboxIbmi> | undefined;
  const workload = createWorkload(async () => {
    if (!sqlServer || !ibmi) throw new Error('Start the sandbox first.');
    const [s, i] = await Promise.all([sqlServer, ibmi]);
    return { sqlServer: s, ibmi: i };
  });
  // A failed start is forgotten, so that the next click tries again.
  const once = <T>(started: Promise<T>, forget: () => void) =>
    started.catch((error: unknown) => {
      forget();
      throw error;
    });
  return {
    start: async () => {
      sqlServer ??= once(startSandboxSqlServer({ seed: true }), () => (sqlServer = undefined));
      ibmi ??= once(startSandboxIbmi({ seed: true }), () => (ibmi = undefined));
      const [s, i] = await Promise.all([sqlServer, ibmi]);
      return {
        sqlServer: { port: s.port, pipeline: sqlServerPipeline(s.port) },
        ibmi: { host: i.host, pipeline: ibmiPipeline(i.host) },
      };
    },
    details: async () => {
      if (!sqlServer || !ibmi) return null;
      const [s, i] = await Promise.all([sqlServer, ibmi]);
      return {
        sqlServer: {
          host: s.host,
          port: s.port,
          database: SEED_DATABASE,
          logins: SEED_LOGINS.map((l) => ({
            user: l.name,
            password: l.password,
            role: SQL_LOGIN_ROLES[l.name] ?? '',
          })),
        },
        ibmi: {
          host: i.host,
          database: '*SYSBAS',
          libraries: ['SHOP', 'LEGACY'],
          users: [
            ...SEED_USERS.map((u) => ({ user: u.name, password: u.password })),
            { user: SEED_ADMIN.user, password: SEED_ADMIN.password },
          ].map((u) => ({ ...u, role: IBMI_USER_ROLES[u.user] ?? '' })),
        },
        workload: workload.status(),
      };
    },
    setWorkload: (rate) => workload.set(rate),
    close: async () => {
      await workload.close();
      await sqlServer?.then((s) => s.close()).catch(() => undefined);
      await ibmi?.then((s) => s.close()).catch(() => undefined);
    },
  };
}
