// Every engine the app knows (the local one and each saved profile), watched at once: each engine's
// event stream kept open, its pipelines read whole when the stream (re)opens or says they changed, each
// status applied as it comes, alerts raised on the user's thresholds, and all of it pushed to whoever
// subscribes (the window, the web bridge, the desktop notifier). An engine without the stream is read
// every few seconds instead; one that does not answer is shown as such and never holds up the others.
import type { AgentStatus, FeedMessage, Overview } from '../../shared/liveFeed';
import {
  ENGINE_SILENCE_SECONDS,
  type AlertSettings,
  type FleetEngine,
  type PushMessage,
} from '../../shared/push';
import {
  createEngineClient,
  EngineError,
  TOKEN_REFUSED,
  type EngineClientOptions,
} from '../client/engineClient';
import { subscribeToEngine } from '../client/engineStream';
import { alertsFor, alertText, engineSilenceText, type AlertMemory } from './alerts';
import type { Profile } from './profiles';
import { coalesced } from '../../shared/coalesce';

export interface Fleet {
  engines(): FleetEngine[];
  subscribe(listener: (message: PushMessage) => void): () => void;
  /** Profiles were saved or deleted: watch the new, drop the gone, and start `restart` afresh. */
  sync(restart?: string): void;
  close(): void;
}

export interface FleetOptions {
  profiles: () => Profile[];
  /** How to reach a profile's engine (its token, its pinned certificate); throws with words when it cannot. */
  access: (profile: Profile) => Promise<EngineClientOptions>;
  settings: () => AlertSettings;
  now: () => Date;
  /** An engine without the event stream is read this often. */
  pollEveryMs?: number;
  /** A profile whose engine cannot be set up (no token yet) is tried again after this. */
  retryAccessMs?: number;
  /** Pictures pushed at most this often per engine (statuses come at most once a second per agent). */
  pictureEveryMs?: number;
  /** An engine that answered and then did not for this long is told as not answering (tests shorten it). */
  silenceMs?: number;
  /** Waits between reconnects to an engine's event stream (the stream's own by default; tests shorten them). */
  reconnectDelaysMs?: readonly number[];
}

const problemOf = (error: unknown): string => {
  if (error instanceof EngineError && error.status === 401) return TOKEN_REFUSED;
  return error instanceof Error ? error.message : 'The engine could not be read.';
};

