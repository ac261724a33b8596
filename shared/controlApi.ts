// The control API of a sync engine: resources, bodies and problem+json (source-agents.md, decisions.md).
// The local engine serves it; the app's client speaks it to any engine. Both parse with these schemas.
import { z } from 'zod';
import { agentTypeSchema } from './agents';
import { IBMI_NAME } from './config/fields';
import { SCHEMA_CHANGE_CHOICES } from './agents/common';
import { TEXT_ORDER_CHOICES } from './agents/journal';
import {
  columnShapingSchema,
  rowFilterSchema,
  shardSchema,
  skipOperationsSchema,
  tableModeSchema,
} from './shaping';
import { sqlNameSchema } from './sqlName';
import { ibmiFold } from './names';

export const DEFAULT_ENGINE_URL = 'http://127.0.0.1:1717';

/** Pipeline and agent ids: chosen by the caller or generated; safe in a URL path as they are. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const ID_RULE =
  '1 to 63 characters of a to z, 0 to 9, _ or -, starting with a lower-case letter or a digit';
export const idSchema = z.string().regex(ID_PATTERN, { message: `must be ${ID_RULE}` });

export const agentRoleSchema = z.enum(['source', 'target']);
/**
 * decisions.md: `new` → `configured` (both PUTs done) → `running` ⇄ `paused`; `running` or `paused` →
 * `stopped` (by Stop) → `running`; `failed` from any.
 */
export const agentStateSchema = z.enum(['new', 'configured', 'running', 'paused', 'stopped', 'failed']);
export type AgentState = z.infer<typeof agentStateSchema>;

const timestamp = z.string();

export const pipelineSchema = z.object({
  id: idSchema,
  name: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Pipeline = z.infer<typeof pipelineSchema>;

export const agentSchema = z.object({
  id: idSchema,
  pipelineId: idSchema,
  name: z.string(),
  type: agentTypeSchema,
  role: agentRoleSchema,
  state: agentStateSchema,
  failureReason: z.string().nullable(),
  /** Secrets redacted: `"password": null, "passwordSet": true`. Null until the first credentials PUT. */
  hostCredentials: z.record(z.string(), z.unknown()).nullable(),
  configuration: z.record(z.string(), z.unknown()).nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Agent = z.infer<typeof agentSchema>;

/** A name people read (a pipeline's, an agent's): any text, 1 to 128 characters. */
export const displayNameSchema = z.string().min(1).max(128);
const name = displayNameSchema;

export const createPipelineBodySchema = z.strictObject({ id: idSchema.optional(), name });
export const createAgentBodySchema = z.strictObject({
  id: idSchema.optional(),
  name: name.optional(),
  type: agentTypeSchema,
  role: agentRoleSchema,
});

const sqlName = sqlNameSchema;
const ibmiName = z.string().regex(IBMI_NAME).overwrite(ibmiFold);

export const rowIdentificationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('primaryKey') }),
  /** A logical key: any columns, all of the table's allowed when nothing else is unique. */
  z.strictObject({ kind: z.literal('logicalKey'), columns: z.array(sqlName).min(1).max(1000) }),
  /** The relative record number: allowed, warned against (a reorganisation renumbers rows). */
  z.strictObject({ kind: z.literal('rrn') }),
]);

/**
 * What a value of one column the source cannot decode becomes: kept aside with its row, null, zero (a
 * decimal column), the earliest value or this date `YYYY-MM-DD` (a date or timestamp column), or text
 * with U+FFFD for each byte sequence its CCSID has no character for (`replace`, a character column).
 */
export const invalidValueSchema = z.union([
  z.enum(['keep-row-aside', 'null', 'zero', 'earliest', 'replace']),
  z.iso.date(),
]);
export type InvalidValue = z.infer<typeof invalidValueSchema>;

/** A CCSID an entity names: 1 to 65534 (65535 is no character set). */
export const ccsidSchema = z.number().int().min(1).max(65534);
/** One CCSID for a file's CHAR and VARCHAR columns, or a CCSID per column (docs/journal-agent.md). */
export const forceCcsidSchema = z.union([ccsidSchema, z.record(sqlName, ccsidSchema)]);
const textOrderChoice = z.enum(TEXT_ORDER_CHOICES);
/** One text order for a file's 420 and 424 columns, or one per column. */
export const textOrderSchema = z.union([textOrderChoice, z.record(sqlName, textOrderChoice)]);

