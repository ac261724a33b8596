// A pipeline's Status: its state and the latest problem with what to do, start, pause and stop (Start
// and Stop say what they will do first), the backlog gauge, copies under way and the charts. Built so
// the gauge, the state and the problem fit a 1280×800 window without scrolling.
import { Confirm } from '../../ui/Confirm';
import { useFocusOn } from '../../ui/useFocusOn';
import { useState } from 'react';
import { useStore, showSection } from '../../store';
import { address, controlAgent, selectedIn } from '../../store/pipelinePage';
import { cancelStart, confirmStart, prepareStart } from '../../store/startPlan';
import { latestProblem } from '../../../shared/latestProblem';
import { startSentence } from '../../../shared/startWords';
import { dateTime, latency, pendingAction, plural, streamText, timeOfDay } from '../../../shared/format';
import { SECTION_TITLES } from '../../../shared/route';
import { checkTitle } from '../../../shared/checkSummary';
import { freshnessRows, freshTo, latencySentence } from '../../../shared/freshnessWords';
import { BacklogGauge } from '../BacklogGauge';
import { Charts } from '../Charts';
import { CopyProgress } from './CopyProgress';
import { RewindButton, RewindQuestion } from './RewindControl';

/** The pipeline head's state pill: the answer to Start and Stop. */
export const PIPELINE_STATE_ID = 'pipeline-state';
// After Start or Stop the page below may have grown or shrunk: bring the answer back into view.
const showPipelineState = () =>
  document.getElementById(PIPELINE_STATE_ID)?.scrollIntoView({ block: 'nearest' });

export function StatusSection() {
  const pipelinePage = useStore((s) => s.pipelinePage);
  const { selected, events, busy, backlog, snapshots } = pipelinePage;
  const agent = selectedIn(pipelinePage)?.agent;
  // Which pipeline's Stop is being confirmed: another pipeline opened shows its own Stop button.
  const [stopAsked, setStopAsked] = useState<string | null>(null);
  const [rewindAsked, setRewindAsked] = useState<string | null>(null);
  const status = useAgentStatus();
  if (!agent) return null;
  if (agent.role !== 'source')
    return <p className="muted">A target agent runs as part of its pipeline&apos;s source agent.</p>;
  const running = agent.state === 'running';
  const problem = latestProblem(agent, events ?? []);
  const pending = status?.settingsPendingSince;
  const copying = (snapshots?.tables ?? []).some((t) => t.status === 'copying' || t.status === 'queued');
  return (
    <div className="status-section">
      <div className="status-top">
        <div className="status-main">
          <BacklogGauge backlog={backlog} state={agent.state} large />
          <StatusFigures />
          <div className="row-actions">
            <StartButton state={agent.state} busy={busy !== undefined} />
            <button
              type="button"
              disabled={!running || busy !== undefined}
              onClick={() => void controlAgent('pause')}
            >
              Pause
            </button>
            <RewindButton
              type={agent.type}
              disabled={!running || busy !== undefined || rewindAsked === selected}
              onAsk={() => setRewindAsked(selected ?? null)}
            />
            {stopAsked !== selected && (
              <button
                type="button"
                disabled={(!running && agent.state !== 'paused') || busy !== undefined}
                onClick={() => setStopAsked(selected ?? null)}
              >
                Stop…
              </button>
            )}
          </div>
          {stopAsked !== null && stopAsked === selected && (
            <Confirm
              label="Confirm stop"
              yes="Yes, stop it"
              onYes={() => {
                setStopAsked(null);
                void controlAgent('stop').then(showPipelineState);
              }}
              onCancel={() => setStopAsked(null)}
            >
              Stop the pipeline? It reads no more changes until started again; the backlog grows meanwhile.
            </Confirm>
          )}
          {rewindAsked !== null && rewindAsked === selected && (
            <RewindQuestion type={agent.type} busy={busy !== undefined} onDone={() => setRewindAsked(null)} />
          )}
          <StartConfirmation />
        </div>
        <div className="status-problem" aria-label="Latest problem" role="region">
          <PendingSettings />
          {problem ? (
            <div className="problem-box">
              <p>
                <strong>{problem.text}</strong>
                {problem.at && <span className="muted"> · {dateTime(problem.at)}</span>}
              </p>
              <p>{problem.remedy}</p>
              <button type="button" className="link" onClick={() => showSection(problem.section)}>
                Open {SECTION_TITLES[problem.section]}
              </button>
            </div>
          ) : (
            !pending && <p className="ok">No problem reported.</p>
          )}
        </div>
      </div>
      {copying && <h4>Copies under way</h4>}
      <CopyProgress
        snapshots={snapshots}
        busy={busy !== undefined}
        only={(t) => t.status !== 'done' && t.status !== 'cancelled'}
      />
      <Charts />
    </div>
  );
}

/** The open agent's status as the engine last pushed it. */
function useAgentStatus() {
  const at = address();
  return useStore((s) => {
    if (!at) return undefined;
    const engine = s.fleet.engines.find((e) => e.profileId === at.profileId);
    const pipeline = engine?.pipelines.find((p) => p.id === at.pipelineId);
    return pipeline?.agents.find((a) => a.id === at.agentId)?.status;
  });
}

