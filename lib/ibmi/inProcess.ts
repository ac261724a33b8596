// IBM i systems that run inside this process (the sandbox's simulated IBM i) and are reached by a host
// name instead of the ODBC driver. The simulator registers itself here; production code never imports
// it, so the sandbox stays out of the app until the user asks for it.
import type { IbmiConnection } from './connection';

export interface InProcessIbmi {
  /** Signs on; rejects as a driver's connect does when the sign-on is refused. */
  connect(options: { user: string; password: string }): Promise<IbmiConnection>;
}

const systems = new Map<string, InProcessIbmi>();

/** Makes `host` name this system until the returned function is called. */
export function registerInProcessIbmi(host: string, system: InProcessIbmi): () => void {
  const key = host.toLowerCase();
  systems.set(key, system);
  return () => {
    if (systems.get(key) === system) systems.delete(key);
  };
}

/** The in-process system a host name names, if any. */
export const inProcessIbmiAt = (host: string): InProcessIbmi | undefined => systems.get(host.toLowerCase());
