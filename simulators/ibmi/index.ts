// The simulated IBM i, in process: what the journal agent, the tests and sandbox mode connect to
// through the IbmiConnection interface. A host name registers it, so credentials can point at it.
import type { IbmiConnection } from '../../lib/ibmi/connection';
import { registerInProcessIbmi } from '../../lib/ibmi/inProcess';
import { seedIbmi, SEED_USERS } from './seed';
import { SimulatedIbmiConnection, type SimulatedConnectOptions } from './session';
import { SimulatedIbmi, type SimulatedIbmiOptions } from './system/simulatedIbmi';
import { putSource } from './cl/source';

export { SimulatedIbmi, SimulatedIbmiConnection };
export type { SimulatedConnectOptions };

export interface SandboxIbmi {
  /** The host name credentials use to reach this system (`sandbox-ibmi-<n>`). */
  host: string;
  system: SimulatedIbmi;
  connect(options: SimulatedConnectOptions): Promise<IbmiConnection>;
  /** DDS into a source member, as an editor would put it. */
  putSource(library: string, file: string, member: string, text: string): void;
  /**
   * A restart of the host servers: every job ends (CWBCO1047 at its next statement, its uncommitted
   * work rolled back), sign-ons are refused with CWBCO1049 for `downMs`, then accepted again; the
   * files and journals are as committed. Resolves once sign-ons work again.
   */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

const running = new Map<string, SandboxIbmi>();
const unregister = new Map<string, () => void>();
let count = 0;

/** The running simulated IBM i a host name names, if any. */
export const sandboxIbmiAt = (host: string): SandboxIbmi | undefined => running.get(host.toLowerCase());

export async function startSandboxIbmi(
  options: SimulatedIbmiOptions & { seed?: boolean; host?: string } = {},
): Promise<SandboxIbmi> {
  const system = new SimulatedIbmi({
    ...options,
    users: [...(options.seed ? SEED_USERS : []), ...(options.users ?? [])],
  });
  const host = (options.host ?? `sandbox-ibmi-${++count}`).toLowerCase();
  const sandbox: SandboxIbmi = {
    host,
    system,
    // A refused sign-on rejects, as a driver's connect does.
    connect: (o) => new Promise((resolve) => resolve(new SimulatedIbmiConnection(system, o))),
    putSource: (library, file, member, text) => putSource(system, library, file, member, text),
    restart: async (downMs = 0) => {
      system.endAllJobs();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      system.up();
    },
    close: () => {
      running.delete(host);
      unregister.get(host)?.();
      unregister.delete(host);
      system.close();
      return Promise.resolve();
    },
  };
  if (options.seed) await seedIbmi(sandbox);
  running.set(host, sandbox);
  unregister.set(host, registerInProcessIbmi(host, sandbox));
  return sandbox;
}
