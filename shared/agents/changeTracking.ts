// The change-tracking agent: SQL Server read through Change Tracking.
import { z } from 'zod';
import { boolean, integer, optionalIdentifier, optionalText, text } from '../config/fields';
import { section } from '../config/section';
import { connectionName, host, maskSalt, maxConnectionsCount, password, pipelineFields } from './common';

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
    ...pipelineFields,
  }),
});

export type ChangeTrackingHostCredentials = z.output<typeof changeTrackingHostCredentials.schema>;
export type ChangeTrackingConfiguration = z.output<typeof changeTrackingConfiguration.schema>;
