// Whether each table's largest event fits the servers' max_payload, from the columns' declared types:
// the widest value each can hold as this target writes it (text as UTF-8, bytes as base64), twice (an
// update carries before and after), with the event's schema part and source block. A column whose type
// has no bound (nvarchar(max), a LOB, xml) can always exceed it: named, with what to do.
import type { NatsConfiguration } from '../../../shared/agents/nats';
import type { CheckResult } from '../../../shared/controlApi';
import type { ColumnShape, TableShape } from '../source';
import { tableKey } from '../source';
import type { SourceOrigin } from '../spi';
import { failed, passed } from '../checkResults';
import { TableEnvelope } from './envelope';

const UNBOUNDED =
  /\(max\)|^(text|ntext|image|xml|sql_variant|geography|geometry|hierarchyid|clob|blob|dbclob)\b/i;

/** The most bytes a column's value takes in an event's JSON; Infinity when its type has no bound. */
export function widestValue(c: ColumnShape): number {
  const type = c.sourceType.toLowerCase();
  if (UNBOUNDED.test(type)) return Infinity;
  const length = Number(/\((\d+)/.exec(type)?.[1] ?? 0);
  if (/binary|rowid/.test(type)) return Math.ceil(((length || 40) * 4) / 3) + 2;
  // Text: up to three UTF-8 bytes per character (SQL Server counts UTF-16 units; a pair is four bytes).
  if (/char|graphic|text/.test(type)) return (length || 1) * 3 + 2;
  // Numbers, dates, times, decimals as bytes or text: a few dozen bytes at most.
  return 64;
}

export function payloadChecks(
  shapes: readonly TableShape[],
  c: NatsConfiguration,
  origin: SourceOrigin,
  maxPayload: number,
): CheckResult[] {
  const over: string[] = [];
  const unbounded: string[] = [];
  for (const shape of shapes) {
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
    const frame = envelope.valueJson('u', null, null, {
      position: '',
      commitTime: undefined,
      snapshot: 'false',
      serial: 1,
    }).length;
    const row = shape.columns.reduce((n, col) => n + widestValue(col) + col.name.length + 4, 0);
    const widest = frame + 2 * row + 1024;
    const endless = shape.columns.filter((col) => widestValue(col) === Infinity).map((col) => col.name);
    if (endless.length > 0) unbounded.push(`${tableKey(shape.ref)} (${endless.join(', ')})`);
    else if (widest > maxPayload)
      over.push(`${tableKey(shape.ref)} (up to ${widest} bytes; widest: ${widestColumns(shape.columns)})`);
  }
  const fix =
    'Raise max_payload in nats-server.conf (up to 64 MB; 8 MB is a common ceiling), or leave the widest columns out of the entity. A row past it at run time is kept as an exception and its table waits.';
  if (over.length + unbounded.length === 0)
    return [
      passed(
        'message-size',
        `The largest event of every table fits the servers' max_payload of ${maxPayload} bytes.`,
      ),
    ];
  const message = [
    over.length > 0 &&
      `Events of ${over.join('; ')} can exceed the servers' max_payload of ${maxPayload} bytes.`,
    unbounded.length > 0 &&
      `Columns of ${unbounded.join('; ')} have no size bound: one large value makes an event past the servers' max_payload of ${maxPayload} bytes.`,
  ]
    .filter(Boolean)
    .join(' ');
  // A declared width past the limit fails; a column without a bound may never hold such a value: a warning.
  return over.length > 0
    ? [failed('message-size', message, fix)]
    : [{ id: 'message-size', status: 'warning', message, remedy: fix }];
}

const widestColumns = (columns: readonly ColumnShape[]) =>
  [...columns]
    .sort((a, b) => widestValue(b) - widestValue(a))
    .slice(0, 3)
    .map((c) => `${c.name} ${c.sourceType}`)
    .join(', ');