export const entitySchema = z.strictObject({
  source: z.strictObject({ schema: sqlName, table: sqlName }),
  target: z.strictObject({ schema: sqlName.optional(), table: sqlName }),
  rowIdentification: rowIdentificationSchema.default({ kind: 'primaryKey' }),
  /** Optional column selection; all columns when left out. */
  columns: z.array(sqlName).min(1).max(1000).optional(),
  /** Journal agent only: overrides the journal detected for the file. */
  journal: z.strictObject({ library: ibmiName, name: ibmiName }).optional(),
  /**
   * Journal agent only: the members to replicate of a file of several, all when left out. The member
   * leads each row's key either way.
   */
  members: z.array(ibmiName).min(1).max(1000).optional(),
  /** This table's schema-change policy, over the pipeline's (the schemaChanges setting). */
  schemaChanges: z.enum(SCHEMA_CHANGE_CHOICES).optional(),
  /**
   * Journal agent only: per column, what a value that cannot be decoded becomes (blanks in a packed or
   * zoned field, a legacy date such as 00/00/00), over the invalidDecimals and invalidDates settings.
   */
  invalidValues: z.record(sqlName, invalidValueSchema).optional(),
  /**
   * Journal agent only: the CCSID the file's text is really in, over the CCSID the file tags it with
   * (65535, or the wrong one): one CCSID for every CHAR and VARCHAR column (FOR BIT DATA included), or
   * a CCSID per column. docs/journal-agent.md, "CCSID overrides".
   */
  forceCcsid: forceCcsidSchema.optional(),
  /**
   * Journal agent only: the order CCSID 420 and 424 text reaches the target in, over the textOrder
   * setting: one for the file's columns, or one per column. docs/journal-agent.md, "Arabic and Hebrew".
   */
  textOrder: textOrderSchema.optional(),
  /** Per source column: a mask and a target name (docs/shaping.md). */
  columnShaping: z.record(sqlName, columnShapingSchema).optional(),
  /** Only the rows this holds true for reach the target (docs/shaping.md, "Row filters"). */
  rowFilter: rowFilterSchema.optional(),
  /** The source's operations the target never sees: `delete` keeps every row ever replicated. */
  skipOperations: skipOperationsSchema.optional(),
  /**
   * `live` (the default), `softDelete` (a delete flags the row at the target) or `history` (a row per
   * version, valid from and to): docs/shaping.md.
   */
  tableMode: tableModeSchema.optional(),
  /**
   * A member of a shard: entities of one pipeline declaring the same `column` (and each its own
   * `value`) may write one target table, which no other entity may (docs/spec/decisions.md).
   */
  shard: shardSchema.optional(),
});
export type Entity = z.infer<typeof entitySchema>;

/** An entity's row identification in words: `primary key`, `logical key (A, B)`, `RRN`. */
export function rowIdentificationText(e: Entity): string {
  const id = e.rowIdentification;
  return id.kind === 'primaryKey'
    ? 'primary key'
    : id.kind === 'rrn'
      ? 'RRN'
      : `logical key (${id.columns.join(', ')})`;
}
export const entitiesBodySchema = z.strictObject({ entities: z.array(entitySchema).max(10_000) });

