// The Pipelines screen's state: the engine and pipeline open, its section's data (checks, events, backlog,
// copies, verify, tables, charts) and the actions on it (check, fix, start, pause, stop, copy again).
import { showScreen, showSection, useStore } from './index';
import type { PipelineAddress, PipelineSection } from '../../shared/route';
import { coalesced } from '../../shared/coalesce';
import { readIsNewer, readSent, runPart, shownNow, type RunAddress, sameAddress } from './answerOrder';
import type { SeriesWindow } from '../../shared/liveFeed';
import type { CheckResult } from '../../shared/controlApi';
import type { PipelinePageSliceState } from './state';

export const message = (error: unknown) => (error instanceof Error ? error.message : 'The request failed.');
export const patch = (p: Partial<PipelinePageSliceState['pipelinePage']>) =>
  useStore.setState((s) => ({ pipelinePage: { ...s.pipelinePage, ...p } }));

/** `pipelines` with one agent replaced by `update` of it; the others as they are. */
export function withAgent<A extends { id: string }, P extends { id: string; agents: A[] }>(
  pipelines: P[],
  pipelineId: string,
  agentId: string,
  update: (agent: A) => A,
): P[] {
  return pipelines.map((p) =>
    p.id === pipelineId ? { ...p, agents: p.agents.map((a) => (a.id === agentId ? update(a) : a)) } : p,
  );
}

export async function pickCheckerEngine(profileId: string): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  useStore.setState({ pipelinePage: { profileId, busy: 'loading' } });
  try {
    const { pipelines } = await api.listEngineAgents({ profileId });
    patch({ agents: pipelines, busy: undefined });
  } catch (error) {
    patch({ error: message(error), busy: undefined });
  }
}

export function pickCheckerAgent(selected: string): void {
  // A table picker left open (by the wizard, for another pipeline) is not this pipeline's Tables.
  useStore.setState({ picker: undefined, startPlan: undefined });
  // Another pipeline's events and backlog must not show under this one until its own arrive.
  patch({
    selected,
    results: undefined,
    notice: undefined,
    error: undefined,
    events: undefined,
    backlog: undefined,
    snapshots: undefined,
    verify: undefined,
    exceptions: undefined,
    exceptionsTable: undefined,
    tables: undefined,
    tableActivity: undefined,
    series: undefined,
    seriesError: undefined,
    storyTable: undefined,
  });
}

/**
 * Opens a pipeline's detail (from the home list or a notification): its engine, then its agent, read
 * once; pushes keep it current from then on.
 */
export async function openPipeline(to: PipelineAddress & { section?: PipelineSection }): Promise<void> {
  showSection(to.section ?? 'status');
  const { pipelinePage } = useStore.getState();
  // Read again when this engine's list does not have it yet (made since, by the wizard).
  const listed = pipelinePage.agents?.some(
    (p) => p.id === to.pipelineId && p.agents.some((a) => a.id === to.agentId),
  );
  if (pipelinePage.profileId !== to.profileId || !listed) await pickCheckerEngine(to.profileId);
  // Another section of the pipeline already open keeps what it read (check results, tables).
  const selected = `${to.pipelineId}/${to.agentId}`;
  if (useStore.getState().pipelinePage.selected !== selected) pickCheckerAgent(selected);
}

/** The selected agent's charts over `window` (the last hour or day), read once; pushes add to them. */
export async function loadSeries(
  window: SeriesWindow = useStore.getState().pipelinePage.seriesWindow ?? 'hour',
): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ seriesWindow: window });
  try {
    const series = await api.getEngineSeries({ ...at, window });
    if (stillOpen(at)) patch({ series, seriesError: undefined });
  } catch (error) {
    if (stillOpen(at)) patch({ series: undefined, seriesError: message(error) });
  }
}

/** Events kept in the open pipeline's list (its first read brings the engine's newest). */
export const EVENTS_KEPT = 500;

/** Between two reads of one thing asked for by events (a copy reports its progress many times a second). */
const READ_SPACING_MS = 500;

/** The open pipeline's copies, after an event said they changed. */
export const refreshCopies = coalesced(async () => {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  const sentAt = readSent();
  const snapshots = await api.listEngineSnapshots(at).catch(() => undefined);
  if (snapshots && stillOpen(at) && readIsNewer(runPart('snapshots', at), sentAt)) patch({ snapshots });
}, READ_SPACING_MS);

/** The open pipeline's verify, after an event said it changed. */
export const refreshVerify = coalesced(async () => {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  const sentAt = readSent();
  const verify = await api.getEngineVerify(at).catch(() => undefined);
  if (verify && stillOpen(at) && readIsNewer(runPart('verify', at), sentAt)) patch({ verify });
}, READ_SPACING_MS);

/** The open pipeline's selected agent with its pipeline, in a state of it; undefined when none is selected. */
export function selectedIn(pipelinePage: PipelinePageSliceState['pipelinePage']) {
  const [pipelineId, agentId] = (pipelinePage.selected ?? '').split('/');
  const pipeline = pipelinePage.agents?.find((p) => p.id === pipelineId);
  const agent = pipeline?.agents.find((a) => a.id === agentId);
  return pipeline && agent ? { pipeline, agent } : undefined;
}

