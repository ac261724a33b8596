// What the engine asks of a source agent and of the runner. The engine owns states, storage and the
// API; a runtime does the database work. Agent readers and the replication runner plug in here.
import { connect } from 'node:net';
import type { AgentType } from '../../shared/agents';
import type { CheckResult, Entity, TableState } from '../../shared/controlApi';
import { problem } from '../platform/problem';
import { inProcessIbmiAt } from './drivers/ibmi/inProcess';

export interface ResolvedAgent {
  pipelineId: string;
  id: string;
  type: AgentType;
  role: 'source' | 'target';
  /** With its secrets, for the drivers only: never logged or answered. */
  hostCredentials: Record<string, unknown>;
  configuration: Record<string, unknown>;
}

export interface StartContext {
  entities: readonly Entity[];
  /** The pipeline's target agent; none means the default SQLite file in the data folder. */
  target: ResolvedAgent | undefined;
  dataDir: string;
  /** Pipelines of this engine that write into the source's database (the other half of a two-way setup). */
  peerPipelines: string[];
  /** Keeps an event of the running pipeline in the store. */
  report(kind: string, data: object): void;
  /** Keeps a backlog point (the history of GET …/backlog). */
  backlog(point: BacklogFigure): void;
  /** The pipeline stopped on a failure that cannot heal: the reason is kept and shown. */
  failed(reason: string): void;
}

export interface BacklogFigure {
  rowsToRead: number | null;
  minutesLeft: number | null;
  /** rowsToRead at the rate the pipeline has been reading lately, when it runs. */
  measuredMinutesLeft?: number | null;
  versionsBehind: number | null;
  perTable?: { table: string; rowsToRead: number | null }[];
}

export interface AgentRuntime {
  /** Checks that need the database itself, after the engine's own checks. */
  check(agent: ResolvedAgent, entities: readonly Entity[]): Promise<CheckResult[]>;
  /** The entities' source tables as the source sees them. */
  tables(agent: ResolvedAgent, entities: readonly Entity[]): Promise<TableState[]>;
  /** The current backlog, or a reason why there is none. */
  backlog(
    agent: ResolvedAgent,
    entities: readonly Entity[],
  ): Promise<BacklogFigure | { unavailable: string }>;
  /**
   * Applies the fix a failed check offers (its `fix` statement), when this runtime may; answers the
   * statement applied (null when there was nothing to fix) and the checks afterwards.
   */
  applyFix(
    agent: ResolvedAgent,
    entities: readonly Entity[],
    checkId: string,
  ): Promise<{ applied: string | null; checks: CheckResult[] }>;
  /** Starts (or resumes) the agent's pipeline; throws a ProblemError when it cannot run here. */
  start(agent: ResolvedAgent, context: StartContext): Promise<void>;
  pause(agent: ResolvedAgent): Promise<void>;
  stop(agent: ResolvedAgent): Promise<void>;
  /** Stops whatever runs, before the engine closes. */
  close?(): Promise<void>;
}

/** IBM i host servers listen on fixed ports; the database server's is 8471 (IBM "Host server port"). */
export const IBMI_DATABASE_SERVER_PORT = 8471;

/** The server's TCP endpoint; none for a SQLite file or a simulated IBM i, which run in this process. */
export function endpointOf(agent: ResolvedAgent): { host: string; port: number } | undefined {
  const host = String(agent.hostCredentials.host);
  if (agent.type === 'sqlite' || (agent.type === 'journal' && inProcessIbmiAt(host))) return undefined;
  const port = agent.type === 'journal' ? IBMI_DATABASE_SERVER_PORT : Number(agent.hostCredentials.port);
  return { host, port };
}

/** A TCP connection to the server's port: tells "unknown host", "refused" and "no answer" apart. */
export function reachabilityCheck(host: string, port: number, timeoutMs = 3000): Promise<CheckResult> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: CheckResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () =>
      done({
        id: 'host-reachable',
        status: 'failed',
        message: `No answer from ${host}:${port} within ${timeoutMs / 1000} s.`,
        remedy: 'Check the host name, that the server runs, and that no firewall drops the port.',
      }),
    );
    socket.once('connect', () =>
      done({
        id: 'host-reachable',
        status: 'passed',
        message: `${host}:${port} accepts connections.`,
        remedy: null,
      }),
    );
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const unknown = error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN';
      done({
        id: 'host-reachable',
        status: 'failed',
        message: unknown
          ? `The host name ${host} cannot be resolved.`
          : `${host}:${port} refused the connection (${error.code ?? 'error'}).`,
        remedy: unknown
          ? 'Check the spelling of the host, or use its IP address.'
          : 'Check the port and that the database server listens on it.',
      });
    });
  });
}

/** The runtime until a reader or the runner is plugged in: nothing to check beyond the engine's checks. */
export const noRuntime = (why: string): AgentRuntime => ({
  check: async () => [],
  tables: async () => {
    throw problem.unavailable(why);
  },
  backlog: async () => ({ unavailable: why }),
  applyFix: async () => {
    throw problem.unavailable(why);
  },
  start: async () => {
    throw problem.unavailable(why);
  },
  pause: async () => {
    throw problem.unavailable(why);
  },
  stop: async () => undefined,
});
