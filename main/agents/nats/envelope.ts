// One table's change events in Debezium's envelope (JSON converter): the key struct, and the value
// `{schema?, payload: {before, after, source, op, ts_ms, ts_us, ts_ns, transaction?}}`. The schema part
// is built once per table shape; each event builds only its payload.
import type { DecimalHandling } from '../../../shared/agents/nats';
import { keyPicker, type ColumnShape, type Row } from '../source';
import type { SourceOrigin } from '../spi';
import type { TargetTable } from '../target';
import { columnCodec, jsonText, type ColumnCodec, type FieldSchema, type Json } from './debeziumTypes';
import { tableSubject } from './subjects';

export interface EnvelopeOptions {
  /** Debezium's topic prefix: the `name` of each event's source, the first part of each schema name. */
  prefix: string;
  origin: SourceOrigin;
  includeSchema: boolean;
  decimalHandling: DecimalHandling;
  transactionEvents: boolean;
  /** This product's version, as Debezium writes its own in `source.version`. */
  version: string;
}

export type Op = 'c' | 'u' | 'd' | 'r' | 't';

/** Where the event comes from at the source: filled into `source` as each connector fills it. */
export interface EventSource {
  position: string;
  commitTime: Date | undefined;
  snapshot: 'true' | 'last' | 'false';
  /** Debezium's event_serial_no: 1, or 2 for the second event of one change (a key change's create). */
  serial: number;
  transaction?: { id: string; totalOrder: number; tableOrder: number };
}

const field = (name: string, schema: Omit<FieldSchema, 'optional'>, optional: boolean) => ({
  ...schema,
  optional,
  field: name,
});

/** The parameter that carries a column's exact source type: its events describe the table alone. */
export const SOURCE_TYPE_PARAMETER = '__cdc.source.type';

/**
 * A row field with its source type in its parameters: Debezium's column.propagate.source.type names
 * (type, length, scale), and our exact type, which the apply side creates the column from when the
 * stream's limits discarded the schema change event that told it.
 */
