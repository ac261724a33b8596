// Diagnostics: make a bundle for a support ticket, or open one and read it offline.
import { dateTime } from '../../shared/format';
import { useEffect, useState } from 'react';
import { CheckList } from '../ui/CheckList';
import { EngineSelect } from '../ui/EngineSelect';
import { loadEngines } from '../store/engines';
import { useStore } from '../store';
import { openDiagnostics, saveDiagnostics } from '../store/diagnostics';
import type { DiagnosticsView } from '../../shared/diagnostics';

export function DiagnosticsScreen() {
  const { view, openedName, error, busy, saved } = useStore((s) => s.diagnostics);
  const [profileId, setProfileId] = useState('local');
  useEffect(() => void loadEngines(), []);
  return (
    <section aria-labelledby="diagnostics-title" className="diagnostics">
      <h2 id="diagnostics-title">Diagnostics</h2>
      <p className="muted">
        A bundle holds versions, the configuration with secrets removed, the last check results, backlog
        history, recent events and the app's logs. Passwords and tokens are never in it.
      </p>
      <EngineSelect id="diagnostics-engine" value={profileId} onChange={setProfileId} />
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => void saveDiagnostics(profileId)}
          disabled={busy}
        >
          Save diagnostics bundle
        </button>
        <label className="file-button">
          Open a bundle…
          <input
            type="file"
            accept=".zip,application/zip"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void openDiagnostics(file);
              e.target.value = '';
            }}
          />
        </label>
      </div>
      {saved && <p role="status">Saved {saved}.</p>}
      {error && (
        <p role="alert" className="problem">
          {error}
        </p>
      )}
      {view && <BundleView view={view} name={openedName ?? 'bundle'} />}
    </section>
  );
}

function BundleView({ view, name }: { view: DiagnosticsView; name: string }) {
  const agents = view.configuration.pipelines.flatMap((p) => p.agents);
  return (
    <article aria-label={`Bundle ${name}`} className="bundle">
      <h3>
        {name}{' '}
        <span className="muted">
          made {view.manifest.createdAt} by the {view.manifest.source}
        </span>
      </h3>
      <h4>Versions</h4>
      <dl className="versions">
        {Object.entries(view.manifest.versions).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <h4>Agents ({agents.length})</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">Pipeline</th>
            <th scope="col">Agent</th>
            <th scope="col">Type</th>
            <th scope="col">State</th>
            <th scope="col">Failure</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((a) => (
            <tr key={`${a.pipelineId}/${a.id}`}>
              <td>{a.pipelineId}</td>
              <th scope="row">{a.id}</th>
              <td>
                {a.type} ({a.role})
              </td>
              <td>{a.state}</td>
              <td>{a.failureReason ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Last checks</h4>
      {view.checks.length === 0 && <p className="muted">No checks were run.</p>}
      {view.checks.map((c) => (
        <div key={`${c.pipelineId}/${c.agentId}`}>
          <p>
            <strong>
              {c.pipelineId}/{c.agentId}
            </strong>{' '}
            <span className="muted">at {dateTime(c.checkedAt)}</span>
          </p>
          <CheckList checks={c.checks} />
        </div>
      ))}
      <h4>Recent events ({view.events.length})</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Pipeline/agent</th>
            <th scope="col">Event</th>
          </tr>
        </thead>
        <tbody>
          {view.events.slice(-100).map((e) => (
            <tr key={e.id}>
              <td>{e.at}</td>
              <td>
                {e.pipelineId}
                {e.agentId ? `/${e.agentId}` : ''}
              </td>
              <td>{e.kind}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Logs</h4>
      {view.logs.length === 0 && <p className="muted">No log files in this bundle.</p>}
      {view.logs.map((l) => (
        <details key={l.name}>
          <summary>{l.name}</summary>
          <pre>{l.text.split('\n').slice(-300).join('\n')}</pre>
        </details>
      ))}
    </article>
  );
}
