// When to tell the user: a pipeline that fails or stops while watched, and a lag or backlog that crosses
// the user's threshold (told once, and again only after it fell below 80 % of it, so a figure hovering
// at the line does not ring every second). What the app found on first reading an engine is on the home
// screen, not rung: only changes seen while watching are.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeJson } from '../../shared/config/parse';
import { duration, count } from '../../shared/format';
import type { AgentStatus } from '../../shared/liveFeed';
import { alertSettingsSchema, type AlertKind, type AlertSettings } from '../../shared/push';
import { writeFileAtomic } from '../platform/atomicFile';

/** What a pipeline's status can ring (an engine's silence is the fleet's to tell). */
export type PipelineAlertKind = Exclude<AlertKind, 'unreachable'>;

/** Below this share of a threshold, a figure counts as back under it. */
const REARM_SHARE = 0.8;

/** Whether the agent's lag and backlog are over their thresholds, as last told. */
export interface AlertMemory {
  lagOver: boolean;
  backlogOver: boolean;
}

const over = (value: number | null, threshold: number | null, wasOver: boolean): boolean => {
  if (threshold === null || value === null) return false;
  return wasOver ? value >= threshold * REARM_SHARE : value >= threshold;
};

/** The alerts a status change raises, and what to remember for the next one. */
export function alertsFor(
  before: AgentStatus | undefined,
  after: AgentStatus,
  settings: AlertSettings,
  memory: AlertMemory | undefined,
): { kinds: PipelineAlertKind[]; memory: AlertMemory } {
  const next = {
    lagOver: over(after.lagSeconds, settings.lagSeconds, memory?.lagOver ?? false),
    backlogOver: over(after.backlogRows, settings.backlogRows, memory?.backlogOver ?? false),
  };
  if (!before || !memory) return { kinds: [], memory: next };
  const kinds: PipelineAlertKind[] = [];
  if (settings.failed && after.state === 'failed' && before.state !== 'failed') kinds.push('failed');
  const wasActive = before.state === 'running' || before.state === 'paused';
  if (settings.stopped && wasActive && after.state === 'stopped') kinds.push('stopped');
  if (settings.suspended && newlySuspended(before, after).length > 0) kinds.push('suspended');
  const warned = (s: AgentStatus) => (s.warnings ?? []).join('\n');
  if (settings.atRisk && warned(after) !== '' && warned(after) !== warned(before)) kinds.push('at-risk');
  const change = after.lastSchemaChange;
  if (settings.schemaChanges && change && change.at !== before.lastSchemaChange?.at)
    kinds.push('schema-change');
  if (next.lagOver && !memory.lagOver) kinds.push('lag');
  if (next.backlogOver && !memory.backlogOver) kinds.push('backlog');
  return { kinds, memory: next };
}

/** Tables suspended in `after` that were not in `before` (a status from an older engine says none). */
function newlySuspended(before: AgentStatus, after: AgentStatus) {
  const was = new Set((before.tablesSuspended ?? []).map((t) => t.table));
  return (after.tablesSuspended ?? []).filter((t) => !was.has(t.table));
}

/** The words of an engine's `unreachable` alert. */
export function engineSilenceText(engineName: string, problem: string | null, silentSeconds: number) {
  return {
    title: `${engineName} is not answering`,
    body: `${problem ?? 'The engine does not answer.'} Not answering for ${duration(silentSeconds)}: its pipelines' states are not known until it answers again.`,
  };
}

/** An alert's words: the title names the pipeline, the body says what happened and where. */
export function alertText(
  kind: PipelineAlertKind,
  status: AgentStatus,
  settings: AlertSettings,
  where: { pipelineName: string; engineName: string },
): { title: string; body: string } {
  const on = `on ${where.engineName}`;
  switch (kind) {
    case 'failed':
      return {
        title: `${where.pipelineName} failed`,
        body: `${status.failureReason ?? 'The pipeline stopped on an error.'} (${on})`,
      };
    case 'stopped':
      return { title: `${where.pipelineName} stopped`, body: `The pipeline was stopped ${on}.` };
    case 'suspended': {
      const suspended = status.tablesSuspended ?? [];
      const first = suspended.at(-1);
      const of = status.tableCount === undefined ? '' : ` of ${count(status.tableCount)}`;
      return {
        title: `${where.pipelineName}: ${first?.table ?? 'a table'} suspended`,
        body: `${first ? `${first.reason}. ` : ''}${count(suspended.length)}${of} tables suspended ${on}; the others go on.`,
      };
    }
    case 'at-risk':
      return {
        title: `${where.pipelineName} is at risk of losing changes`,
        body: `${(status.warnings ?? []).join(' ')} (${on})`,
      };
    case 'schema-change': {
      const change = status.lastSchemaChange;
      return {
        title: `${where.pipelineName}: ${change?.table ?? 'a table'} ${change?.withheld ? 'changed at the source, withheld' : 'changed'}`,
        body: `${change?.reason ?? 'Its columns changed at the source.'} (${on})`,
      };
    }
    case 'lag':
      return {
        title: `${where.pipelineName} is ${duration(status.lagSeconds ?? 0)} behind`,
        body: `Lag over your threshold of ${duration(settings.lagSeconds ?? 0)} ${on}.`,
      };
    case 'backlog':
      return {
        title: `${where.pipelineName}: ${count(status.backlogRows ?? 0)} rows waiting`,
        body: `Backlog over your threshold of ${count(settings.backlogRows ?? 0)} rows ${on}.`,
      };
  }
}

const SETTINGS_FILE = 'alerts.json';

/** The user's alert settings: a JSON file in the app's data folder, its defaults until saved. */
export function createAlertSettingsStore(dataDir: string) {
  const file = join(dataDir, SETTINGS_FILE);
  let current: AlertSettings = alertSettingsSchema.parse({});
  if (existsSync(file)) {
    // A file that no longer parses (edited by hand, an older shape) gives the defaults, not a crash.
    const parsed = alertSettingsSchema.safeParse(safeJson(readFileSync(file, 'utf8')));
    if (parsed.success) current = parsed.data;
  }
  return {
    get: (): AlertSettings => current,
    save: (settings: AlertSettings): AlertSettings => {
      writeFileAtomic(file, JSON.stringify(settings, null, 2));
      current = settings;
      return current;
    },
  };
}
export type AlertSettingsStore = ReturnType<typeof createAlertSettingsStore>;