/** The open pipeline, whether or not the agent of its address is still there (each may be removed). */
export function pipelineIn(pipelinePage: PipelinePageSliceState['pipelinePage']) {
  const [pipelineId] = (pipelinePage.selected ?? '').split('/');
  return pipelinePage.agents?.find((p) => p.id === pipelineId);
}

export function address(): RunAddress | undefined {
  const { profileId, selected } = useStore.getState().pipelinePage;
  const [pipelineId, agentId] = (selected ?? '').split('/');
  return profileId && pipelineId && agentId ? { profileId, pipelineId, agentId } : undefined;
}

/**
 * Whether `at` (engine, pipeline and agent) is still what the Pipelines screen has open: an answer for another
 * one, arriving after the DBA moved on, is not shown under this one.
 */
export function stillOpen(at: RunAddress): boolean {
  return sameAddress(address(), at);
}

/** What an action on `at` failed with: named when the DBA has since opened another pipeline. */
export function failure(at: RunAddress, error: unknown): string {
  return stillOpen(at) ? message(error) : `${at.pipelineId}/${at.agentId}: ${message(error)}`;
}

/**
 * A Start confirmation open for `at` follows the checks run since it was read: it never says a check
 * failed that a fix has just made pass.
 */
function startPlanFollows(at: RunAddress, checks: readonly CheckResult[]): void {
  const plan = useStore.getState().startPlan;
  if (!plan || plan === 'reading' || !sameAddress(plan.at, at)) return;
  useStore.setState({
    startPlan: {
      ...plan,
      atStart: checks.flatMap((c) => (c.atStart ? [c.atStart] : [])),
      failed: checks.filter((c) => c.status === 'failed'),
    },
  });
}

export async function runChecks(): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'checking', error: undefined, notice: undefined });
  try {
    const [answer, entities] = await Promise.all([
      api.testEngineAgent(at),
      api.getEngineEntities({ profileId: at.profileId, pipelineId: at.pipelineId }).catch(() => undefined),
    ]);
    if (stillOpen(at)) {
      patch({
        results: { checkedAt: answer.checkedAt, checks: answer.checks, tables: entities?.entities.length },
      });
      startPlanFollows(at, answer.checks);
    }
    patch({ busy: undefined });
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}

/**
 * Checks one again: the engine runs its checks (they share their few queries, so one costs what all
 * do) and only this check's result is replaced, so the others stay as the DBA read them.
 */
export async function recheck(checkId: string): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  const before = useStore.getState().pipelinePage.results;
  if (!api || !at || !before) return;
  patch({ busy: 'checking', error: undefined, notice: undefined });
  try {
    const answer = await api.testEngineAgent(at);
    const fresh = answer.checks.find((c) => c.id === checkId);
    if (!stillOpen(at)) return patch({ busy: undefined });
    const checks = before.checks.map((c) => (c.id === checkId && fresh ? fresh : c));
    startPlanFollows(at, checks);
    patch({
      results: { ...before, checks },
      notice: fresh
        ? `${checkId} checked again at ${answer.checkedAt}: ${fresh.status}.`
        : `${checkId} no longer applies.`,
      busy: undefined,
    });
  } catch (error) {
    patch({ error: message(error), busy: undefined });
  }
}

export async function applyFix(checkId: string): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'fixing', error: undefined, notice: undefined });
  try {
    const answer = await api.applyEngineFix({ ...at, checkId });
    const notice = answer.applied
      ? `Applied: ${answer.applied}`
      : `Nothing to fix for ${checkId}: it passes.`;
    // A fix is a change at the source: told even when another pipeline is open now, named.
    if (!stillOpen(at))
      return patch({ notice: `${at.pipelineId}/${at.agentId}: ${notice}`, busy: undefined });
    patch({ results: { checkedAt: answer.checkedAt, checks: answer.checks }, notice, busy: undefined });
    startPlanFollows(at, answer.checks);
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}

/** Starts, pauses or stops the selected agent's pipeline, then reloads its state and events. */
export async function controlAgent(action: 'start' | 'pause' | 'stop'): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    const agent = await api.controlEngineAgent({ ...at, action });
    const { agents, profileId } = useStore.getState().pipelinePage;
    // The agent's new state shows in the picker while its engine is open, whichever pipeline is.
    if (profileId !== at.profileId) return patch({ busy: undefined });
    shownNow(runPart('agent', { ...at, pipelineId: agent.pipelineId, agentId: agent.id }));
    patch({
      agents: agents && withAgent(agents, agent.pipelineId, agent.id, () => agent),
      busy: undefined,
    });
    if (stillOpen(at)) await refreshRun();
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}

/**
 * Reads the selected pipeline whole — the agents' states, its events, backlog, copies and verify — when it
 * is opened or acted on; pushed statuses and events keep it current in between.
 */
