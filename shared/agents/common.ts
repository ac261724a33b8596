// Fields declared once for several agent types: the host-credential fields the sources and targets
// share (source-agents.md, decisions.md "Required fields"), and the pipeline's own settings
// (pipelineFields: copies, a table's failures, schema changes, dropped tables). Those live in the
// source agent's configuration, since a pipeline has exactly one source and the runner runs with it;
// every source type spreads pipelineFields into its configuration, and the runner reads them with
// pipelineSettings (docs/runner.md, "Where the pipeline's settings live").
import { z } from 'zod';
import { choice, integer, optionalIdentifier, optionalSecret, secret, text } from '../config/fields';

export const connectionName = text({
  label: 'Connection name',
  help: 'Nickname of the agent connection.',
  max: 128,
});

export const host = text({
  label: 'Host',
  help: 'DNS name or IP address of the server.',
  max: 253,
  noSpaces: true,
});

export const password = secret({
  label: 'Password',
  help: 'Password of that account. Never shown in answers, logs or error messages.',
  max: 128,
});

/**
 * The key of the hash mask (docs/shaping.md): a secret like the password, sealed, never answered,
 * exported or logged. A source's; its pipeline's hashed columns need it.
 */
export const maskSalt = optionalSecret({
  label: 'Mask salt',
  help: 'Secret key of the hash mask: a hashed column holds HMAC-SHA-256 of its value with this key, so the same value hashes alike in every table and no one without the key can hash a guess. Needed only when a table hashes a column; changing it changes every hashed value. Never shown in answers, logs or error messages.',
  max: 256,
  group: 'advanced',
});

export const maxConnectionsCount = integer({
  label: 'Max connections',
  help: 'Maximum number of connections the pool can create.',
  min: 1,
  max: 100,
  default: 10,
});

// How a pipeline's tables get their first rows (the source agent's settings are the pipeline's).
export const SNAPSHOT_MODES = ['initial', 'never', 'when-needed'] as const;
export const snapshotMode = choice({
  label: 'Snapshot mode',
  help:
    '"initial": each table is copied first, then its changes follow. "never": tables start from the ' +
    'current position without a copy (a target already loaded); a lost position stops the pipeline. ' +
    '"when-needed": no first copy, but a table whose position is lost (retention, a deleted receiver) is ' +
    'copied again. A re-snapshot asked for by hand is done in every mode.',
  values: SNAPSHOT_MODES,
  default: 'initial',
});

/** A time as a source's `startAt` takes one, on the source's clock or with a zone. */
export const START_AT_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})?$/;

export const snapshotChunkRows = integer({
  label: 'Snapshot chunk (rows)',
  help:
    'Rows per chunk of a table copy: each chunk is one read at the source and one commit at the target, ' +
    'so a restart re-reads at most one chunk per table. A table of wide rows is read in fewer rows, so a ' +
    'chunk holds about 32 MiB at most.',
  min: 100,
  max: 100_000,
  default: 10_000,
});
export type SnapshotMode = (typeof SNAPSHOT_MODES)[number];

// What becomes of a target column whose source column is dropped (ALTER TABLE … DROP COLUMN).
export const DROPPED_COLUMN_CHOICES = ['keep', 'drop'] as const;
export const droppedColumns = choice({
  label: 'Dropped columns',
  help:
    'When a column is dropped at the source: "keep" leaves it at the target, made nullable, with the ' +
    'values it had (rows inserted from then on leave it null); "drop" drops it at the target too.',
  values: DROPPED_COLUMN_CHOICES,
  default: 'keep',
});
export type DroppedColumns = (typeof DROPPED_COLUMN_CHOICES)[number];

// What a failure of one table's own does: that table waits, or the whole pipeline stops.
export const TABLE_ERROR_CHOICES = ['suspend-table', 'stop-pipeline'] as const;
export const onTableError = choice({
  label: 'When one table fails',
  help:
    'When the target refuses a table (not only some of its rows) or the source cannot read one table: ' +
    '"suspend-table" suspends that table alone, with its reason, and every other table goes on; its ' +
    'changes wait at its own position until it is resumed (a source transaction that also touched it is ' +
    'applied without its part, which follows on resume). "stop-pipeline" stops the whole pipeline ' +
    'instead, keeping transactions whole across tables, and keeps no row aside.',
  values: TABLE_ERROR_CHOICES,
  default: 'suspend-table',
});
export type OnTableError = (typeof TABLE_ERROR_CHOICES)[number];

