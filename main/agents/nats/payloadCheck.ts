// Whether each table's largest event fits the servers' max_payload. From the columns' declared types:
// the widest value each can hold as this target writes it (text as UTF-8, bytes as base64), twice (an
// update carries before and after), with the event's schema part and source block. A column whose type
// has no bound (nvarchar(max), a LOB, xml) is measured instead: its largest value now, read at the
// source. A value too large now fails (a copy sends that row); a column without a bound always warns.
import type { NatsConfiguration } from '../../../shared/agents/nats';
import type { CheckResult } from '../../../shared/controlApi';
import { bytes } from '../../../shared/format';
import type { ColumnShape, TableShape } from '../source';
import { tableKey } from '../source';
import type { LargestValue, SourceOrigin } from '../spi';
import { failed, passed, warning } from '../checkResults';
import { TableEnvelope } from './envelope';
import { declaredSize, hasNoBound } from '../columnWidths';

/** The most bytes a column's value takes in an event's JSON; Infinity when its type has no bound. */
export function widestValue(c: ColumnShape): number {
  if (hasNoBound(c)) return Infinity;
  const { kind, length } = declaredSize(c);
  if (kind === 'binary') return Math.ceil((length * 4) / 3) + 2;
  // Text: up to three UTF-8 bytes per character (SQL Server counts UTF-16 units; a pair is four bytes).
  if (kind === 'text') return length * 3 + 2;
  // Numbers, dates, times, decimals as bytes or text: a few dozen bytes at most.
  return 64;
}

/** The columns whose values are measured at the source: those whose type sets no bound. */
export const unboundedColumns = (shape: TableShape): string[] =>
  shape.columns.filter((c) => widestValue(c) === Infinity).map((c) => c.name);

/**
 * A stored value's bytes in an event, at least and at most: UTF-16 text (nvarchar, ntext, xml, DBCLOB)
 * takes half to one and a half times its bytes as UTF-8; single-byte or UTF-8 text (varchar, CLOB) one
 * to three times (a Windows-1252 or EBCDIC byte is one to three UTF-8 bytes); bytes go as base64.
 */
export function eventBytes(sourceType: string, stored: number): { least: number; most: number } {
  const type = sourceType.toLowerCase();
  if (/^(nvarchar|nchar|ntext|xml|dbclob|sql_variant)/.test(type))
    return { least: Math.ceil(stored / 2), most: Math.ceil(stored * 1.5) };
  if (/^(varchar|char|text|clob)/.test(type)) return { least: stored, most: stored * 3 };
  const base64 = Math.ceil(stored / 3) * 4;
  return { least: base64, most: base64 };
}

interface Measured {
  /** The largest values now, by table (tableKey) and column; a table absent was not measured. */
  values: ReadonlyMap<string, ReadonlyMap<string, number | null>>;
  /** Why nothing could be measured, when the source could not answer. */
  unmeasured?: string;
}

export function measuredValues(found: readonly LargestValue[], unmeasured?: string): Measured {
  const values = new Map<string, Map<string, number | null>>();
  for (const v of found) {
    const table = values.get(tableKey(v.ref)) ?? new Map<string, number | null>();
    values.set(tableKey(v.ref), table.set(v.column, v.bytes));
  }
  return { values, unmeasured };
}