export const checkResultSchema = z.object({
  id: z.string(),
  /**
   * `unchecked`: the check could not run (a permission it needs is missing, the database answered an
   * error); counted apart from `failed`, its cause said once for every check it stopped.
   */
  status: z.enum(['passed', 'failed', 'warning', 'unchecked']),
  message: z.string(),
  remedy: z.string().nullable(),
  /** The exact SQL or CL command that fixes it, when there is one. */
  fix: z.string().nullable().optional(),
  /**
   * What the agent itself will run at Start because of this (the spec's "created if absent"): checks
   * only read, so the write is said here, and again by the app's Start confirmation.
   */
  atStart: z.string().nullable().optional(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

/**
 * POST …/config/validate: both settings objects, checked as the two PUTs would check them and not
 * stored. `type` and `role` are for an agent that does not exist yet (as POST …/agents takes them);
 * `signOn` also signs on with the credentials and off again.
 */
export const validateConfigBodySchema = z.strictObject({
  type: agentTypeSchema.optional(),
  role: agentRoleSchema.optional(),
  hostCredentials: z.unknown(),
  configuration: z.unknown(),
  signOn: z.boolean().optional(),
});
export const validateConfigAnswerSchema = z.object({
  /** Whether the agent exists; false when the answer is for the type and role given. */
  exists: z.boolean(),
  /** The credentials as they would be stored, their secrets left out. */
  hostCredentials: z.record(z.string(), z.unknown()),
  configuration: z.record(z.string(), z.unknown()),
  /** The sign-on's result when asked for; null otherwise. */
  signOn: checkResultSchema.nullable(),
});
export const testAnswerSchema = z.object({
  agentId: idSchema,
  checkedAt: timestamp,
  checks: z.array(checkResultSchema),
});

/** One entity's source table as the source sees it: the table view of the Pipelines screen. */
export const tableStateSchema = z.object({
  /** `schema.table` as the entity writes it. */
  table: z.string(),
  exists: z.boolean(),
  /** How the entity identifies rows: `primary key`, `logical key (A, B)` or `RRN`. */
  rowIdentification: z.string(),
  /** The table's primary key in the catalogue; empty when it has none. */
  primaryKey: z.array(z.string()),
  /** Change tracking: whether the table is tracked; null for other agents. */
  changeTracking: z.boolean().nullable(),
  /** Journal: `*BOTH`, `*AFTER`, or null when not journaled (or another agent). */
  journalImages: z.string().nullable(),
  /** Journal: `LIBRARY/JOURNAL`, or null. */
  journal: z.string().nullable(),
  /** What stops the agent from reading it, if anything. */
  problem: z.string().nullable(),
});
export type TableState = z.infer<typeof tableStateSchema>;
/** What the pipeline applied of a source table: changes committed at the target since `activitySince`. */
export const tableActivitySchema = z.object({
  table: z.string(),
  inserts: z.number().int(),
  updates: z.number().int(),
  deletes: z.number().int(),
  /** When the last batch with changes of the table was committed, among the events kept; null: none. */
  lastChangeAt: timestamp.nullable(),
});
export type TableActivity = z.infer<typeof tableActivitySchema>;
/** Which entity tables' columns to describe (a table's story in the app). */
export const columnsQuerySchema = z.strictObject({
  tables: z.array(z.string().min(1).max(300)).min(1).max(100),
  /**
   * Also read this many of each table's first rows, shaped as the target gets them (masked, renamed,
   * filtered): a read of production, so asked for one table at a time, on demand.
   */
  sampleRows: z.number().int().min(1).max(20).optional(),
});
export const tableColumnsSchema = z.object({
  /** `schema.table` as the entity writes it. */
  table: z.string(),
  targetTable: z.string(),
  columns: z.array(
    z.object({
      name: z.string(),
      sourceType: z.string(),
      nullable: z.boolean(),
      /** Part of the row's identification. */
      key: z.boolean(),
      /** The type the pipeline's target declares for it; null when the target type cannot say. */
      targetType: z.string().nullable(),
      /** Its name at the target (its entity may rename it); null when the entity leaves it out. */
      targetName: z.string().nullable(),
      /** Its mask in words (docs/shaping.md); null when its values go as they are. */
      mask: z.string().nullable(),
    }),
  ),
  /** Columns the runner adds to every row (provenance, docs/shaping.md), with their target types. */
  added: z.array(z.object({ name: z.string(), targetType: z.string().nullable() })),
  /** The entity's row filter, and whether it skips the source's deletes. */
  rowFilter: z.string().nullable(),
  skipsDeletes: z.boolean(),
  /** The table's mode in words (soft delete, history); null when live. */
  mode: z.string().nullable(),
  /** The CCSID the entity forces over the file's tags (journal agent); null when the tags are read. */
  forceCcsid: forceCcsidSchema.nullable(),
  /** The order the entity's 420 and 424 text reaches the target in, over the source's; null when the source's. */
  textOrder: textOrderSchema.nullable(),
  /** Why the entity's shaping does not fit the table (it is held at Start); null when it fits. */
  shapingProblem: z.string().nullable(),
  /**
   * With `sampleRows`: the table's first rows as the target gets them, each value as text (bytes in
   * hex), under the target's column names; null when not asked, or when the shaping does not fit.
   * `read` is how many rows the source answered for them (the filter refused the others).
   */
  sample: z
    .object({
      columns: z.array(z.string()),
      rows: z.array(z.array(z.string().nullable())),
      read: z.number().int(),
    })
    .nullable(),
});
export const columnsAnswerSchema = z.object({
  agentId: idSchema,
  /** The target's type (the default SQLite file when the pipeline has no target agent). */
  targetType: z.string(),
  tables: z.array(tableColumnsSchema),
  /** Tables asked for that are not the pipeline's, or that the source does not hold. */
  missing: z.array(z.string()),
});
export type ColumnsAnswer = z.infer<typeof columnsAnswerSchema>;

export const tablesAnswerSchema = z.object({
  agentId: idSchema,
  checkedAt: timestamp,
  tables: z.array(tableStateSchema),
  /** Per table the pipeline applied changes of (the last hour's counts; the last change of any age). */
  activity: z.array(tableActivitySchema),
  activitySince: timestamp,
});

/**
 * A search of the source's catalogue, for choosing tables: a page at a time, in (schema, table) order
 * after `after` (the last table of the page before, as the answer's `next` gives it).
 */
export const catalogQuerySchema = z.strictObject({
  /** Part of `schema.table`, compared without case. */
  search: z.string().max(256).optional(),
  /** One schema (SQL Server) or library (IBM i) only, as the catalogue writes it. */
  schema: z.string().min(1).max(128).optional(),
  after: z.string().max(600).nullable().optional(),
  limit: z.number().int().min(1).max(500).default(100),
});
export type CatalogQuery = z.infer<typeof catalogQuerySchema>;

/** One table of the source's catalogue as a DBA chooses it: what it is, and what would stop it. */
export const catalogTableSchema = z.object({
  schema: z.string(),
  table: z.string(),
  /** Rows as the catalogue counts them; null where the source does not say. */
  rows: z.number().nullable(),
  /** The primary key's columns in key order; empty when it has none. */
  primaryKey: z.array(z.string()),
  /** Change tracking: whether it is on for the table; null for other sources. */
  changeTracking: z.boolean().nullable(),
  /** Journal: the journal it is written to (`LIB/JRN`) and its images; null when not journaled. */
  journal: z.string().nullable(),
  journalImages: z.string().nullable(),
  /** What would stop replication, in words; null when it can be replicated as it is. */
  problem: z.string().nullable(),
  /** The statement that fixes it, when one does (a DBA runs it, or the checks' fix). */
  fix: z.string().nullable(),
});
export type CatalogTable = z.infer<typeof catalogTableSchema>;

export const catalogAnswerSchema = z.object({
  agentId: idSchema,
  tables: z.array(catalogTableSchema),
  /** The cursor of the next page; null on the last. */
  next: z.string().nullable(),
  /** How many tables match the search in all. */
  matching: z.number(),
  /** Every schema (library) of the catalogue with its number of tables, for choosing by schema. */
  schemas: z.array(z.object({ schema: z.string(), tables: z.number() })),
});
export type CatalogAnswer = z.infer<typeof catalogAnswerSchema>;

export const backlogPointSchema = z.object({
  at: timestamp,
  /** Journal: ROWS_TO_READ; change tracking: changed rows pending. */
  rowsToRead: z.number().nullable(),
  /** Journal: MIN_LEFT. */
  minutesLeft: z.number().nullable(),
  /** Journal: rowsToRead at the rate the running pipeline read the journal lately; null until it has one. */
  measuredMinutesLeft: z.number().nullable().optional(),
  /** Change tracking: CHANGE_TRACKING_CURRENT_VERSION() minus the checkpoint. */
  versionsBehind: z.number().nullable(),
  /** Changed rows pending per source table (`schema.table`), when the agent counts them. */
  perTable: z.array(z.object({ table: z.string(), rowsToRead: z.number().nullable() })).optional(),
});
export const backlogAnswerSchema = z.object({
  agentId: idSchema,
  current: backlogPointSchema.nullable(),
  /** Why there is no current figure, when there is none. */
  unavailableReason: z.string().nullable(),
  history: z.array(backlogPointSchema),
});

/** Checks whose fix the local engine applies on request (POST …/fixes/{checkId}): database settings, never grants. */
export const FIXABLE_CHECK_IDS = [
  'change-retention',
  'snapshot-isolation',
  'change-tracking-database',
  'change-tracking-tables',
  'journaling',
] as const;

export const fixAnswerSchema = z.object({
  agentId: idSchema,
  checkId: z.string(),
  /** The statement applied; null when the check already passed (nothing to fix). */
  applied: z.string().nullable(),
  checkedAt: timestamp,
  /** The checks after the fix. */
  checks: z.array(checkResultSchema),
});

/** An event of a pipeline: started, snapshot progress, batch applied, retrying, failed, re-snapshot… */
export const pipelineEventSchema = z.object({
  id: z.number().int(),
  agentId: z.string().nullable(),
  at: timestamp,
  kind: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const tokenAnswerSchema = z.object({ token: z.string(), note: z.string() });

/** RFC 9457 problem details, with one entry per invalid field. */
export const problemDetailsSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional(),
});
export type ProblemDetails = z.infer<typeof problemDetailsSchema>;