/** Settings stored since the pipeline took its own: said beside its state, never under "no problem". */
function PendingSettings() {
  const status = useAgentStatus();
  const since = status?.settingsPendingSince;
  if (!status || !since) return null;
  return (
    <div className="problem-box" role="status" aria-label="Pending settings">
      <p>
        <strong>New settings pending, in effect at {pendingAction(status.state)}</strong>
        <span className="muted"> · stored {dateTime(since)}</span>
      </p>
      <p>
        The pipeline still holds the settings it started with.{' '}
        {status.state === 'paused'
          ? 'Resume starts it again with the new ones, from its checkpoints: nothing is copied again or lost.'
          : 'Start runs it with them, from its checkpoints.'}
      </p>
      <SignOnOfPending signOn={status.pendingSignOn ?? null} />
    </div>
  );
}

/** How the pending credentials fared when stored: a failure is the problem, never "no problem". */
function SignOnOfPending({
  signOn,
}: {
  signOn: NonNullable<ReturnType<typeof useAgentStatus>>['pendingSignOn'];
}) {
  if (!signOn || signOn.outcome === 'untried')
    return <p>No sign-on was tried with the new credentials: run the checks before you go on.</p>;
  if (signOn.outcome === 'passed')
    return <p className="ok">The new credentials signed on when stored ({dateTime(signOn.at)}).</p>;
  return (
    <p className="problem">
      <strong>The new credentials of {signOn.agentId} did not sign on when stored:</strong> {signOn.message}{' '}
      Correct them in Settings (Edit agent…) before you go on, or the pipeline fails when it takes them.
    </p>
  );
}

/** Lag and its freshness, throughput and the last batch, as the engine last pushed them. */
function StatusFigures() {
  const status = useAgentStatus();
  if (!status) return null;
  const { freshness } = status;
  const lag = status.waitingSince
    ? `at least ${latency(status.lagSeconds ?? 0)} behind the source: rows wait since ${timeOfDay(status.waitingSince)}, none applied`
    : !['running', 'paused'].includes(status.state)
      ? 'not running'
      : status.idleSince && status.heartbeat
        ? freshTo(status.heartbeat.freshToSeconds, 'caught up, nothing new at the source')
        : status.idleSince
          ? `idle since ${timeOfDay(status.idleSince)} (caught up, nothing new at the source)`
          : status.lagSeconds === null
            ? 'not measured yet'
            : `${latency(status.lagSeconds)} behind the source`;
  return (
    <dl className="status-figures" aria-label="Figures">
      <div>
        <dt>Lag</dt>
        <dd>{lag}</dd>
      </div>
      <div>
        <dt>Throughput</dt>
        <dd>{status.changesPerSecond === null ? '–' : `${status.changesPerSecond.toFixed(1)} changes/s`}</dd>
      </div>
      <div>
        <dt>Last batch</dt>
        <dd>
          {status.lastBatchAt ? timeOfDay(status.lastBatchAt) : 'none yet'}
          {status.latency && `, ${latencySentence(status.latency)}`}
        </dd>
      </div>
      {status.heartbeat && (
        <div>
          <dt>Heartbeat</dt>
          <dd>
            written {timeOfDay(status.heartbeat.at)} at the source
            {status.heartbeat.latency && `, ${latencySentence(status.heartbeat.latency)}`}
          </dd>
        </div>
      )}
      {freshness && (
        <div>
          <dt>Freshness</dt>
          <dd>
            <ul className="freshness" aria-label="Freshness">
              {freshnessRows(freshness).map(({ window, label, text }) => (
                <li key={window}>
                  {label}: {text}
                </li>
              ))}
            </ul>
          </dd>
        </div>
      )}
      {status.stream && (
        <div>
          <dt>Stream</dt>
          <dd>{streamText(status.stream)}</dd>
        </div>
      )}
    </dl>
  );
}

function StartButton({ state, busy }: { state: string; busy: boolean }) {
  const plan = useStore((s) => s.startPlan);
  if (state === 'paused')
    return (
      <button type="button" className="primary" disabled={busy} onClick={() => void controlAgent('start')}>
        Resume
      </button>
    );
  return (
    <button
      type="button"
      className="primary"
      disabled={state === 'running' || busy || plan !== undefined}
      onClick={() => void prepareStart()}
    >
      {plan === 'reading' ? 'Checking…' : 'Start…'}
    </button>
  );
}

/** What Start will do, said before it does it: the agent's own writes, failed checks, the copies. */
function StartConfirmation() {
  const plan = useStore((s) => s.startPlan);
  // The question takes focus when it appears, so the keyboard is on its answer.
  const box = useFocusOn<HTMLDivElement>(plan !== 'reading' && plan);
  const agent = selectedIn(useStore((s) => s.pipelinePage))?.agent;
  if (!plan || plan === 'reading') return null;
  return (
    <div role="group" aria-label="Confirm start" className="confirm" ref={box} tabIndex={-1}>
      <p>{startSentence(agent?.configuration ?? null, plan.tables)}</p>
      {plan.atStart.length > 0 && (
        <>
          <p>At Start the agent runs at the source:</p>
          <ul>
            {plan.atStart.map((statement) => (
              <li key={statement}>
                <code>{statement}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.failed.length > 0 && (
        <p className="problem">
          {plural(plan.failed.length, 'check')} failed ({plan.failed.map((c) => checkTitle(c.id)).join(', ')}
          ): fix them first, or start anyway.{' '}
          <button type="button" className="link" onClick={() => showSection('checks')}>
            Open Checks
          </button>
        </p>
      )}
      <button type="button" className="primary" onClick={() => void confirmStart().then(showPipelineState)}>
        Yes, start it
      </button>{' '}
      <button type="button" onClick={cancelStart}>
        Cancel
      </button>
    </div>
  );
}
