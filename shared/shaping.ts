// How an entity shapes its rows before they leave the source (docs/shaping.md): per column a mask and
// a target name, per table a row filter and the operations it skips. Declared once here: the control
// API validates with it, the app's picker edits it, the runner applies it to copies, the stream and
// verify alike.
import { z } from 'zod';
import { rowFilterProblem } from './rowFilter';
import { sqlNameSchema } from './sqlName';

const chars = z.number().int().min(0).max(4000);

/**
 * What a column's values become: `hash` (HMAC-SHA-256 keyed by the source's mask salt, 64 hex digits),
 * `constant` (this text in every row that has a value), `null`, `keepFirst`/`keepLast` (those
 * characters kept, every other one written `*`), `truncate` (cut to that many characters).
 */
export const maskSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('hash') }),
  z.strictObject({ kind: z.literal('constant'), value: z.string().max(4000) }),
  z.strictObject({ kind: z.literal('null') }),
  z.strictObject({ kind: z.literal('keepFirst'), chars }),
  z.strictObject({ kind: z.literal('keepLast'), chars }),
  z.strictObject({ kind: z.literal('truncate'), chars: chars.min(1) }),
]);
export type Mask = z.infer<typeof maskSchema>;
export const MASK_KINDS = ['hash', 'constant', 'null', 'keepFirst', 'keepLast', 'truncate'] as const;

/** Masks that keep part of the text: they apply to text columns only. */
export const TEXT_ONLY_MASKS: readonly Mask['kind'][] = ['keepFirst', 'keepLast', 'truncate'];

/** A mask in words, for the picker, a table's story and the readiness report. */
export function maskText(m: Mask): string {
  switch (m.kind) {
    case 'hash':
      return 'hashed (HMAC-SHA-256 with the salt)';
    case 'constant':
      return `replaced by '${m.value}'`;
    case 'null':
      return 'left empty (null)';
    case 'keepFirst':
      return `first ${m.chars} characters kept, the rest written *`;
    case 'keepLast':
      return `last ${m.chars} characters kept, the rest written *`;
    case 'truncate':
      return `cut to ${m.chars} characters`;
  }
}

export const columnShapingSchema = z.strictObject({
  mask: maskSchema.optional(),
  /** The column's name at the target (and in the stream's events); its source name when left out. */
  targetName: sqlNameSchema.optional(),
});
export type ColumnShaping = z.infer<typeof columnShapingSchema>;

