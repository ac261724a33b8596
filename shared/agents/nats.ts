// The NATS JetStream target: each change as a Debezium change event on a stream (docs/nats-jetstream.md).
// Connection first (servers, TLS, one way to sign on), then the stream and the envelope.
import { z } from 'zod';
import {
  boolean,
  choice,
  integer,
  optionalSecret,
  optionalPatternText,
  optionalText,
  patternText,
} from '../config/fields';
import { section } from '../config/section';
import { connectionName, pipelineFields, START_AT_TIME } from './common';

/** Servers as `host:port` or `nats://`/`tls://` URLs, comma-separated. */
const SERVER = String.raw`\s*(?:(?:nats|tls)://)?[A-Za-z0-9.[\]:_-]+\s*`;
const SERVERS = new RegExp(`^${SERVER}(?:,${SERVER})*$`);

export const natsHostCredentials = section({
  id: 'hostCredentials',
  title: 'NATS connection',
  description:
    'How the runner reaches the JetStream cluster. Sign on with one of: user and password, a token, an NKey seed, or a credentials file.',
  schema: z.strictObject({
    connectionName,
    servers: patternText({
      label: 'Servers',
      help: "Comma-separated `host:port` (or nats:// / tls:// URLs) of the cluster's servers; the client tries each and follows the cluster's own list.",
      max: 2000,
      pattern: SERVERS,
      patternRule: 'comma-separated host:port or nats:// / tls:// URLs',
    }),
    tls: boolean({
      label: 'TLS',
      help: 'Require TLS to the servers. With a CA file, the servers are checked against it; otherwise against the system CAs.',
      default: false,
    }),
    tlsCaFile: optionalText({
      label: 'CA file',
      help: "A PEM file of the CA that signed the servers' certificates (implies TLS).",
      max: 4096,
    }),
    username: optionalText({ label: 'User', help: 'A NATS user, signed on with the password.', max: 256 }),
    password: optionalSecret({
      label: 'Password',
      help: "The user's password. Never shown in answers, logs or error messages.",
      max: 1024,
    }),
    token: optionalSecret({
      label: 'Token',
      help: 'An authentication token, instead of user and password.',
      max: 1024,
    }),
    nkeySeed: optionalSecret({
      label: 'NKey seed',
      help: 'A user NKey seed (SU…), instead of a password or token: the server knows its public key.',
      max: 256,
    }),
    credsFile: optionalText({
      label: 'Credentials file',
      help: 'A .creds file (a user JWT and its NKey seed, as `nsc` writes it), for a decentralized (operator) setup.',
      max: 4096,
    }),
  }),
});

export const NATS_STORAGE = ['file', 'memory'] as const;
export const DECIMAL_HANDLING = ['precise', 'string', 'double'] as const;
export type DecimalHandling = (typeof DECIMAL_HANDLING)[number];

/**
 * The shortest duplicate window the target accepts: it must cover a publish retried after its
 * acknowledgement was lost (the client's timeout, then the runner's retries with their waits).
 * Restarts do not need it: the target reads what it last published back from the stream.
 */
export const MIN_DUPLICATE_WINDOW_SECONDS = 120;

/** A NATS subject token as the target writes its own (the prefix): no dots, spaces or wildcards. */
const PREFIX = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** JetStream's stream names: no spaces, dots, wildcards or path separators. */
const STREAM = /^[A-Za-z0-9_-]+$/;

/** A stream sequence as `startAt` takes one (JetStream's sequences fit a JavaScript number). */
export const STREAM_SEQUENCE = /^[1-9]\d{0,14}$/;
const NATS_START_AT = new RegExp(`${STREAM_SEQUENCE.source}|${START_AT_TIME.source}`);