export function createFleet(o: FleetOptions): Fleet {
  const listeners = new Set<(message: PushMessage) => void>();
  const emit = (message: PushMessage) => {
    for (const listener of listeners) listener(message);
  };
  const watches = new Map<string, ReturnType<typeof watch>>();

  function watch(profile: Profile) {
    const picture: FleetEngine = {
      profileId: profile.id,
      name: profile.name,
      local: profile.local,
      connection: 'connecting',
      problem: null,
      readAt: null,
      pipelines: [],
    };
    const memory = new Map<string, AlertMemory>();
    let stopped = false;
    let stopStream: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let pictureTimer: NodeJS.Timeout | undefined;
    let client: ReturnType<typeof createEngineClient> | undefined;
    // Its silence is told only after it answered once (what the first reading finds is on Home, not
    // rung), once per silence, and only when it lasts: a reconnect or a restart goes unrung.
    let answered = false;
    let silence: NodeJS.Timeout | undefined;
    let silenceTold = false;
    const silenceMs = o.silenceMs ?? ENGINE_SILENCE_SECONDS * 1000;

    const pushPicture = (now = false) => {
      if (stopped) return;
      if (now) {
        clearTimeout(pictureTimer);
        pictureTimer = undefined;
        emit({ type: 'engine', engine: structuredClone(picture) });
        return;
      }
      if (pictureTimer) return;
      pictureTimer = setTimeout(() => pushPicture(true), o.pictureEveryMs ?? 250);
      pictureTimer.unref();
    };
    const unreachable = (problem: string) => {
      picture.connection = 'unreachable';
      picture.problem = problem;
      pushPicture(true);
      if (!answered || silence || silenceTold) return;
      silence = setTimeout(() => {
        silence = undefined;
        if (stopped || picture.connection !== 'unreachable' || !o.settings().unreachable) return;
        silenceTold = true;
        emit({
          type: 'alert',
          alert: {
            profileId: profile.id,
            pipelineId: null,
            agentId: null,
            kind: 'unreachable',
            at: o.now().toISOString(),
            ...engineSilenceText(profile.name, picture.problem, silenceMs / 1000),
          },
        });
      }, silenceMs);
      silence.unref();
    };

    /** Applies an agent's new status: alerts first (against the one it replaces), then the push. */
    const applyStatus = (pipelineId: string, agentId: string, status: AgentStatus, at: string) => {
      const pipeline = picture.pipelines.find((p) => p.id === pipelineId);
      const agent = pipeline?.agents.find((a) => a.id === agentId);
      if (!pipeline || !agent) return false;
      if (agent.role === 'source') {
        const key = `${pipelineId}/${agentId}`;
        const settings = o.settings();
        const { kinds, memory: next } = alertsFor(agent.status, status, settings, memory.get(key));
        memory.set(key, next);
        for (const kind of kinds)
          emit({
            type: 'alert',
            alert: {
              profileId: profile.id,
              pipelineId,
              agentId,
              kind,
              at,
              ...alertText(kind, status, settings, { pipelineName: pipeline.name, engineName: profile.name }),
            },
          });
      }
      agent.status = status;
      emit({ type: 'status', profileId: profile.id, pipelineId, agentId, at, status });
      return true;
    };

    const applyOverview = (overview: Overview, connection: 'live' | 'polling') => {
      const first = picture.readAt === null;
      for (const pipeline of overview.pipelines) {
        for (const agent of pipeline.agents) {
          const key = `${pipeline.id}/${agent.id}`;
          const known = picture.pipelines
            .find((p) => p.id === pipeline.id)
            ?.agents.find((a) => a.id === agent.id);
          // The first reading of an engine, or an agent new to it, sets the memory without ringing.
          if (first || !known)
            memory.set(key, alertsFor(undefined, agent.status, o.settings(), undefined).memory);
          else applyStatus(pipeline.id, agent.id, agent.status, overview.at);
        }
      }
      picture.pipelines = overview.pipelines;
      picture.readAt = overview.at;
      // Agents gone from the engine are forgotten here too.
      const present = new Set(overview.pipelines.flatMap((p) => p.agents.map((a) => `${p.id}/${a.id}`)));
      for (const key of memory.keys()) if (!present.has(key)) memory.delete(key);
      picture.connection = connection;
      picture.problem = null;
      answered = true;
      clearTimeout(silence);
      silence = undefined;
      silenceTold = false;
      pushPicture(true);
    };

    // One reading at a time; asked again meanwhile (fifty pipelines created in a row), one more after it.
    const readOverview = coalesced(async () => {
      if (stopped || !client) return;
      try {
        applyOverview(await client.getOverview({}), 'live');
      } catch (error) {
        if (!stopped) unreachable(problemOf(error));
      }
    });

    /** An engine older than the stream: its pipelines and agents' states, read every few seconds. */
    const poll = async () => {
      if (stopped || !client) return;
      const engine = client;
      try {
        const pipelines = await engine.listPipelines({});
        const details = await Promise.all(pipelines.map((p) => engine.getPipeline({ pipelineId: p.id })));
        applyOverview(
          {
            at: o.now().toISOString(),
            pipelines: details.map(({ entities: _entities, agents, ...p }) => ({
              ...p,
              agents: agents.map((a) => ({
                id: a.id,
                name: a.name,
                type: a.type,
                role: a.role,
                status: {
                  state: a.state,
                  failureReason: a.failureReason,
                  lagSeconds: null,
                  backlogRows: null,
                  secondsLeft: null,
                  changesPerSecond: null,
                  lastBatchAt: null,
                  lastFailure: null,
                },
              })),
            })),
          },
          'polling',
        );
      } catch (error) {
        if (!stopped) unreachable(problemOf(error));
      }
      if (stopped) return;
      timer = setTimeout(() => void poll(), o.pollEveryMs ?? 5_000);
      timer.unref();
    };

    const onMessage = (message: FeedMessage) => {
      if (message.type === 'pipelines') return void readOverview();
      if (message.type === 'event') {
        emit({ type: 'event', profileId: profile.id, pipelineId: message.pipelineId, event: message.event });
        return;
      }
      // A status of an agent this picture does not hold yet: read the whole picture again.
      if (!applyStatus(message.pipelineId, message.agentId, message.status, message.at))
        return void readOverview();
      pushPicture();
    };

    const start = async () => {
      let options: EngineClientOptions;
      try {
        options = await o.access(profile);
      } catch (error) {
        if (stopped) return;
        unreachable(problemOf(error));
        timer = setTimeout(() => void start(), o.retryAccessMs ?? 15_000);
        timer.unref();
        return;
      }
      if (stopped) return;
      client = createEngineClient({ ...options, timeoutMs: 10_000 });
      stopStream = subscribeToEngine(
        options,
        {
          connected: () => void readOverview(),
          message: onMessage,
          disconnected: (reason) => unreachable(reason),
          unsupported: () => void poll(),
        },
        { retryDelaysMs: o.reconnectDelaysMs },
      );
    };

    pushPicture(true);
    void start();
    return {
      profile,
      picture,
      stop: () => {
        stopped = true;
        stopStream?.();
        clearTimeout(timer);
        clearTimeout(pictureTimer);
        clearTimeout(silence);
      },
    };
  }

  /** What makes a watch stale: where the engine is and how it is reached. */
  const signature = (p: Profile) =>
    `${p.name}\u0000${p.baseUrl}\u0000${p.tokenSet}\u0000${p.certificateFingerprint}`;

  const fleet: Fleet = {
    engines: () => [...watches.values()].map((w) => structuredClone(w.picture)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sync(restart) {
      const profiles = o.profiles();
      for (const [id, w] of watches) {
        const now = profiles.find((p) => p.id === id);
        if (now && id !== restart && signature(now) === signature(w.profile)) continue;
        w.stop();
        watches.delete(id);
        if (!now) emit({ type: 'engine-removed', profileId: id });
      }
      for (const p of profiles) if (!watches.has(p.id)) watches.set(p.id, watch(p));
    },
    close() {
      for (const w of watches.values()) w.stop();
      watches.clear();
      listeners.clear();
    },
  };
  return fleet;
}
