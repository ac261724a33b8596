// Home: every pipeline of every engine the app knows, as main pushes them — state, lag, rows waiting and
// time left, changes per second, last failure — failed and lagging ones first; a pipeline's name opens
// its detail. An engine that does not answer is said at the top and never holds up the others.
import { useMemo, useState } from 'react';
import { count, duration, dateTime, pendingAction, timeOfDay } from '../../shared/format';
import { freshTo } from '../../shared/freshnessWords';
import { alertSettingsSchema, CONNECTION_WORDS, type AlertSettings } from '../../shared/push';
import type { OverviewAgent } from '../../shared/liveFeed';
import { showScreen, useStore } from '../store';
import { openPipeline, trySandbox } from '../store/pipelinePage';
import { AlertSettingsForm } from './AlertSettingsForm';
import { homeAgentOf, pipelineRoute, shortened } from '../../shared/pipelineWords';
import { BacklogOverview } from './BacklogOverview';
import type { HomeRow } from './homeRow';

/** Until the user's settings are read: the same defaults main applies. */
const DEFAULT_SETTINGS = alertSettingsSchema.parse({});

/** Failed first, then tables suspended or over a threshold, then running, paused, and the rest. */
function rankOf(
  agent: OverviewAgent,
  settings: AlertSettings | undefined,
): { rank: number; why: string | null } {
  const { status } = agent;
  if (status.state === 'failed') return { rank: 0, why: 'failed' };
  if ((status.warnings ?? []).length > 0) return { rank: 1, why: 'at risk of losing changes' };
  if (status.settingsPendingSince && status.pendingSignOn?.outcome === 'failed')
    return { rank: 1, why: null };
  const suspended = status.tablesSuspended?.length ?? 0;
  if (suspended > 0) return { rank: 1, why: `${suspendedText(status)}` };
  const { lagSeconds: lagLimit, backlogRows: backlogLimit } = settings ?? DEFAULT_SETTINGS;
  if (lagLimit !== null && (status.lagSeconds ?? 0) >= lagLimit) return { rank: 1, why: 'lagging' };
  if (backlogLimit !== null && (status.backlogRows ?? 0) >= backlogLimit)
    return { rank: 1, why: 'backlog over threshold' };
  const rest: Record<string, number> = { running: 2, paused: 3 };
  return { rank: rest[status.state] ?? 4, why: null };
}

/** "2 of 850 tables suspended". */
const suspendedText = (s: OverviewAgent['status']) =>
  `${count(s.tablesSuspended?.length ?? 0)}${s.tableCount === undefined ? '' : ` of ${count(s.tableCount)}`} tables suspended`;

/** The Tables cell: how many, how many suspended, rows kept aside. */
function tablesText(s: OverviewAgent['status']): string {
  if (s.tableCount === undefined) return '–';
  const parts = [
    (s.tablesSuspended?.length ?? 0) > 0 ? suspendedText(s) : count(s.tableCount),
    (s.exceptions ?? 0) > 0
      ? `${count(s.exceptions ?? 0)} ${s.exceptions === 1 ? 'row' : 'rows'} kept aside`
      : null,
  ];
  return parts.filter(Boolean).join(', ');
}

/**
 * A failure stays on Home until the pipeline runs again (running or paused, it was started since; or
 * a batch applied after it): after that it is history, on the pipeline's timeline, not Home's.
 */
function failureStillShown(s: OverviewAgent['status']): boolean {
  if (s.state === 'failed') return true;
  if (s.state === 'running' || s.state === 'paused') return false;
  return !(s.lastFailure && s.lastBatchAt && s.lastBatchAt > s.lastFailure.at);
}