export const natsConfiguration = section({
  id: 'configuration',
  title: 'Stream and envelope',
  description: "Where the change events go, and how each is written (Debezium's JSON envelope).",
  schema: z.strictObject({
    stream: patternText({
      label: 'Stream',
      help: 'The JetStream stream, created when absent (its subjects: the prefix and everything under it); an existing one must take those subjects.',
      max: 255,
      pattern: STREAM,
      patternRule: 'letters, digits, _ and -',
      default: 'CDC',
    }),
    subjectPrefix: patternText({
      label: 'Subject prefix',
      help: "The first tokens of every subject, and Debezium's topic prefix (the `name` in each event's source): `<prefix>.<database>.<schema>.<table>` for SQL Server, `<prefix>.<library>.<file>` for IBM i.",
      max: 200,
      pattern: PREFIX,
      patternRule: 'tokens of letters, digits, _ and -, separated by dots',
      default: 'cdc',
    }),
    replicas: integer({
      label: 'Replicas',
      help: 'Copies of the stream across the cluster (a new stream): 3 survives the loss of one server.',
      min: 1,
      max: 5,
      default: 1,
    }),
    storage: choice({
      label: 'Storage',
      help: '"file": the stream survives a server restart. "memory": faster, lost with the server.',
      values: NATS_STORAGE,
      default: 'file',
    }),
    maxMegabytes: integer({
      label: 'Stream size limit (MiB)',
      help: 'The stream keeps at most this much, its oldest messages discarded first; 0: no limit. A consumer that falls behind the limit finds a gap.',
      min: 0,
      max: 100_000_000,
      default: 0,
    }),
    maxAgeHours: integer({
      label: 'Keep messages (hours)',
      help: 'Messages older than this are discarded; 0: kept until the size limit.',
      min: 0,
      max: 876_000,
      default: 0,
    }),
    duplicateWindowSeconds: integer({
      label: 'Duplicate window (seconds)',
      help: `How long JetStream remembers message ids to drop a re-sent one. At least ${MIN_DUPLICATE_WINDOW_SECONDS}: it only has to cover acknowledgements in flight, as a restart reads back what was published.`,
      min: MIN_DUPLICATE_WINDOW_SECONDS,
      max: 604_800,
      default: 300,
    }),
    includeSchema: boolean({
      label: 'Schema in each event',
      help: "Each event carries Kafka Connect's `schema` part beside its `payload` (JsonConverter with schemas.enable=true). Off: the payload alone.",
      default: true,
    }),
    decimalHandling: choice({
      label: 'Decimals',
      help: '"precise": Kafka Connect\'s Decimal (the unscaled value\'s bytes, base64, and its scale). "string": the exact digits as text. "double": a binary floating-point number (may round).',
      values: DECIMAL_HANDLING,
      default: 'precise',
    }),
    tombstones: boolean({
      label: 'Tombstones after deletes',
      help: 'A delete event is followed by a message with the same key and an empty body, so a compacting consumer forgets the key.',
      default: true,
    }),
    transactionEvents: boolean({
      label: 'Transaction events',
      help: 'BEGIN and END events of each source transaction on `<prefix>.transaction`, and each change event carries its transaction.',
      default: false,
    }),
    heartbeatSeconds: integer({
      label: 'Heartbeat (seconds)',
      help: 'A heartbeat on `<prefix>.heartbeat` this often, with the newest source position acknowledged, so consumers see the capture alive while the source is quiet; 0: none.',
      min: 0,
      max: 86_400,
      default: 0,
    }),
    maxPendingAcks: integer({
      label: 'Publishes in flight',
      help: 'Events sent before their acknowledgements are awaited: more is faster over a slow link, and more to re-send after a failure.',
      min: 1,
      max: 65_536,
      default: 2048,
    }),
    batchRows: integer({
      label: 'Rows per batch',
      help: 'As a target: the most changed rows published before the position moves (a whole source transaction is never split).',
      min: 1,
      max: 100_000,
      default: 10_000,
    }),
    sourceDatabase: optionalText({
      label: 'Source database (apply)',
      help: "As a source: the SQL Server database whose tables the stream carries (`<prefix>.<database>.<schema>.<table>`). Left out: the stream is IBM i's (`<prefix>.<library>.<file>`).",
      max: 128,
    }),
    leaseSeconds: integer({
      label: 'Table lease (seconds, apply)',
      help: "As a source: how long a table stays this engine's after it last renewed its lease; an engine that stops renewing loses its tables to another after this long.",
      min: 3,
      max: 3600,
      default: 15,
    }),
    startAt: optionalPatternText({
      label: 'Start at (apply)',
      help:
        'As a source, with snapshot mode "never": where tables without a position start: a stream sequence ' +
        '(that event the first applied), or a time (YYYY-MM-DD HH:MM:SS in UTC, as JetStream stamps ' +
        'messages, or with Z or an offset such as +01:00), from the first event at or after it. Left out: ' +
        "from each table's last copy on the stream. A point the stream no longer holds (its limits " +
        'discarded it) is refused with the first one it does.',
      max: 40,
      pattern: NATS_START_AT,
      patternRule: 'a stream sequence (digits) or a time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm]',
      group: 'advanced',
    }),
    stopAt: optionalPatternText({
      label: 'Stop at (apply)',
      help:
        'As a source: where the pipeline stops by itself, for a cut-over or the end of a replayed window: a ' +
        'stream sequence (that event the last applied) or a time (UTC without a zone; the events stamped at ' +
        'or before it). Once every table this engine holds has read up to it, the pipeline stops with a ' +
        'stop-point-reached event. Left out: it runs on.',
      max: 40,
      pattern: NATS_START_AT,
      patternRule: 'a stream sequence (digits) or a time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm]',
      group: 'advanced',
    }),
    ...pipelineFields,
  }),
});

export type NatsHostCredentials = z.output<typeof natsHostCredentials.schema>;
export type NatsConfiguration = z.output<typeof natsConfiguration.schema>;

/**
 * What the NATS target keeps in its stream after each batch's acknowledgements (on
 * `<prefix>.=checkpoint.<pipeline>`): the runner's checkpoint, each table's epoch (bumped by a copy,
 * so a copy's events never share an id with an earlier copy's), and the shapes told.
 */
export const natsCheckpointRecordSchema = z.strictObject({
  checkpoint: z.record(z.string(), z.string()),
  epochs: z.record(z.string(), z.number().int().min(0)),
  /** Each table's columns as last told in a schema change event (a digest): a change is told once. */
  shapes: z.record(z.string(), z.string()).default({}),
});
export type NatsCheckpointRecord = z.output<typeof natsCheckpointRecordSchema>;