/** A filter, parsed when it is given: a filter that does not parse is refused with where and why. */
export const rowFilterSchema = z
  .string()
  .min(1)
  .max(4000)
  .superRefine((text, ctx) => {
    const problem = rowFilterProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Operations of the source the target never sees: deletes, for an archive that keeps every row. */
export const SKIPPABLE_OPERATIONS = ['delete'] as const;
export const skipOperationsSchema = z.array(z.enum(SKIPPABLE_OPERATIONS)).min(1).max(1);

/** Whether an entity shapes its rows at all (an entity that does not is read as it always was). */
export function shapes(e: {
  columnShaping?: Record<string, ColumnShaping>;
  rowFilter?: string;
  skipOperations?: readonly string[];
  tableMode?: { kind: string };
  shard?: Shard;
}): boolean {
  return (
    e.shard !== undefined ||
    (e.tableMode !== undefined && e.tableMode.kind !== 'live') ||
    Object.keys(e.columnShaping ?? {}).length > 0 ||
    e.rowFilter !== undefined ||
    (e.skipOperations ?? []).length > 0
  );
}

/** An entity's shaping as one text: two entities shape alike when theirs are equal. */
export const shapingText = (e: {
  columnShaping?: Record<string, ColumnShaping>;
  rowFilter?: string;
  skipOperations?: readonly string[];
  tableMode?: { kind: string };
  shard?: Shard;
}): string =>
  JSON.stringify([
    e.columnShaping ?? {},
    e.rowFilter ?? null,
    e.skipOperations ?? [],
    e.tableMode ?? null,
    e.shard ?? null,
  ]);

/** Why a table is copied again after its shaping changed (the event's and the API's words). */
export const SHAPING_CHANGED =
  'its shaping changed (masks, target names, row filter, skipped deletes or mode): the rows already at the target are copied again as the new shaping gives them';

/** The tables (`schema.table`, as `key` writes them) both lists hold whose shaping differs. */
export function reshapedTables<
  E extends Parameters<typeof shapingText>[0] & { source: { schema: string; table: string } },
>(before: readonly E[], after: readonly E[], key: (e: E) => string): string[] {
  const was = new Map(before.map((e) => [key(e), shapingText(e)]));
  return after.flatMap((e) => {
    const old = was.get(key(e));
    return old !== undefined && old !== shapingText(e) ? [key(e)] : [];
  });
}

/** What a provenance column holds (docs/shaping.md, "Provenance"). */
export const PROVENANCE_KINDS = [
  'operation',
  'commitTime',
  'position',
  'transaction',
  'job',
  'jobUser',
  'jobNumber',
  'program',
  'userProfile',
] as const;
export type ProvenanceKind = (typeof PROVENANCE_KINDS)[number];
/** The provenance columns a pipeline names: per kind, its column at the target. */
export type ProvenanceColumns = Partial<Record<ProvenanceKind, string>>;

/** The pipeline settings that name them (shared/agents: common.ts and journal.ts declare the fields). */
const PROVENANCE_SETTINGS: Record<ProvenanceKind, string> = {
  operation: 'provenanceOperation',
  commitTime: 'provenanceCommitTime',
  position: 'provenancePosition',
  transaction: 'provenanceTransaction',
  job: 'provenanceJob',
  jobUser: 'provenanceJobUser',
  jobNumber: 'provenanceJobNumber',
  program: 'provenanceProgram',
  userProfile: 'provenanceUserProfile',
};

/** The provenance columns a source's configuration names (a type without a field names none of it). */
export function provenanceOf(configuration: Record<string, unknown>): ProvenanceColumns {
  const out: ProvenanceColumns = {};
  for (const kind of PROVENANCE_KINDS) {
    const name = configuration[PROVENANCE_SETTINGS[kind]];
    if (typeof name === 'string' && name !== '') out[kind] = name;
  }
  return out;
}

/** What leaves the source of one table, in words (the readiness report's "What leaves the source"). */
export function shapingSummary(e: {
  columns?: readonly string[];
  columnShaping?: Record<string, ColumnShaping>;
  rowFilter?: string;
  skipOperations?: readonly string[];
  tableMode?: TableMode;
}): { columns: string; masks: string[]; names: string[]; rows: string } {
  const shaping = Object.entries(e.columnShaping ?? {});
  return {
    columns: e.columns ? `${e.columns.join(', ')} and the key` : 'every column',
    masks: shaping.flatMap(([c, s]) => (s.mask ? [`${c}: ${maskText(s.mask)}`] : [])),
    names: shaping.flatMap(([c, s]) => (s.targetName ? [`${c} as ${s.targetName}`] : [])),
    rows: [
      e.rowFilter ? `only where ${e.rowFilter}` : 'every row',
      ...((e.skipOperations ?? []).includes('delete') ? ["the source's deletes skipped"] : []),
      ...(e.tableMode && e.tableMode.kind !== 'live' ? [tableModeText(e.tableMode)] : []),
    ].join('; '),
  };
}

/** Each mode's short name, as the table picker offers them. */
export const TABLE_MODE_NAMES: Record<TableMode['kind'], string> = {
  live: 'live',
  softDelete: 'soft delete',
  history: 'history',
};

/** A table's mode in words (the readiness report, a table's story). */
export function tableModeText(mode: TableMode): string {
  switch (mode.kind) {
    case 'live':
      return 'rows held as the source holds them';
    case 'softDelete':
      return `deleted rows kept, flagged in ${mode.flagColumn} at ${mode.timeColumn}`;
    case 'history':
      return `every version kept, valid from ${mode.validFromColumn} to ${mode.validToColumn} (null while current)`;
  }
}

/**
 * A member of a shard (docs/shaping.md, "Shards"): several source tables into one target table, each
 * row's `column` holding the member's `value` and leading the key, so the members' keys never meet.
 */
export const shardSchema = z.strictObject({
  column: sqlNameSchema,
  value: z.string().min(1).max(128),
});
export type Shard = z.infer<typeof shardSchema>;

/**
 * How the target holds a table's rows: `live` (as the source does), `softDelete` (a delete sets a
 * flag and its time instead of removing the row), or `history` (every change of a row's values a row
 * of its own, valid from one time to the next; docs/shaping.md, "History"). The columns are the
 * runner's, named by the DBA.
 */
export const tableModeSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('live') }),
    z.strictObject({
      kind: z.literal('softDelete'),
      flagColumn: sqlNameSchema.default('cdc_deleted'),
      timeColumn: sqlNameSchema.default('cdc_deleted_at'),
    }),
    z.strictObject({
      kind: z.literal('history'),
      validFromColumn: sqlNameSchema.default('cdc_valid_from'),
      validToColumn: sqlNameSchema.default('cdc_valid_to'),
    }),
  ])
  .superRefine((mode, ctx) => {
    const names =
      mode.kind === 'softDelete'
        ? ([mode.flagColumn, mode.timeColumn, 'timeColumn'] as const)
        : mode.kind === 'history'
          ? ([mode.validFromColumn, mode.validToColumn, 'validToColumn'] as const)
          : undefined;
    // Compared as every target compares names at worst: without case.
    if (names && names[0].toLowerCase() === names[1].toLowerCase())
      ctx.addIssue({
        code: 'custom',
        path: [names[2]],
        message: `${names[1]} is the mode's other column too: its two columns need two names`,
      });
  });
export type TableMode = z.infer<typeof tableModeSchema>;