function rowField(column: ColumnShape, schema: Omit<FieldSchema, 'optional'>, optional: boolean) {
  const m = /^([^(]+)(?:\((\w+)(?:\s*,\s*(\d+))?\))?/.exec(column.sourceType.trim());
  const parameters: Record<string, string> = {
    ...schema.parameters,
    '__debezium.source.column.type': (m?.[1] ?? column.sourceType).trim().toUpperCase(),
    ...(m?.[2] !== undefined && { '__debezium.source.column.length': m[2] }),
    ...(m?.[3] !== undefined && { '__debezium.source.column.scale': m[3] }),
    [SOURCE_TYPE_PARAMETER]: column.sourceType,
  };
  return field(column.name, { ...schema, parameters }, optional);
}

const TRANSACTION_SCHEMA = {
  type: 'struct',
  name: 'event.block',
  version: 1,
  optional: true,
  field: 'transaction',
  fields: [
    { type: 'string', optional: false, field: 'id' },
    { type: 'int64', optional: false, field: 'total_order' },
    { type: 'int64', optional: false, field: 'data_collection_order' },
  ],
} as const;

const str = (name: string, optional = false) => ({ type: 'string', optional, field: name }) as const;
const i64 = (name: string, optional = true) => ({ type: 'int64', optional, field: name }) as const;

/** The fields of `source` each connector fills; IBM i's last four are ours (docs/nats-jetstream.md). */
function sourceSchema(connector: SourceOrigin['connector']) {
  const common = [
    str('version'),
    str('connector'),
    str('name'),
    i64('ts_ms', false),
    i64('ts_us'),
    i64('ts_ns'),
    {
      type: 'string',
      optional: true,
      name: 'io.debezium.data.Enum',
      version: 1,
      parameters: { allowed: 'true,last,false' },
      default: 'false',
      field: 'snapshot',
    },
    str('db'),
    str('sequence', true),
    str('schema'),
    str('table'),
  ];
  const own =
    connector === 'sqlserver'
      ? [str('change_lsn', true), str('commit_lsn', true), i64('event_serial_no')]
      : [
          str('receiver', true),
          str('receiver_library', true),
          str('event_sequence', true),
          str('time', true),
        ];
  return {
    type: 'struct',
    name:
      connector === 'sqlserver'
        ? 'io.debezium.connector.sqlserver.Source'
        : 'io.debezium.connector.ibmi.Source',
    optional: false,
    field: 'source',
    fields: [...common, ...own],
  };
}

/** A journal position `LIBRARY/RECEIVER/SEQUENCE` (the applied one, after a `>`), or null. */
function journalParts(position: string) {
  const m = /([^/>]+)\/([^/>]+)\/(\d+)$/.exec(position);
  return m ? { library: m[1] as string, receiver: m[2] as string, sequence: m[3] as string } : null;
}

export class TableEnvelope {
  /** The table's name parts after the prefix: database, schema, table (SQL Server) or library, file. */
  readonly parts: readonly string[];
  readonly topic: string;
  /** Its NATS subject: the prefix, then each part escaped (subjects.ts). */
  readonly subject: string;
  /** A row's key columns alone. */
  readonly keyOf: (row: Row) => Row;
  private readonly codecs: { column: ColumnShape; codec: ColumnCodec }[];
  private readonly keyCodecs: { column: ColumnShape; codec: ColumnCodec }[];
  private readonly keySchema: Json;
  private readonly valueSchema: Json;

  constructor(
    readonly table: TargetTable,
    readonly ref: { schema: string; table: string },
    private readonly o: EnvelopeOptions,
    /** The source keeps no old values (Change Tracking): `before` of a delete holds the key alone. */
    keyOnlyBefore: boolean,
  ) {
    this.parts =
      o.origin.database === null ? [ref.schema, ref.table] : [o.origin.database, ref.schema, ref.table];
    this.topic = [o.prefix, ...this.parts].join('.');
    this.subject = tableSubject(o.prefix, this.parts);
    this.keyOf = keyPicker(table.key);
    this.codecs = table.columns.map((column) => ({ column, codec: columnCodec(column, o.decimalHandling) }));
    this.keyCodecs = this.codecs.filter((c) => table.key.includes(c.column.name));
    const rowFields = this.codecs.map(({ column, codec }) =>
      rowField(column, codec.schema, column.nullable || (keyOnlyBefore && !table.key.includes(column.name))),
    );
    this.keySchema = {
      type: 'struct',
      name: `${this.topic}.Key`,
      optional: false,
      fields: this.keyCodecs.map(({ column, codec }) => field(column.name, codec.schema, false)),
    } as unknown as Json;
    const row = (name: string) => ({
      type: 'struct',
      name: `${this.topic}.Value`,
      optional: true,
      field: name,
      fields: rowFields,
    });
    this.valueSchema = {
      type: 'struct',
      name: `${this.topic}.Envelope`,
      version: 2,
      optional: false,
      fields: [
        row('before'),
        row('after'),
        sourceSchema(o.origin.connector),
        str('op'),
        i64('ts_ms'),
        i64('ts_us'),
        i64('ts_ns'),
        ...(o.transactionEvents ? [TRANSACTION_SCHEMA] : []),
      ],
    } as unknown as Json;
  }

  /** The options it writes events with (prefix, origin…). */
  get options(): EnvelopeOptions {
    return this.o;
  }

  /** The key's JSON, as Kafka's message key would be: with its schema unless schemas are off. */
  keyJson(key: Row, ascii = false): string {
    const payload: Record<string, Json> = {};
    for (const { column, codec } of this.keyCodecs) {
      const v = key[column.name];
      payload[column.name] = v === null || v === undefined ? null : codec.encode(v);
    }
    if (!this.o.includeSchema) return jsonText(payload, ascii);
    // The schema part is the same for every event of the table: written once, not per event.
    const schema = ascii
      ? (this.keySchemaAscii ??= jsonText(this.keySchema, true))
      : (this.keySchemaText ??= jsonText(this.keySchema));
    return `{"schema":${schema},"payload":${jsonText(payload, ascii)}}`;
  }

  private keySchemaText: string | undefined;
  private keySchemaAscii: string | undefined;
  private valueSchemaText: string | undefined;

  private rowJson(row: Row | null, only?: readonly string[]): Json {
    if (!row) return null;
    const out: Record<string, Json> = {};
    for (const { column, codec } of this.codecs) {
      const v = row[column.name];
      out[column.name] =
        v === null || v === undefined || (only && !only.includes(column.name)) ? null : codec.encode(v);
    }
    return out;
  }

  /** The event's value as JSON text. `before` of a key-only source's delete: its key columns. */
  valueJson(op: Op, before: Row | null, after: Row | null, at: EventSource, keyOnly = false): string {
    const now = Date.now();
    const nowNs = BigInt(now) * 1_000_000n;
    const sourceTime = at.commitTime?.getTime() ?? now;
    const payload: Record<string, Json> = {
      before: this.rowJson(before, keyOnly ? this.table.key : undefined),
      after: this.rowJson(after),
      source: this.sourceJson(at, sourceTime),
      op,
      ts_ms: now,
      ts_us: nowNs / 1000n,
      ts_ns: nowNs,
    };
    if (this.o.transactionEvents)
      payload.transaction = at.transaction
        ? {
            id: at.transaction.id,
            total_order: at.transaction.totalOrder,
            data_collection_order: at.transaction.tableOrder,
          }
        : null;
    if (!this.o.includeSchema) return jsonText(payload);
    this.valueSchemaText ??= jsonText(this.valueSchema);
    return `{"schema":${this.valueSchemaText},"payload":${jsonText(payload)}}`;
  }

  private sourceJson(at: EventSource, ms: number): Json {
    const ns = BigInt(ms) * 1_000_000n;
    const common: Record<string, Json> = {
      version: this.o.version,
      connector: this.o.origin.connector,
      name: this.o.prefix,
      ts_ms: ms,
      ts_us: ns / 1000n,
      ts_ns: ns,
      snapshot: at.snapshot,
      db: this.o.origin.database ?? this.o.origin.server,
      sequence: null,
      schema: this.ref.schema,
      table: this.ref.table,
    };
    if (this.o.origin.connector === 'sqlserver')
      // Change Tracking has no LSN: its version is the position, told in both fields.
      return { ...common, change_lsn: at.position, commit_lsn: at.position, event_serial_no: at.serial };
    const j = journalParts(at.position);
    return {
      ...common,
      receiver: j?.receiver ?? null,
      receiver_library: j?.library ?? null,
      event_sequence: j?.sequence ?? null,
      time: at.commitTime ? at.commitTime.toISOString() : null,
    };
  }
}
