// A runtime that accepts every request and reaches no database: for engine tests about the engine's own
// bookkeeping (states, events, statuses). `over` replaces what a test needs to answer otherwise.
import type { AgentRuntime } from '../../main/agents/spi';

export function stubRuntime(over: Partial<AgentRuntime> = {}): AgentRuntime {
  return {
    check: async () => [],
    tables: async () => [],
    catalog: async () => [],
    backlog: async () => ({ rowsToRead: 120000, minutesLeft: 1, versionsBehind: null }),
    applyFix: async () => ({ applied: null, checks: [] }),
    start: async () => undefined,
    pause: async () => undefined,
    stop: async () => undefined,
    snapshots: () => null,
    requestSnapshot: () => 'not-running',
    rewind: () => 'not-running',
    retryRows: () => 'not-running',
    verify: () => 'not-running',
    verifyReport: () => 'not-running',
    entitiesChanged: () => undefined,
    ...over,
  };
}