export function HomeScreen() {
  const engines = useStore((s) => s.fleet.engines);
  const channel = useStore((s) => s.fleet.channel);
  const settings = useStore((s) => s.alertSettings);
  const [filter, setFilter] = useState('');
  const rows = useMemo(() => {
    const all: HomeRow[] = engines.flatMap((engine) =>
      engine.pipelines.flatMap((pipeline) => {
        const agent = homeAgentOf(pipeline);
        return agent ? [{ engine, pipeline, agent, ...rankOf(agent, settings) }] : [];
      }),
    );
    const needle = filter.trim().toLowerCase();
    return all
      .filter(
        (r) =>
          !needle ||
          [r.pipeline.name, r.pipeline.id, r.engine.name, r.agent.type, r.agent.status.state].some((t) =>
            t.toLowerCase().includes(needle),
          ),
      )
      .sort(
        (a, b) =>
          a.rank - b.rank ||
          a.engine.name.localeCompare(b.engine.name) ||
          a.pipeline.name.localeCompare(b.pipeline.name),
      );
  }, [engines, settings, filter]);
  const down = engines.filter((e) => e.connection === 'unreachable');
  const failed = rows.filter((r) => r.rank === 0).length;
  const lagging = rows.filter((r) => r.rank === 1).length;
  const suspendedTables = rows.reduce((n, r) => n + (r.agent.status.tablesSuspended?.length ?? 0), 0);

  return (
    <section aria-labelledby="home-title">
      <h2 id="home-title">Home</h2>
      <p className="muted">
        Every pipeline of every engine, kept current as the engines report.{' '}
        {channel === 'closed' && (
          <strong className="problem">The app lost its live updates; reconnecting…</strong>
        )}
      </p>
      <ul className="engines-live" aria-label="Engines">
        {engines.map((e) => (
          <li key={e.profileId} className={e.connection === 'unreachable' ? 'engine-down' : undefined}>
            <strong>{e.name}</strong>: {CONNECTION_WORDS[e.connection]}
            {e.connection !== 'unreachable' && (
              <>, {e.pipelines.length === 1 ? '1 pipeline' : `${e.pipelines.length} pipelines`}</>
            )}
            {e.problem && <span className="problem"> — {e.problem}</span>}
          </li>
        ))}
      </ul>
      {down.length > 0 && (
        <p role="status" className="problem">
          {down.length === 1 ? `${down[0]?.name} does not answer` : `${down.length} engines do not answer`}:
          their pipelines are not shown until they do.
        </p>
      )}
      <p role="status" aria-label="Summary">
        <strong>{rows.length === 1 ? '1 pipeline' : `${rows.length} pipelines`}</strong>
        {failed > 0 && (
          <>
            {' '}
            · <span className="problem">{failed} failed</span>
          </>
        )}
        {lagging > 0 && (
          <>
            {' '}
            · <span className="warn">{lagging} need attention</span>
          </>
        )}
        {suspendedTables > 0 && (
          <>
            {' '}
            ·{' '}
            <span className="problem">
              {suspendedTables === 1 ? '1 table suspended' : `${count(suspendedTables)} tables suspended`}
            </span>
          </>
        )}
      </p>
      {rows.length === 0 && filter === '' && engines.every((e) => e.pipelines.length === 0) && (
        <div className="empty-state" role="region" aria-label="Get started">
          <h3>No pipelines yet</h3>
          <p>
            Try the sandbox: a simulated SQL Server and a simulated IBM i with sample data, and a pipeline for
            each on the local engine, so the whole flow runs without a database of your own. Or add an agent
            for your own source.
          </p>
          <div className="actions">
            <button type="button" className="primary" onClick={() => void trySandbox()}>
              Try the sandbox
            </button>
            <button type="button" onClick={() => showScreen('agents')}>
              Add an agent
            </button>
          </div>
        </div>
      )}
      {!(rows.length === 0 && filter === '' && engines.every((e) => e.pipelines.length === 0)) && (
        <>
          <label className="filter">
            Filter pipelines
            <input
              type="search"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              placeholder="name, engine, state"
            />
          </label>
          <table className="fleet" aria-label="Pipelines of every engine">
            <thead>
              <tr>
                <th scope="col">Pipeline</th>
                <th scope="col">Source → target</th>
                <th scope="col">Engine</th>
                <th scope="col">State</th>
                <th scope="col">Tables</th>
                <th scope="col">Lag</th>
                <th scope="col">Rows waiting</th>
                <th scope="col">Time left</th>
                <th scope="col">Changes/s</th>
                <th scope="col">Last failure</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ engine, pipeline, agent, rank, why }) => {
                const s = agent.status;
                return (
                  <tr
                    key={`${engine.profileId}/${pipeline.id}`}
                    className={rank === 0 ? 'row-failed' : rank === 1 ? 'row-lagging' : undefined}
                  >
                    <th scope="row">
                      <button
                        type="button"
                        className="link"
                        onClick={() =>
                          void openPipeline({
                            profileId: engine.profileId,
                            pipelineId: pipeline.id,
                            agentId: agent.id,
                          })
                        }
                      >
                        {pipeline.name}
                      </button>
                    </th>
                    <td className="muted">{pipelineRoute(pipeline)}</td>
                    <td>{engine.name}</td>
                    <td>
                      <span className={`state state-${s.state}`}>{s.state}</span>
                      {s.settingsPendingSince && (
                        <span className={s.pendingSignOn?.outcome === 'failed' ? 'problem' : 'warn'}>
                          {' '}
                          · new settings pending, in effect at {pendingAction(s.state)}
                          {s.pendingSignOn?.outcome === 'failed' && ': they did not sign on'}
                        </span>
                      )}
                      {why && why !== 'failed' && (
                        <span className="warn" title={(s.warnings ?? []).join('\n') || undefined}>
                          {' '}
                          ({why})
                        </span>
                      )}
                    </td>
                    <td className={(s.tablesSuspended?.length ?? 0) > 0 ? 'problem' : undefined}>
                      {tablesText(s)}
                    </td>
                    <td>
                      {s.idleSince && s.heartbeat
                        ? freshTo(s.heartbeat.freshToSeconds)
                        : s.idleSince
                          ? `idle since ${timeOfDay(s.idleSince)}`
                          : s.lagSeconds === null
                            ? '–'
                            : `${s.waitingSince ? 'at least ' : ''}${duration(s.lagSeconds)}`}
                    </td>
                    <td>{s.backlogRows === null ? '–' : count(s.backlogRows)}</td>
                    <td>{s.secondsLeft === null ? '–' : duration(s.secondsLeft)}</td>
                    <td>{s.changesPerSecond === null ? '–' : s.changesPerSecond.toFixed(1)}</td>
                    <td>
                      {s.lastFailure && failureStillShown(s) ? (
                        <span title={s.lastFailure.reason}>
                          {dateTime(s.lastFailure.at)}: {shortened(s.lastFailure.reason, 80)}
                        </span>
                      ) : (
                        '–'
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
      <BacklogOverview rows={rows} />
      <AlertSettingsForm />
    </section>
  );
}
