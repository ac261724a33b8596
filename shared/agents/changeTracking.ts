// The change-tracking agent: SQL Server read through Change Tracking.
import { z } from 'zod';
import {
  boolean,
  integer,
  optionalIdentifier,
  optionalPatternText,
  optionalText,
  text,
} from '../config/fields';
import { section } from '../config/section';
import {
  connectionName,
  host,
  maskSalt,
  maxConnectionsCount,
  password,
  pipelineFields,
  START_AT_TIME,
} from './common';

/** Why a table without a primary key cannot be chosen: said by the catalogue and the picker alike. */
export const CHANGE_TRACKING_KEYLESS =
  'No primary key: Change Tracking tracks only tables with one. Add a primary key at the source (ALTER TABLE … ADD PRIMARY KEY), then choose the table.';

export const changeTrackingHostCredentials = section({
  id: 'hostCredentials',
  title: 'Host credentials',
  description: 'How the agent reaches the SQL Server database.',
  schema: z.strictObject({
    connectionName,
    host,
    port: integer({
      label: 'Port',
      help: 'TCP port of the SQL Server instance.',
      min: 1,
      max: 65535,
      default: 1433,
    }),
    databaseName: text({ label: 'Database', help: 'Database name.', max: 128 }),
    username: text({ label: 'Login', help: 'Account with read/write access to the tables.', max: 128 }),
    password,
    maxConnectionsCount,
    maskSalt,
    enableTls: boolean({ label: 'Enable TLS', help: 'Enables TLS for the connection.', default: false }),
    certificatePath: optionalText({
      label: 'CA certificate file',
      help:
        'File path of the certificate used with TLS (a PEM CA file). When set, the server certificate is ' +
        'checked against it; when empty, against the system store. The file is read when the connection is tested.',
      max: 4096,
    }),
  }),
});

/** A change-tracking version as `startAt` takes one: CHANGE_TRACKING_CURRENT_VERSION() is a bigint. */
export const CT_VERSION = /^\d{1,19}$/;
const CT_START_AT = new RegExp(`${CT_VERSION.source}|${START_AT_TIME.source}`);

export const changeTrackingConfiguration = section({
  id: 'configuration',
  title: 'Agent settings',
  description: 'Settings specific to the change-tracking agent.',
  schema: z.strictObject({
    enableRecursionProtection: boolean({
      label: 'Recursion protection',
      help: 'Avoids recursion when two-way sync is configured on the same table.',
      default: false,
    }),
    temporaryTablePrefix: optionalIdentifier({
      label: 'Temporary table prefix',
      help:
        'Custom prefix of the temporary table the agent creates for performance. Allows several engine ' +
        'instances on one source without runtime conflicts.',
      max: 20,
    }),
    sourceChangeRetentionDays: integer({
      label: 'Source change retention (days)',
      help: "Number of days of changes kept in the database's change-tracking system.",
      min: 1,
      max: 365,
      default: 5,
    }),
    retentionWarningPercent: integer({
      label: 'Warn before retention (%)',
      help:
        "Warn when the oldest change a table still needs has less than this share of Change Tracking's " +
        'retention period left before auto cleanup removes it (the table would then be copied again).',
      min: 5,
      max: 95,
      default: 25,
    }),
    startAt: optionalPatternText({
      label: 'Start at',
      help:
        'Where tables without a position start, with snapshot mode "never": a change-tracking version (the ' +
        'changes committed after it, as CHANGETABLE(CHANGES …, version) reads them: the version a position ' +
        "shows), or a time (YYYY-MM-DD HH:MM:SS in the server's local time, or with Z or an offset such as " +
        '+01:00), from the first transaction committed at or after it (sys.dm_tran_commit_table, which needs ' +
        'VIEW SERVER STATE or VIEW SERVER PERFORMANCE STATE). Change Tracking keeps no history: each key ' +
        'changed since is applied with its current row. Left out: from the current version. A version older ' +
        "than a table's minimum valid version is refused with the earliest one.",
      max: 40,
      pattern: CT_START_AT,
      patternRule: 'a change-tracking version (digits) or a time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm]',
      group: 'advanced',
    }),
    stopAt: optionalPatternText({
      label: 'Stop at',
      help:
        'Where the pipeline stops by itself, for a cut-over or the end of a replayed window: a change-tracking ' +
        'version (nothing committed after it is read) or a commit time (YYYY-MM-DD HH:MM:SS in the ' +
        "server's local time, or with Z or an offset: nothing committed after it is read; needs VIEW SERVER " +
        'STATE). Once every table has read up to it the pipeline stops, with a stop-point-reached event. ' +
        'Change Tracking keeps no history: a key changed before the point and again after it is applied ' +
        'with its row as it is now. Left out: the pipeline runs on.',
      max: 40,
      pattern: CT_START_AT,
      patternRule: 'a change-tracking version (digits) or a time YYYY-MM-DD HH:MM:SS[.ffffff][Z|±hh:mm]',
      group: 'advanced',
    }),
    heartbeatSeconds: integer({
      label: 'Heartbeat (seconds)',
      help:
        'How often the agent writes its row in [SYNC].[CT_HEARTBEAT], a change-tracked table it creates at ' +
        'Start (a write you confirm, like the SYNC schema; it needs ALTER on the SYNC schema to enable Change ' +
        "Tracking on it). The heartbeat moves a quiet database's version, so the tables' positions follow, " +
        'and its commit at the target measures freshness while nothing else changes ("fresh to N s"). ' +
        '0: none, as before.',
      min: 0,
      max: 3_600,
      default: 0,
      group: 'advanced',
    }),
    ...pipelineFields,
  }),
});

export type ChangeTrackingHostCredentials = z.output<typeof changeTrackingHostCredentials.schema>;
export type ChangeTrackingConfiguration = z.output<typeof changeTrackingConfiguration.schema>;
