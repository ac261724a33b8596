// The open pipeline in the renderer store when answers cross: a read of the whole pipeline sent before
// Start (or Verify) was answered must not put back the state from before it, which disabled a running
// pipeline's buttons until the next push; a read sent after an action still shows what it read.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Api } from '../../../renderer/platform/api';
import { useStore } from '../../../renderer/store';
import { controlAgent, pickCheckerAgent, refreshRun } from '../../../renderer/store/pipelinePage';
import { applyPush } from '../../../renderer/store/fleet';
import { askVerify } from '../../../renderer/store/verify';

type State = 'configured' | 'running' | 'paused';

const agent = (state: State) => ({
  id: 'a',
  pipelineId: 'p',
  name: 'a',
  type: 'change-tracking',
  role: 'source',
  state,
  failureReason: null,
});

const report = (id: string) => ({
  agentId: 'a',
  running: true,
  current: { id, kind: 'verify', status: 'queued', finishedAt: null, tables: [] },
  history: [],
});

/** A stand-in engine whose reads answer only when the test lets them, with the state of their sending. */
function engine() {
  let state: State = 'configured';
  let verify: ReturnType<typeof report> | { agentId: string; running: boolean; current: null; history: [] } =
    {
      agentId: 'a',
      running: false,
      current: null,
      history: [],
    };
  const held: (() => void)[] = [];
  const later = <T>(value: T) => new Promise<T>((resolve) => held.push(() => resolve(value)));
  const api = {
    listEngineAgents: () => later({ pipelines: [{ id: 'p', name: 'p', agents: [agent(state)] }] }),
    listPipelineEvents: () => later([]),
    getEngineBacklog: () => later({ agentId: 'a', current: null, unavailableReason: null }),
    listEngineSnapshots: () => later({ agentId: 'a', running: state === 'running', tables: [] }),
    getEngineVerify: () => later(verify),
    controlEngineAgent: async ({ action }: { action: string }) => {
      state = action === 'start' ? 'running' : action === 'pause' ? 'paused' : 'configured';
      return agent(state);
    },
    requestEngineVerify: async () => (verify = report('v1')),
  } as unknown as Api;
  // Newest first: the read sent before the action answers last, as it can over a network.
  const releaseAll = async () => {
    while (held.length)
      held
        .splice(0)
        .reverse()
        .forEach((release) => release());
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { api, releaseAll, setState: (s: State) => (state = s) };
}

const shownState = () => useStore.getState().pipelinePage.agents?.[0]?.agents[0]?.state;

describe('answers to the open pipeline arriving out of order', () => {
  let fake: ReturnType<typeof engine>;
  beforeEach(async () => {
    fake = engine();
    useStore.setState({
      api: fake.api,
      pipelinePage: { profileId: 'local' },
      fleet: { engines: [], channel: 'none' },
    });
    pickCheckerAgent('p/a');
    const first = refreshRun();
    await fake.releaseAll();
    await first;
    expect(shownState()).toBe('configured');
  });

  it('keeps "running" when a read sent before Start answered answers after it', async () => {
    const stale = refreshRun(); // sent while the pipeline is configured, answered later
    const start = controlAgent('start');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(shownState()).toBe('running');
    await fake.releaseAll(); // the stale read and Start's own read answer now
    await Promise.all([stale, start]);
    expect(shownState()).toBe('running');
    expect(useStore.getState().pipelinePage.busy).toBeUndefined();
  });

  it('keeps the verify just asked for when a read sent before it answers after it', async () => {
    fake.setState('running');
    const ready = refreshRun();
    await fake.releaseAll();
    await ready;
    const stale = refreshRun();
    const asked = askVerify('verify', { chunkRows: 100, rowsPerSecond: null });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(useStore.getState().pipelinePage.verify?.current?.id).toBe('v1');
    await fake.releaseAll();
    await Promise.all([stale, asked]);
    expect(useStore.getState().pipelinePage.verify?.current?.id).toBe('v1');
  });

  it('shows what a read sent after Start found, not the older state the live picture still holds', async () => {
    // The engine's pushes hold "configured" until its status push for the start arrives.
    useStore.setState({
      fleet: {
        channel: 'open',
        engines: [
          {
            profileId: 'local',
            connection: 'live',
            pipelines: [
              { id: 'p', agents: [{ id: 'a', status: { state: 'configured', failureReason: null } }] },
            ],
          },
        ],
      },
    } as never);
    const start = controlAgent('start');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await fake.releaseAll();
    await start;
    expect(shownState()).toBe('running');
  });

  it('keeps a pushed state over a read sent before the push', async () => {
    const stale = refreshRun(); // reads "configured"
    const push = (agentId: string) =>
      applyPush({
        type: 'status',
        profileId: 'local',
        pipelineId: 'p',
        agentId,
        at: new Date().toISOString(),
        status: { state: 'running', failureReason: null },
      } as never);
    push('a');
    expect(shownState()).toBe('running');
    await fake.releaseAll();
    await stale;
    expect(shownState()).toBe('running');
  });

  it('still shows what a read sent after an action found', async () => {
    const start = controlAgent('start');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await fake.releaseAll();
    await start;
    fake.setState('paused'); // changed elsewhere (another window, the control API)
    const read = refreshRun();
    await fake.releaseAll();
    await read;
    expect(shownState()).toBe('paused');
  });
});

describe('answers for a pipeline the DBA has moved away from', () => {
  /** An engine with pipelines p (agent a) and q (agent b); every answer waits for the test's release. */
  function twoPipelines(options: { verifyFails?: boolean } = {}) {
    const held: (() => void)[] = [];
    const later = <T>(value: T, fails = false) =>
      new Promise<T>((resolve, reject) =>
        held.push(() => (fails ? reject(new Error('the engine refused')) : resolve(value))),
      );
    const verifyOf = (agentId: string, id: string | null) => ({
      agentId,
      running: id !== null,
      current: id === null ? null : { id, kind: 'verify', status: 'queued', finishedAt: null, tables: [] },
      history: [],
    });
    const api = {
      listEngineAgents: () =>
        later({
          pipelines: [
            { id: 'p', name: 'p', agents: [{ ...agent('running'), id: 'a', pipelineId: 'p' }] },
            { id: 'q', name: 'q', agents: [{ ...agent('running'), id: 'b', pipelineId: 'q' }] },
          ],
        }),
      listPipelineEvents: () => later([]),
      getEngineBacklog: ({ agentId }: { agentId: string }) =>
        later({ agentId, current: null, unavailableReason: null }),
      listEngineSnapshots: ({ agentId }: { agentId: string }) =>
        later({ agentId, running: true, tables: [] }),
      getEngineVerify: ({ agentId }: { agentId: string }) =>
        later(verifyOf(agentId, agentId === 'b' ? 'q-verify' : null)),
      requestEngineVerify: ({ agentId }: { agentId: string }) =>
        later(verifyOf(agentId, 'p-verify'), options.verifyFails),
    } as unknown as Api;
    const release = async () => {
      while (held.length) held.splice(0).forEach((r) => r());
      await new Promise((resolve) => setTimeout(resolve, 0));
    };
    return { api, release };
  }

  async function openP(fake: ReturnType<typeof twoPipelines>) {
    useStore.setState({
      api: fake.api,
      pipelinePage: { profileId: 'local' },
      fleet: { engines: [], channel: 'none' },
    });
    pickCheckerAgent('p/a');
    const read = refreshRun();
    await fake.release();
    await read;
  }

  it('shows neither a verify asked on p nor its notice under q, and q’s own read still shows', async () => {
    const fake = twoPipelines();
    await openP(fake);
    const asked = askVerify('verify', { chunkRows: 100, rowsPerSecond: null });
    pickCheckerAgent('q/b');
    const readQ = refreshRun(); // sent before p's verify is answered
    await fake.release();
    await Promise.all([asked, readQ]);
    const { verify, notice, busy, error } = useStore.getState().pipelinePage;
    expect(verify?.agentId).toBe('b');
    expect(verify?.current?.id).toBe('q-verify');
    expect(notice).toBeUndefined();
    expect(error).toBeUndefined();
    expect(busy).toBeUndefined();
  });

  it('tells a failure of p’s action under q, naming p', async () => {
    const fake = twoPipelines({ verifyFails: true });
    await openP(fake);
    const asked = askVerify('verify', { chunkRows: 100, rowsPerSecond: null });
    pickCheckerAgent('q/b');
    await fake.release();
    await asked;
    expect(useStore.getState().pipelinePage.error).toBe('p/a: the engine refused');
    expect(useStore.getState().pipelinePage.busy).toBeUndefined();
  });

  it('drops a read of p answering after the engine’s other pipeline with the same ids on another engine opened', async () => {
    const fake = twoPipelines();
    await openP(fake);
    const readP = refreshRun();
    // Another engine, with a pipeline p of its own, opened before the read of this one answers.
    useStore.setState((s) => ({ pipelinePage: { ...s.pipelinePage, profileId: 'remote', agents: [] } }));
    pickCheckerAgent('p/a');
    await fake.release();
    await readP;
    expect(useStore.getState().pipelinePage.agents).toEqual([]);
    expect(useStore.getState().pipelinePage.verify).toBeUndefined();
  });
});
