// The sandbox's servers as a DBA would connect to them with their own tools (address, port, the sample
// logins and what each may do), and a workload that keeps changing rows on both sample sources, so a
// sandbox pipeline's gauge, charts and events move.
import { useEffect } from 'react';
import { useStore } from '../store';
import { loadSandboxDetails, setWorkload } from '../store/sandbox';
import { count } from '../../shared/format';

const RATES = [0, 1, 10, 50, 200];

function Logins({
  label,
  logins,
}: {
  label: string;
  logins: { user: string; password: string; role: string }[];
}) {
  return (
    <table className="sample-logins" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">User</th>
          <th scope="col">Password</th>
          <th scope="col">What it may do</th>
        </tr>
      </thead>
      <tbody>
        {logins.map((l) => (
          <tr key={l.user}>
            <th scope="row">
              <code>{l.user}</code>
            </th>
            <td>
              <code>{l.password}</code>
            </td>
            <td>{l.role}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SandboxPanel() {
  const sandbox = useStore((s) => s.sandbox);
  const error = useStore((s) => s.sandboxError);
  // Read once the screen shows (after a Try the sandbox, the store already has it); the workload's
  // count is read again every few seconds while it runs.
  const rate = sandbox?.workload.changesPerSecond ?? 0;
  useEffect(() => {
    void loadSandboxDetails();
    if (rate === 0) return;
    const timer = setInterval(() => void loadSandboxDetails(), 3000);
    return () => clearInterval(timer);
  }, [rate]);
  if (!sandbox) return null;
  const { sqlServer, ibmi, workload } = sandbox;
  return (
    <details className="sandbox-panel" open>
      <summary>Sandbox: the simulated servers and their workload</summary>
      <p className="muted">
        Sample servers with sample passwords, for trying the app; they run inside this app and end with it.
      </p>
      <div className="sandbox-grid">
        <section aria-labelledby="sandbox-sql-title">
          <h4 id="sandbox-sql-title">SQL Server</h4>
          <p>
            <code>
              {sqlServer.host}:{sqlServer.port}
            </code>
            , database <code>{sqlServer.database}</code> (encryption off; sqlcmd, SSMS or tsql reach it)
          </p>
          <Logins label="SQL Server logins" logins={sqlServer.logins} />
        </section>
        <section aria-labelledby="sandbox-ibmi-title">
          <h4 id="sandbox-ibmi-title">IBM i</h4>
          <p>
            Host <code>{ibmi.host}</code> (inside this app only), database <code>{ibmi.database}</code>,
            libraries {ibmi.libraries.join(' and ')}
          </p>
          <Logins label="IBM i user profiles" logins={ibmi.users} />
        </section>
      </div>
      <div className="row-actions">
        <label htmlFor="sandbox-workload">Workload</label>
        <select
          id="sandbox-workload"
          value={RATES.includes(workload.changesPerSecond) ? workload.changesPerSecond : 0}
          onChange={(e) => void setWorkload(Number(e.target.value))}
        >
          {RATES.map((r) => (
            <option key={r} value={r}>
              {r === 0 ? 'off' : `${r} changes/s on each source pair`}
            </option>
          ))}
        </select>
        <span aria-live="polite" className="muted" aria-label="Workload">
          {workload.changesPerSecond === 0
            ? `Off. ${count(workload.written)} changes written so far.`
            : `Inserting, updating and deleting order lines (SQL Server) and customers (IBM i): ${count(workload.written)} changes written.`}
        </span>
      </div>
      {(error ?? workload.lastError) && (
        <p role="alert" className="problem">
          {error ?? `The workload stopped writing: ${workload.lastError}`}
        </p>
      )}
    </details>
  );
}
