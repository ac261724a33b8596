// Every kind of pipeline event in words a DBA reads, declared once: the engine records kinds as codes
// (`credentials-replaced`, `batch-applied`), the app shows them as sentences, filters them by kind
// and table, and copies them as text. test/shared/eventText.unit.test.ts checks that every kind the engine
// and the runner record is here.
import { count, duration, latency, plural } from './format';

export type EventData = Record<string, unknown>;

interface KindText {
  /** The kind's name in the filter. */
  label: string;
  /** One event as a sentence. */
  sentence: (d: EventData) => string;
}

const n = (d: EventData, key: string) => (typeof d[key] === 'number' ? count(d[key] as number) : '?');
const text = (d: EventData, key: string) => (typeof d[key] === 'string' ? (d[key] as string) : '');
const table = (d: EventData) => text(d, 'table') || 'a table';
const of = (d: EventData) => (typeof d.rowsTotal === 'number' ? ` of ${n(d, 'rowsTotal')}` : '');
const because = (d: EventData) => (text(d, 'reason') ? `: ${text(d, 'reason')}` : '');
const lag = (d: EventData) =>
  typeof d.lagMs === 'number' ? `, ${latency(d.lagMs / 1000)} behind the source` : '';
/** ` (was running, now paused)`; the state the event itself names (`stopped`) is not said twice. */
const states = (d: EventData, itself?: string) =>
  text(d, 'from') && text(d, 'to')
    ? ` (was ${text(d, 'from')}${text(d, 'to') === itself ? '' : `, now ${text(d, 'to')}`})`
    : '';

