// An entity's forceCcsid as a DBA types it in the table picker and reads it in a table's story: one
// CCSID for the file's CHAR and VARCHAR columns ("273"), or a CCSID per column ("NAME=273, RAW=1141").
// The engine checks the override against the file's columns at the checks and at Start.
import { ccsidSchema, type Entity } from './controlApi';
import { sqlNameSchema } from './sqlName';

type ForceCcsid = NonNullable<Entity['forceCcsid']>;

const ccsidOf = (typed: string): number | null => {
  const parsed = ccsidSchema.safeParse(/^\d+$/.test(typed) ? Number(typed) : NaN);
  return parsed.success ? parsed.data : null;
};

/** The typed override, undefined when empty (the file's tags are read), or why it is not one. */
export function parseForceCcsid(typed: string): { value: ForceCcsid | undefined } | { problem: string } {
  const text = typed.trim();
  if (text === '') return { value: undefined };
  const rule =
    'a CCSID from 1 to 65534 for every CHAR and VARCHAR column (273), or COLUMN=CCSID pairs separated by commas (NAME=273, RAW=1141)';
  if (!text.includes('=')) {
    const ccsid = ccsidOf(text);
    return ccsid === null ? { problem: `"${text}" is not ${rule}` } : { value: ccsid };
  }
  const columns: Record<string, number> = {};
  for (const part of text.split(',')) {
    const [column = '', ccsid = '', ...rest] = part.split('=').map((s) => s.trim());
    const value = ccsidOf(ccsid);
    if (rest.length > 0 || value === null || !sqlNameSchema.safeParse(column).success || column === '')
      return { problem: `"${part.trim()}" is not COLUMN=CCSID; the override takes ${rule}` };
    if (Object.keys(columns).some((c) => c.toUpperCase() === column.toUpperCase()))
      return { problem: `${column} is named twice` };
    columns[column] = value;
  }
  return { value: columns };
}

/** An override as the picker shows it, for editing. */
export const forceCcsidInput = (force: ForceCcsid): string =>
  typeof force === 'number'
    ? String(force)
    : Object.entries(force)
        .map(([column, ccsid]) => `${column}=${ccsid}`)
        .join(', ');

/** How the source reads a file's text where its entity forces CCSIDs; null when it reads the file's tags. */
export function forcedCcsidText(force: ForceCcsid | null | undefined): string | null {
  if (force === undefined || force === null) return null;
  if (typeof force === 'number')
    return `Text: every CHAR and VARCHAR column (FOR BIT DATA included) is read as CCSID ${force}, over the file's tags.`;
  const columns = Object.entries(force).map(([column, ccsid]) => `${column} as CCSID ${ccsid}`);
  return `Text: read over the file's tags, ${columns.join(', ')}.`;
}

type TextOrder = NonNullable<Entity['textOrder']>;
const orderWords = {
  logical: 'in logical order',
  stored: 'in the order the bytes hold them (visual)',
} as const;

/** How Arabic and Hebrew text reaches the target where the entity says; null when the source's setting decides. */
export function textOrderText(order: TextOrder | null | undefined): string | null {
  if (order === undefined || order === null) return null;
  if (typeof order === 'string') return `Arabic and Hebrew text (CCSID 420, 424): ${orderWords[order]}.`;
  const columns = Object.entries(order).map(([column, o]) => `${column} ${orderWords[o]}`);
  return `Arabic and Hebrew text (CCSID 420, 424): ${columns.join(', ')}; other columns as the source says.`;
}
