// A pipeline's recent events in words (shared/eventText.ts), newest first: filtered by kind and by
// table, and copied as text for a ticket or a chat.
import { useState } from 'react';
import type { z } from 'zod';
import type { pipelineEventSchema } from '../../shared/controlApi';
import { eventLabel, eventSentence, eventTables } from '../../shared/eventText';
import { FilterSelect } from '../ui/FilterSelect';
import { plural, timeOfDay } from '../../shared/format';

type PipelineEvent = z.infer<typeof pipelineEventSchema>;

const SHOWN = 50;

export function EventList({ events }: { events: readonly PipelineEvent[] | undefined }) {
  const [kind, setKind] = useState('');
  const [table, setTable] = useState('');
  const [copied, setCopied] = useState<string>();
  const all = events ?? [];
  const kinds = [...new Set(all.map((e) => e.kind))].sort((a, b) =>
    eventLabel(a).localeCompare(eventLabel(b)),
  );
  const tables = [...new Set(all.flatMap((e) => eventTables(e.data)))].sort();
  const shown = all
    .filter((e) => (kind === '' || e.kind === kind) && (table === '' || eventTables(e.data).includes(table)))
    .slice(-SHOWN)
    .reverse()
    .map((e) => ({ ...e, sentence: eventSentence(e.kind, e.data) }));
  // Copied text keeps ISO 8601 in UTC: it sorts, and reads the same to whoever it is pasted to.
  const lines = shown.map((e) => `${e.at.slice(0, 19).replace('T', ' ')} UTC  ${e.sentence}`);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(lines.join('\n'));
      setCopied(`Copied ${plural(lines.length, 'event')}.`);
    } catch {
      setCopied('The clipboard refused: select the events and copy them instead.');
    }
  };
  return (
    <section aria-labelledby="events-title">
      <h4 id="events-title">Recent events</h4>
      <div className="event-filters">
        <FilterSelect
          label="Kind"
          name="Event kind"
          all="every kind"
          value={kind}
          options={kinds.map((k) => ({ value: k, label: eventLabel(k) }))}
          onChange={(k) => {
            setKind(k);
            setCopied(undefined);
          }}
        />
        <FilterSelect
          label="Table"
          name="Event table"
          all="every table"
          value={table}
          options={tables.map((t) => ({ value: t, label: t }))}
          onChange={(t) => {
            setTable(t);
            setCopied(undefined);
          }}
        />
        <button type="button" onClick={() => void copy()} disabled={lines.length === 0}>
          Copy events
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
      {/* The list scrolls: focusable, so a keyboard can scroll it too. */}
      <ol className="events" aria-label="Pipeline events" tabIndex={0}>
        {shown.map((e) => (
          <li key={e.id}>
            <span className="muted">{timeOfDay(e.at)}</span> {e.sentence}
          </li>
        ))}
      </ol>
    </section>
  );
}