export const EVENT_TEXT = {
  started: { label: 'Started', sentence: (d) => `Pipeline started${states(d)}` },
  resumed: { label: 'Resumed', sentence: (d) => `Pipeline resumed${states(d)}` },
  paused: { label: 'Paused', sentence: (d) => `Pipeline paused${states(d, 'paused')}` },
  stopped: { label: 'Stopped', sentence: (d) => `Pipeline stopped${states(d, 'stopped')}` },
  'resumed-after-restart': {
    label: 'Resumed after restart',
    sentence: () => 'Pipeline resumed after the engine restarted',
  },
  failed: { label: 'Failed', sentence: (d) => `Pipeline failed${because(d)}` },
  retrying: {
    label: 'Retrying',
    sentence: (d) =>
      `Connection lost, retry ${n(d, 'attempt')} in ${
        typeof d.delayMs === 'number' ? duration(d.delayMs / 1000) : '?'
      }${because(d)}`,
  },
  'credentials-replaced': { label: 'Host credentials replaced', sentence: () => 'Host credentials replaced' },
  'credentials-signed-on': {
    label: 'Sign-on with new credentials',
    sentence: (d) =>
      d.status === 'passed'
        ? 'The new host credentials signed on when stored'
        : `The new host credentials did not sign on when stored${typeof d.message === 'string' ? `: ${d.message}` : ''}`,
  },
  'configuration-replaced': {
    label: 'Settings replaced',
    sentence: () => 'Agent settings replaced',
  },
  'entities-replaced': {
    label: 'Tables replaced',
    sentence: (d) => `Replicated tables replaced: ${n(d, 'count')} now`,
  },
  checked: {
    label: 'Checked',
    sentence: (d) => {
      const checks = Array.isArray(d.checks) ? (d.checks as { status?: unknown }[]) : [];
      const failed = checks.filter((c) => c.status === 'failed').length;
      const unchecked = checks.filter((c) => c.status === 'unchecked').length;
      return `Checks run: ${count(checks.length)}, ${failed ? `${count(failed)} failed` : 'none failed'}${unchecked ? `, ${count(unchecked)} could not run` : ''}`;
    },
  },
  'fix-applied': {
    label: 'Fix applied',
    sentence: (d) => `Fix applied: ${text(d, 'checkId') || 'a check'}, then checked again`,
  },
  'fix-not-needed': {
    label: 'Fix not needed',
    sentence: (d) => `Fix not needed: ${text(d, 'checkId') || 'the check'} already passes`,
  },
  'snapshot-copy-requested': {
    label: 'Snapshot asked for',
    sentence: (d) => `Snapshot of ${table(d)} asked for`,
  },
  'snapshot-cancel-requested': {
    label: 'Snapshot cancel asked for',
    sentence: (d) => `Cancel of the snapshot of ${table(d)} asked for`,
  },
  'snapshot-started': {
    label: 'Snapshot started',
    sentence: (d) =>
      `Snapshot of ${table(d)} started${text(d, 'reason') ? ` (${text(d, 'reason').replace(/\.$/, '')})` : ''}${
        typeof d.rowsTotal === 'number' ? `: ${n(d, 'rowsTotal')} rows` : ''
      }`,
  },
  'snapshot-resumed': {
    label: 'Snapshot resumed',
    sentence: (d) => `Snapshot of ${table(d)} resumed after ${n(d, 'rowsDone')}${of(d)} rows`,
  },
  'snapshot-progress': {
    label: 'Snapshot progress',
    sentence: (d) =>
      `Snapshot of ${table(d)}: ${n(d, 'rowsDone')}${of(d)} rows, ${n(d, 'rowsPerSecond')} rows/s${
        typeof d.secondsLeft === 'number' ? `, about ${duration(d.secondsLeft)} left` : ''
      }`,
  },
  'snapshot-done': {
    label: 'Snapshot done',
    sentence: (d) => `Snapshot of ${table(d)} done: ${n(d, 'rows')} rows`,
  },
  'snapshot-cancelled': {
    label: 'Snapshot cancelled',
    sentence: (d) => `Snapshot of ${table(d)} cancelled at ${n(d, 'rowsDone')}${of(d)} rows`,
  },
  'snapshot-skipped': {
    label: 'Snapshot skipped',
    sentence: (d) => `${table(d)} starts without a snapshot${because(d)}`,
  },
  resnapshot: { label: 'Snapshot again', sentence: (d) => `${table(d)} is copied again${because(d)}` },
  'stop-point-reached': {
    label: 'Stop point reached',
    sentence: (d) =>
      `Every table has read up to the stop point, ${text(d, 'at')}: the pipeline stopped by itself (clear stopAt to run on)`,
  },
  rewound: {
    label: 'Rewound',
    sentence: (d) =>
      `Rewound ${n(d, 'tables')} ${d.tables === 1 ? 'table' : 'tables'} to ${text(d, 'to')}${because(d)}`,
  },
  'rewind-requested': {
    label: 'Rewind asked for',
    sentence: (d) => `Rewind to ${text(d, 'to')} asked for`,
  },
  'rewind-refused': {
    label: 'Rewind refused',
    sentence: (d) => `Rewind to ${text(d, 'to')} refused, nothing moved${because(d)}`,
  },
  'schema-changed': {
    label: 'Columns changed',
    sentence: (d) => `Columns of ${table(d)} changed at the source${because(d)}`,
  },
  'table-stopped': {
    label: 'Table stopped',
    sentence: (d) => `Replication of ${table(d)} stopped${because(d)}`,
  },
  'schema-change-withheld': {
    label: 'Column change withheld',
    sentence: (d) => `Columns of ${table(d)} changed at the source, not all applied${because(d)}`,
  },
  'table-suspended': {
    label: 'Table suspended',
    sentence: (d) => `${table(d)} was suspended${because(d)}`,
  },
  'table-resumed': {
    label: 'Table resumed',
    sentence: (d) => `${table(d)} resumed from where it stood`,
  },
  'snapshot-resume-requested': {
    label: 'Resume asked for',
    sentence: (d) => `Resume of ${table(d)} asked for`,
  },
  'rows-refused': {
    label: 'Rows kept aside',
    sentence: (d) =>
      `${n(d, 'rows')} ${d.rows === 1 ? 'row' : 'rows'} of ${table(d)} refused by the target and kept as exceptions (${n(d, 'kept')} kept in all): ${text(d, 'error')}`,
  },
  'loss-warning': {
    label: 'At risk of loss',
    sentence: (d) => {
      const warnings = Array.isArray(d.warnings) ? d.warnings.filter((w) => typeof w === 'string') : [];
      return warnings.length === 0
        ? 'No longer at risk of losing changes'
        : `At risk of losing changes: ${warnings.join(' ')}`;
    },
  },
  'heartbeat-applied': {
    label: 'Heartbeat applied',
    sentence: (d) => `The source's heartbeat of ${text(d, 'at')} reached the target${lag(d)}`,
  },
  'heartbeat-refused': {
    label: 'Heartbeat refused',
    sentence: (d) => `The source refused the heartbeat; the pipeline runs on without it${because(d)}`,
  },
  'values-replaced': {
    label: 'Values replaced',
    sentence: (d) =>
      d.by === 'target'
        ? `${n(d, 'values')} ${d.values === 1 ? 'value' : 'values'} of ${table(d)} written with U+0000 replaced, as the target's "U+0000 in text" setting says`
        : `${n(d, 'values')} ${d.values === 1 ? 'value' : 'values'} of ${table(d)} the source could not read replaced as the decode policy says ("Invalid decimals", "Invalid dates")`,
  },
  'exceptions-retried': {
    label: 'Exceptions retried',
    sentence: (d) =>
      `Kept rows retried from the source: ${n(d, 'applied')} applied, ${n(d, 'refusedAgain')} refused again`,
  },
  'exceptions-discarded': {
    label: 'Exceptions discarded',
    sentence: (d) => `${n(d, 'count')} kept ${d.count === 1 ? 'row' : 'rows'} discarded by hand`,
  },
  'batch-applied': {
    label: 'Changes applied',
    sentence: (d) => {
      const parts = [
        [d.inserts, 'insert'],
        [d.updates, 'update'],
        [d.deletes, 'delete'],
      ].flatMap(([v, what]) => (typeof v === 'number' && v > 0 ? [plural(v, what as string)] : []));
      const tables = eventTables(d);
      const to =
        tables.length === 1
          ? ` to ${tables[0]}`
          : tables.length > 1
            ? ` to ${plural(tables.length, 'table')}`
            : '';
      return `Applied ${plural(typeof d.changes === 'number' ? d.changes : 0, 'change')}${
        parts.length ? ` (${parts.join(', ')})` : ''
      }${to}${lag(d)}`;
    },
  },
  'verify-requested': {
    label: 'Verify asked for',
    sentence: (d) =>
      `Verify of ${text(d, 'table') || 'every table'} asked for (${n(d, 'chunkRows')} rows per chunk)`,
  },
  'verify-repair-requested': {
    label: 'Repair asked for',
    sentence: () => 'Repair of the differing rows asked for',
  },
  'verify-cancel-requested': { label: 'Verify cancelled', sentence: () => 'Verify cancelled' },
  'verify-finished': {
    label: 'Verify finished',
    sentence: (d) =>
      `${d.verify === 'repair' ? `Repair (${n(d, 'repaired')} rows copied again), then verify` : 'Verify'} ${text(d, 'status')}: ${n(d, 'rowsCompared')} rows compared, ${n(d, 'missing')} missing, ${n(d, 'extra')} extra, ${n(d, 'different')} different`,
  },
} satisfies Record<string, KindText>;

export type EventKind = keyof typeof EVENT_TEXT;

const known = (kind: string): kind is EventKind => Object.hasOwn(EVENT_TEXT, kind);

/** An event as a sentence; a kind this version does not know (a newer engine's) by its code. */
export const eventSentence = (kind: string, data: EventData): string =>
  known(kind) ? EVENT_TEXT[kind].sentence(data) : `${kind}${because(data)}`;

/** A kind's name in the filter. */
export const eventLabel = (kind: string): string => (known(kind) ? EVENT_TEXT[kind].label : kind);

/** The tables an event concerns: its table, or the tables of a batch's changes. */
export function eventTables(data: EventData): string[] {
  if (typeof data.table === 'string' && data.table !== '') return [data.table];
  return data.tables && typeof data.tables === 'object' ? Object.keys(data.tables).sort() : [];
}
