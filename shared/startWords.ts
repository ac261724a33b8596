// What Start will do to the tables, in the words of the Start confirmation: a copy, or a start point
// without one, and the stop point — from the agent's own settings, so the question never promises a
// copy the snapshot mode will not make.
import { plural } from './format';

export function startSentence(configuration: Record<string, unknown> | null, tables: number): string {
  const text = (key: string) =>
    typeof configuration?.[key] === 'string' ? (configuration[key] as string) : undefined;
  const mode = text('snapshotMode') ?? 'initial';
  const startAt = text('startAt');
  const stopAt = text('stopAt');
  const them = plural(tables, 'table');
  const begin =
    mode === 'initial'
      ? `It copies whichever of its ${them} are not copied yet, then reads their changes.`
      : `Its ${them} not started yet begin ${startAt ? `at ${startAt}` : 'at the current position'}, without a copy, then their changes are read` +
        (mode === 'when-needed' ? '; a table whose position is lost is copied again.' : '.');
  const end = stopAt ? ` It stops by itself once every table has read up to ${stopAt}.` : '';
  return `Start the pipeline? ${begin}${end}`;
}