export function payloadChecks(
  shapes: readonly TableShape[],
  c: NatsConfiguration,
  origin: SourceOrigin,
  maxPayload: number,
  measured: Measured = measuredValues([]),
): CheckResult[] {
  const over: string[] = [];
  const tooLargeNow: string[] = [];
  const unbounded: string[] = [];
  for (const shape of shapes) {
    const frame = frameBytes(shape, c, origin);
    const row = shape.columns.reduce(
      (n, col) => n + (widestValue(col) === Infinity ? 0 : widestValue(col)) + col.name.length + 4,
      0,
    );
    const widest = frame + 2 * row + 1024;
    const endless = shape.columns.filter((col) => widestValue(col) === Infinity);
    const now = measured.values.get(tableKey(shape.ref));
    if (endless.length === 0) {
      if (widest > maxPayload)
        over.push(`${tableKey(shape.ref)} (up to ${widest} bytes; widest: ${widestColumns(shape.columns)})`);
      continue;
    }
    // A copy sends each row once, after image only: the values held now, at their fewest bytes.
    const least = endless.reduce(
      (n, col) => n + eventBytes(col.sourceType, now?.get(col.name) ?? 0).least,
      frame,
    );
    const said = endless.map((col) => largestText(col, now)).join(', ');
    if (least > maxPayload) tooLargeNow.push(`${tableKey(shape.ref)} (${said})`);
    else unbounded.push(`${tableKey(shape.ref)} (${said})`);
  }
  const fix =
    'Raise max_payload in nats-server.conf (up to 64 MB; 8 MB is a common ceiling), or leave the widest columns out of the entity. A row past it at run time is kept as an exception and its table waits.';
  if (over.length + tooLargeNow.length + unbounded.length === 0)
    return [
      passed(
        'message-size',
        `The largest event of every table fits the servers' max_payload of ${maxPayload} bytes.`,
      ),
    ];
  const limit = `the servers' max_payload of ${maxPayload} bytes`;
  const message = [
    over.length > 0 && `Events of ${over.join('; ')} can exceed ${limit}.`,
    tooLargeNow.length > 0 &&
      `Rows of ${tooLargeNow.join('; ')} make events past ${limit} now: a copy would keep them aside.`,
    unbounded.length > 0 &&
      `Columns of ${unbounded.join('; ')} have no size bound: one large value makes an event past ${limit}.`,
    measured.unmeasured && `Their largest values could not be read: ${measured.unmeasured}`,
  ]
    .filter(Boolean)
    .join(' ');
  // A declared width or a value held now past the limit fails; a column without a bound may never
  // hold such a value: a warning.
  return over.length + tooLargeNow.length > 0
    ? [failed('message-size', message, fix)]
    : [warning('message-size', message, fix)];
}

/** An event's bytes around its row: the schema part (when sent), the source block, the keys. */
function frameBytes(shape: TableShape, c: NatsConfiguration, origin: SourceOrigin): number {
  const table = {
    source: tableKey(shape.ref),
    name: shape.ref.table,
    columns: shape.columns,
    key: shape.key,
  };
  const envelope = new TableEnvelope(
    table,
    shape.ref,
    {
      prefix: c.subjectPrefix,
      origin,
      includeSchema: c.includeSchema,
      decimalHandling: c.decimalHandling,
      transactionEvents: c.transactionEvents,
      version: '0.0.0',
    },
    origin.connector === 'sqlserver',
  );
  return envelope.valueJson('u', null, null, {
    position: '',
    commitTime: undefined,
    snapshot: 'false',
    serial: 1,
  }).length;
}

/** `Body` alone when not measured; `Body: largest now 2.3 MiB` or `Body: no value now` when it was. */
function largestText(col: ColumnShape, now: ReadonlyMap<string, number | null> | undefined): string {
  if (!now?.has(col.name)) return col.name;
  const stored = now.get(col.name);
  if (stored === null || stored === undefined) return `${col.name}: no value now`;
  const { least, most } = eventBytes(col.sourceType, stored);
  const inEvent = least === most ? bytes(least) : `${bytes(least)} to ${bytes(most)}`;
  return `${col.name}: largest now ${bytes(stored)} at the source, ${inEvent} in an event`;
}

const widestColumns = (columns: readonly ColumnShape[]) =>
  [...columns]
    .sort((a, b) => widestValue(b) - widestValue(a))
    .slice(0, 3)
    .map((c) => `${c.name} ${c.sourceType}`)
    .join(', ');
