// Target agents of the local replication runner: where a pipeline's rows go. They are configured with
// the same two steps as the source agents (hostCredentials, then configuration).
import { z } from 'zod';
import { choice, integer, optionalIdentifier, optionalText, text } from '../config/fields';
import { section } from '../config/section';
import { connectionName, host, maxConnectionsCount, password } from './common';

const batchRows = integer({
  label: 'Rows per batch',
  help: 'The most changed rows applied in one target transaction (a whole source transaction is never split).',
  min: 1,
  max: 100_000,
  default: 10_000,
});

export const sqliteHostCredentials = section({
  id: 'hostCredentials',
  title: 'SQLite file',
  description: 'Where the replica is written.',
  schema: z.strictObject({
    connectionName,
    path: optionalText({
      label: 'File path',
      help: "The replica's SQLite file. Left out: <data folder>/replicas/<pipeline id>.sqlite.",
      max: 4096,
    }),
  }),
});

export const sqliteConfiguration = section({
  id: 'configuration',
  title: 'Target settings',
  description: 'How changes are written.',
  schema: z.strictObject({ batchRows }),
});

export const postgresqlHostCredentials = section({
  id: 'hostCredentials',
  title: 'PostgreSQL connection',
  description: 'How the runner reaches the PostgreSQL database.',
  schema: z.strictObject({
    connectionName,
    host,
    port: integer({
      label: 'Port',
      help: 'TCP port of the PostgreSQL server.',
      min: 1,
      max: 65535,
      default: 5432,
    }),
    databaseName: text({ label: 'Database', help: 'Database name.', max: 63 }),
    username: text({ label: 'User', help: 'A role that may create tables in the schema.', max: 63 }),
    password,
    maxConnectionsCount,
  }),
});

// How a PostgreSQL target keeps times it cannot hold natively (microseconds at most, no offset).
export const PRECISE_TIME_CHOICES = ['native', 'text'] as const;
const preciseTimes = choice({
  label: 'Times past the microsecond, and offsets',
  help:
    'PostgreSQL keeps microseconds and no time zone offset. "native": datetime2(7), time(7) and IBM i ' +
    'TIMESTAMP(7..12) columns are timestamp/time, cut to the microsecond, and datetimeoffset is ' +
    'timestamptz (the instant, its offset not kept). "text": those columns are text holding the exact ' +
    'value in ISO 8601, every fraction digit and the offset kept.',
  values: PRECISE_TIME_CHOICES,
  default: 'native',
});
export type PreciseTimes = (typeof PRECISE_TIME_CHOICES)[number];

/** What a U+0000 in text becomes at PostgreSQL, whose text types cannot hold it. */
export const NUL_CHOICES = ['keep-row-aside', 'U+FFFD', 'space', 'remove'] as const;
export type NulCharacter = (typeof NUL_CHOICES)[number];
const nulCharacter = choice({
  label: 'U+0000 in text',
  help:
    'PostgreSQL text cannot hold the character U+0000, which SQL Server and IBM i text may. ' +
    '"keep-row-aside": such a row is kept in the exceptions store and its table goes on. "U+FFFD" ' +
    '(the replacement character), "space" or "remove": the row is written with U+0000 replaced so; each ' +
    'replacement is counted in an event.',
  values: NUL_CHOICES,
  default: 'keep-row-aside',
});

export const postgresqlConfiguration = section({
  id: 'configuration',
  title: 'Target settings',
  description: 'Where and how changes are written.',
  schema: z.strictObject({
    schema: optionalIdentifier({
      label: 'Schema',
      help: 'The schema the tables are created in (created when absent). Left out: public.',
      max: 63,
    }),
    batchRows,
    preciseTimes,
    nulCharacter,
  }),
});

export type SqliteHostCredentials = z.output<typeof sqliteHostCredentials.schema>;
export type SqliteConfiguration = z.output<typeof sqliteConfiguration.schema>;
export type PostgresqlHostCredentials = z.output<typeof postgresqlHostCredentials.schema>;
export type PostgresqlConfiguration = z.output<typeof postgresqlConfiguration.schema>;