export async function refreshRun(): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  const sentAt = readSent();
  try {
    const [{ pipelines }, events, backlog, snapshots, verify] = await Promise.all([
      api.listEngineAgents({ profileId: at.profileId }),
      api.listPipelineEvents({ profileId: at.profileId, pipelineId: at.pipelineId }),
      api.getEngineBacklog(at),
      api.listEngineSnapshots(at),
      api.getEngineVerify(at),
    ]);
    // An answer for an agent no longer open is dropped, not shown under the new one.
    if (!stillOpen(at)) return;
    const now = useStore.getState();
    // Events pushed while this was read are newer than the answer: kept, not overwritten.
    const fetched = new Set(events.map((e) => e.id));
    const pushed = (now.pipelinePage.events ?? []).filter((e) => !fetched.has(e.id));
    // A part an action's answer or a push wrote after this read was sent keeps what it shows (an agent's
    // state included: the live picture's can be older than this read, so it is not taken over it).
    const shownAgents = now.pipelinePage.agents;
    patch({
      agents: pipelines.map((p) => ({
        ...p,
        agents: p.agents.map((a) => {
          if (readIsNewer(runPart('agent', { ...at, pipelineId: p.id, agentId: a.id }), sentAt)) return a;
          return shownAgents?.find((x) => x.id === p.id)?.agents.find((x) => x.id === a.id) ?? a;
        }),
      })),
      events: [...events, ...pushed].sort((x, y) => x.id - y.id).slice(-EVENTS_KEPT),
      ...(readIsNewer(runPart('backlog', at), sentAt) && { backlog }),
      ...(readIsNewer(runPart('snapshots', at), sentAt) && { snapshots }),
      ...(readIsNewer(runPart('verify', at), sentAt) && { verify }),
    });
    // A copy or verify that moved while this was read is read again.
    if (pushed.some((e) => /^(snapshot|resnapshot|table-)/.test(e.kind))) void refreshCopies();
    if (pushed.some((e) => /^(verify|repair)/.test(e.kind))) void refreshVerify();
  } catch (error) {
    if (stillOpen(at)) patch({ error: message(error) });
  }
}

/** Sandbox mode: the simulated SQL Server with sample data, and a pipeline on the local engine. */
export async function trySandbox(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  // From Home's first launch too: the sandbox's pipelines are opened on the Pipelines screen.
  showScreen('pipelines');
  patch({ busy: 'loading', error: undefined, notice: undefined });
  try {
    const { pipelineId, agentId, port, ibmi } = await api.startSandbox({});
    useStore.setState({ sandbox: await api.getSandboxDetails({}) });
    await pickCheckerEngine('local');
    pickCheckerAgent(`${pipelineId}/${agentId}`);
    patch({
      notice:
        `The sandbox SQL Server runs on 127.0.0.1:${port} with the sample Sales database; pipeline "${pipelineId}" reads it into a SQLite file. ` +
        `The simulated IBM i runs as ${ibmi.host} with the SHOP and LEGACY libraries; pipeline "${ibmi.pipelineId}" reads them through their journals. ` +
        'Run the checks, then start them. How to reach both servers, and a workload that keeps changing rows, are in the Sandbox panel below.',
    });
  } catch (error) {
    patch({ error: message(error), busy: undefined });
  }
}

/** Each entity's source table as the source sees it (GET …/tables). */
export async function loadTables(): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ tables: 'loading', error: undefined });
  try {
    const { tables, activity } = await api.listEngineTables(at);
    if (stillOpen(at)) patch({ tables, tableActivity: activity });
  } catch (error) {
    if (stillOpen(at)) patch({ tables: undefined, error: message(error) });
  }
}

/**
 * Rewinds the selected running pipeline: every table back to `to`, its changes since applied again.
 * The engine answers at once; the `rewound` or `rewind-refused` event tells the outcome.
 */
export async function rewindPipeline(to: string): Promise<boolean> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return false;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    await api.rewindEnginePipeline({ ...at, to });
    if (!stillOpen(at)) return (patch({ busy: undefined }), true);
    patch({
      busy: undefined,
      notice: `Rewind to ${to} asked for: the pipeline takes it at its next step, and its events say the outcome.`,
    });
    return true;
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
    return false;
  }
}

/**
 * Copies one table again (a re-snapshot), cancels its copy, or resumes it (suspended: it reads on from its
 * position), on the selected running pipeline.
 */
export async function snapshotTable(table: string, action: 'copy' | 'cancel' | 'resume'): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    const snapshots = await api.requestEngineSnapshot({ ...at, table, action });
    if (!stillOpen(at)) return patch({ busy: undefined });
    shownNow(runPart('snapshots', at));
    patch({
      snapshots,
      busy: undefined,
      notice: {
        copy: `${table} will be copied again.`,
        cancel: `The copy of ${table} is cancelled.`,
        resume: `${table} resumes from where it was suspended.`,
      }[action],
    });
  } catch (error) {
    patch({ error: failure(at, error), busy: undefined });
  }
}
