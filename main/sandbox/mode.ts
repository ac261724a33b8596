// Sandbox mode as the app asks for it: the simulated SQL Server (sample Sales database) and the
// simulated IBM i (sample SHOP and LEGACY libraries), each started once, with the logins the sample
// pipelines use. The app loads this module on demand (a chunk of its own in the bundle).
import { startSandboxIbmi, type SandboxIbmi } from './ibmi';
import { SEED_AGENT } from './ibmi/seed';
import { startSandboxSqlServer, type SandboxSqlServer } from './mssql';
import { SEED_AGENT_LOGIN, SEED_DATABASE } from './mssql/seed';

export interface SandboxSystems {
  sqlServer: { port: number; database: string; login: { name: string; password: string } };
  ibmi: { host: string; user: string; password: string };
}

export interface SandboxMode {
  /** Starts both simulators the first time; later calls answer the running ones. */
  start(): Promise<SandboxSystems>;
  close(): Promise<void>;
}

export function sandboxMode(): SandboxMode {
  let sqlServer: Promise<SandboxSqlServer> | undefined;
  let ibmi: Promise<SandboxIbmi> | undefined;
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
        sqlServer: {
          port: s.port,
          database: SEED_DATABASE,
          login: { name: SEED_AGENT_LOGIN.name, password: SEED_AGENT_LOGIN.password },
        },
        ibmi: { host: i.host, ...SEED_AGENT },
      };
    },
    close: async () => {
      await sqlServer?.then((s) => s.close()).catch(() => undefined);
      await ibmi?.then((s) => s.close()).catch(() => undefined);
    },
  };
}
