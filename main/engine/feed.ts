// The engine's event stream as its subscribers see it: every event it records, an agent's status when it
// changes (at most once a second per agent: a pipeline applying fifty batches a second is one message a
// second, always with the latest figures), and a word when pipelines or agents come or go. Nothing is
// computed while nobody listens. Statuses are read after the change's transaction, never inside it.
import type { AgentStatus, FeedMessage } from '../../shared/liveFeed';
import type { Repo } from './store/repo';

export const STATUS_EVERY_MS = 1_000;

export interface EngineFeed {
  /**
   * Each message to `listener` until the answer is called. A message is the engine's own objects: the
   * listener uses (writes out) it during the call and keeps no reference.
   */
  subscribe(listener: (message: FeedMessage) => void): () => void;
  agentChanged(pipelineId: string, agentId: string): void;
  pipelinesChanged(): void;
  eventAdded(
    pipelineId: string,
    event: { id: number; agentId: string | null; at: string; kind: string; data: object },
  ): void;
}

export function createEngineFeed(
  statusOf: (pipelineId: string, agentId: string) => AgentStatus | undefined,
  now: () => Date,
): EngineFeed {
  const listeners = new Set<(message: FeedMessage) => void>();
  const lastSent = new Map<string, number>();
  const pending = new Map<string, NodeJS.Timeout>();
  const send = (message: FeedMessage) => {
    for (const listener of listeners) listener(message);
  };
  const sendStatus = (pipelineId: string, agentId: string, key: string) => {
    pending.delete(key);
    lastSent.set(key, Date.now());
    const status = statusOf(pipelineId, agentId);
    if (status) send({ type: 'status', pipelineId, agentId, at: now().toISOString(), status });
  };
  const agentChanged = (pipelineId: string, agentId: string) => {
    if (listeners.size === 0) return;
    const key = `${pipelineId}\u0000${agentId}`;
    if (pending.has(key)) return;
    const wait = Math.max(0, (lastSent.get(key) ?? 0) + STATUS_EVERY_MS - Date.now());
    const timer = setTimeout(() => sendStatus(pipelineId, agentId, key), wait);
    timer.unref();
    pending.set(key, timer);
  };
  return {
    agentChanged,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        for (const timer of pending.values()) clearTimeout(timer);
        pending.clear();
      };
    },
    pipelinesChanged() {
      if (listeners.size > 0) send({ type: 'pipelines', at: now().toISOString() });
    },
    eventAdded(pipelineId, event) {
      if (listeners.size === 0) return;
      // The runner's own object, not a copy: listeners write it out during the call (see subscribe).
      send({ type: 'event', pipelineId, event: { ...event, data: event.data as Record<string, unknown> } });
      if (event.agentId) agentChanged(pipelineId, event.agentId);
    },
  };
}

/**
 * The store with its changes told to the feed: every event kept, every state set, every pipeline or
 * agent made or deleted. (One place, so no code path that records something can forget to tell.)
 */
export function observeRepo(repo: Repo, feed: EngineFeed): Repo {
  // Inside a transaction what is told waits for its commit, and is dropped with its rollback (an event
  // pushed before a failed commit would show a subscriber what the engine never kept).
  let held: (() => void)[] | null = null;
  const tell = (message: () => void) => (held ? held.push(message) : message());
  return {
    ...repo,
    transaction: (fn) => {
      if (held) {
        // A nested transaction is a savepoint: what it told goes with it if it rolls back.
        const mark = held.length;
        try {
          return repo.transaction(fn);
        } catch (error) {
          held.length = mark;
          throw error;
        }
      }
      const committed: (() => void)[] = (held = []);
      let result;
      try {
        result = repo.transaction(fn);
      } finally {
        held = null;
      }
      for (const message of committed) message();
      return result;
    },
    addEvent: (pipelineId, agentId, kind, data, at) => {
      const id = repo.addEvent(pipelineId, agentId, kind, data, at);
      tell(() => feed.eventAdded(pipelineId, { id, agentId, at, kind, data }));
      return id;
    },
    setState: (agent, state, reason, at) => {
      const result = repo.setState(agent, state, reason, at);
      tell(() => feed.agentChanged(agent.pipelineId, agent.id));
      return result;
    },
    putCredentials: (agent, plain, sealed, state, at, secretsSet) => {
      const result = repo.putCredentials(agent, plain, sealed, state, at, secretsSet);
      tell(() => feed.agentChanged(agent.pipelineId, agent.id));
      return result;
    },
    putConfiguration: (agent, configuration, state, at) => {
      const result = repo.putConfiguration(agent, configuration, state, at);
      tell(() => feed.agentChanged(agent.pipelineId, agent.id));
      return result;
    },
    createPipeline: (pipeline, at) => {
      const result = repo.createPipeline(pipeline, at);
      tell(() => feed.pipelinesChanged());
      return result;
    },
    deletePipeline: (id) => {
      const deleted = repo.deletePipeline(id);
      if (deleted) tell(() => feed.pipelinesChanged());
      return deleted;
    },
    createAgent: (agent, at) => {
      repo.createAgent(agent, at);
      tell(() => feed.pipelinesChanged());
    },
    deleteAgent: (pipelineId, id) => {
      const deleted = repo.deleteAgent(pipelineId, id);
      if (deleted) tell(() => feed.pipelinesChanged());
      return deleted;
    },
  };
}