// What becomes of a column added or dropped at the source (ALTER TABLE, CHGPF), as Airbyte and Fivetran offer.
export const SCHEMA_CHANGE_CHOICES = [
  'propagate',
  'add-columns-only',
  'ignore-new-columns',
  'suspend-table',
] as const;
export const schemaChanges = choice({
  label: 'Schema changes',
  help:
    'When columns are added or dropped at the source: "propagate" alters the target to match (a dropped ' +
    'column as "Dropped columns" says); "add-columns-only" adds new columns and keeps dropped ones ' +
    '(nullable, their values kept); "ignore-new-columns" leaves new columns out of the target and keeps ' +
    'dropped ones; "suspend-table" suspends the table for review — resumed, the change is propagated. ' +
    'A table may have its own, chosen in the table picker. Each change applied or withheld is told ' +
    'in an event.',
  values: SCHEMA_CHANGE_CHOICES,
  default: 'propagate',
});
export type SchemaChanges = (typeof SCHEMA_CHANGE_CHOICES)[number];

// What a table dropped at the source (DROP TABLE, DLTF: the journal's D DT) does at the target.
export const DROPPED_TABLE_CHOICES = ['keep', 'drop', 'suspend'] as const;
export const droppedTables = choice({
  label: 'Dropped tables',
  help:
    'When a table is dropped (or renamed) at the source, its replication stops and the other tables go ' +
    'on. "keep" keeps the target table as it was; "drop" drops it at the target too; "suspend" keeps it ' +
    'and suspends the table, so it is counted and rings as suspended until copied again.',
  values: DROPPED_TABLE_CHOICES,
  default: 'keep',
});
export type DroppedTables = (typeof DROPPED_TABLE_CHOICES)[number];

export const maxExceptions = integer({
  label: 'Rows kept aside per table',
  help:
    "A row the target refuses (a value its column cannot hold, a constraint) is kept in the engine's " +
    'exceptions store with its reason, and its table goes on. Once more rows than this of one table are ' +
    'kept, the table is suspended: so many refusals mean a cause to fix, not a stray row. 0 suspends ' +
    'the table at its first refused row (the row is still kept).',
  min: 0,
  max: 1_000_000,
  default: 1000,
});

/** The pipeline settings every source agent type declares in its configuration (copies, schema changes). */
/** A provenance column (docs/shaping.md): named by the DBA, left out when not named. */
export const provenanceColumn = (label: string, help: string) =>
  optionalIdentifier({ label, help: `${help} Left out: no such column.`, max: 63, group: 'advanced' });

/** Provenance every source can give: who wrote each row is the journal agent's own (journal.ts). */
export const provenanceFields = {
  provenanceOperation: provenanceColumn(
    'Operation column',
    'Target column holding what wrote each row: insert or update (a change), copy (a table copy) or read (read again by key: a kept row retried, a repair).',
  ),
  provenanceCommitTime: provenanceColumn(
    'Commit time column',
    "Target column holding when the source committed the row's change (UTC). SQL Server: from sys.dm_tran_commit_table, null when the login may not read it (VIEW SERVER STATE); IBM i: the journal entry's time. Null for copied rows.",
  ),
  provenancePosition: provenanceColumn(
    'Source position column',
    "Target column holding the source position of the row's change: a Change Tracking version, or the journal receiver and sequence (LIBRARY/RECEIVER/SEQUENCE). Null for copied rows.",
  ),
  provenanceTransaction: provenanceColumn(
    'Transaction column',
    "Target column holding the source transaction of the row's change: its Change Tracking version, or the journal commit cycle. Null for an IBM i change outside commitment control (its own transaction) and for copied rows.",
  ),
};

export const pipelineFields = {
  ...provenanceFields,
  snapshotMode,
  snapshotChunkRows,
  droppedColumns,
  onTableError,
  maxExceptions,
  schemaChanges,
  droppedTables,
};

/** The pipeline settings out of a source agent's configuration (either type), defaults filled. */
export const pipelineSettings = z.object(pipelineFields);
