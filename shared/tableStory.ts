// One table's story, from what the app already holds of its pipeline: its copies, the schema changes
// at the source and what the pipeline did about each, when it stopped, its last changes applied, and
// what each verify found of it. Newest first in each part.
import { batchFigures } from './batchEvent';
import { eventSentence, eventTables, type EventData } from './eventText';
import type { VerifyAnswer } from './verify';

interface EventLike {
  id: number;
  at: string;
  kind: string;
  data: EventData;
}

export interface StoryLine {
  at: string;
  text: string;
}

export interface TableStory {
  copies: StoryLine[];
  /** Schema changes and table stops, in the runner's own words (what it did is in the sentence). */
  changesAtSource: StoryLine[];
  lastChanges: { at: string; inserts: number; updates: number; deletes: number }[];
  verifies: { at: string; text: string; clean: boolean }[];
}

const COPY_KINDS = new Set([
  'snapshot-copy-requested',
  'snapshot-cancel-requested',
  'snapshot-started',
  'snapshot-resumed',
  'snapshot-done',
  'snapshot-cancelled',
  'snapshot-skipped',
  'resnapshot',
]);
const SOURCE_KINDS = new Set(['schema-changed', 'table-stopped']);
/** The last changes shown: enough to see a pattern, few enough to read. */
const LAST_CHANGES = 10;

export function tableStory(
  table: string,
  events: readonly EventLike[],
  verify: VerifyAnswer | undefined,
): TableStory {
  const mine = [...events].filter((e) => eventTables(e.data).includes(table)).sort((a, b) => b.id - a.id);
  const line = (e: EventLike): StoryLine => ({ at: e.at, text: eventSentence(e.kind, e.data) });
  const reports = [
    ...(verify?.current && verify.current.finishedAt === null ? [verify.current] : []),
    ...(verify?.history ?? []),
  ];
  return {
    copies: mine.filter((e) => COPY_KINDS.has(e.kind)).map(line),
    changesAtSource: mine.filter((e) => SOURCE_KINDS.has(e.kind)).map(line),
    lastChanges: mine
      .filter((e) => e.kind === 'batch-applied')
      .slice(0, LAST_CHANGES)
      .flatMap((e) => {
        const t = batchFigures(e.data).tables.find((x) => x.table === table);
        return t ? [{ at: e.at, inserts: t.inserts, updates: t.updates, deletes: t.deletes }] : [];
      }),
    verifies: reports.flatMap((r) => {
      const t = r.tables.find((x) => x.table === table);
      if (!t) return [];
      const { missing, extra, different } = t.counts;
      const clean = t.status === 'done' && missing + extra + different === 0;
      const what = r.kind === 'repair' ? 'Repair, then verify' : 'Verify';
      return [
        {
          at: t.finishedAt ?? r.finishedAt ?? r.requestedAt,
          clean,
          text:
            t.status !== 'done'
              ? `${what} ${t.status}${t.reason ? `: ${t.reason}` : ''}`
              : `${what}: ${t.rowsCompared} rows compared, ${missing} missing, ${extra} extra, ${different} different`,
        },
      ];
    }),
  };
}
