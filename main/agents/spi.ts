// What the engine asks of the database side, and what each agent type plugs in. The engine owns
// states, storage and the API; an AgentRuntime does the database work (engine/agentRuntime.ts builds the
// real one from the plugins; tests give their own). Each agent type is one AgentPlugin, in its folder,
// named in registry.ts: what is generic (connection first, "unavailable" answers, fix then check again,
// starting a pipeline) is written once, over these interfaces.
import type { AgentTypeDefinition } from '../../shared/agents';
import type { EventKind } from '../../shared/eventText';
import type { StreamFigures } from '../../shared/liveFeed';
import type { CatalogTable, CheckResult, Entity, TableState } from '../../shared/controlApi';
import type { TableSnapshot } from '../../shared/snapshots';
import type { VerifyAction, VerifyReport } from '../../shared/verify';
import type { Checkpoint, ColumnShape, ErrorVerdict, Row, SourceAgent, TableRef, TableShape } from './source';
import type { Target } from './target';
import type { FilterExpr } from '../../shared/rowFilter';

/** An agent's settings before its type is known: what the engine holds between requests. */
export type Settings = Record<string, unknown>;

/**
 * An agent as the engine hands it to its type's plugin: its two sections parsed by the type's own
 * schemas (shared/agents; defaults filled in), so a plugin declares `AgentPlugin<H, C>` and reads
 * typed fields without parsing them again.
 */
export interface ResolvedAgent<H extends object = Settings, C extends object = Settings> {
  pipelineId: string;
  id: string;
  /** A type of the registry: shared/agents names the shipped ones. */
  type: string;
  role: 'source' | 'target';
  /** With its secrets, for the drivers only: never logged or answered. */
  hostCredentials: H;
  configuration: C;
}

/** A row the target refused, for the exceptions store: what a DBA needs to see it and to retry it. */
export interface RefusedRow {
  table: string;
  op: 'insert' | 'update' | 'delete';
  key: Row;
  position: string;
  values: Row | null;
  error: string;
  /** The record image as the source holds it, when the source could not read the row. */
  raw?: Uint8Array;
}

/** A kept row to retry: read again from the source by its key. */
export interface RetryItem {
  id: number;
  table: string;
  key: Row;
}

export type RetryOutcome =
  | { id: number; status: 'applied' }
  | { id: number; status: 'refused'; error: string }
  /** Not tried: its table is not read now (suspended, or no longer an entity). */
  | { id: number; status: 'waiting'; reason: string };

export interface StartContext {
  entities: readonly Entity[];
  /** Tables to copy again as the pipeline starts, with why (their shaping changed while it did not run). */
  copyAtStart?: readonly { table: string; reason: string }[];
  /** The pipeline's target agent; none means the default SQLite file in the data folder. */
  target: ResolvedAgent | undefined;
  dataDir: string;
  /** Pipelines of this engine that write into the source's database (the other half of a two-way setup). */
  peerPipelines: string[];
  /** An event of a kind that has words (shared/eventText.ts), checked by the compiler. */
  report(kind: EventKind, data: object): void;
  /** Keeps a backlog point (the history of GET …/backlog). */
  backlog(point: BacklogFigure): void;
  /** A stream target's figures (events published, what the stream holds), for the agent's status. */
  streamFigures?(figures: StreamFigures): void;
  /** The pipeline stopped on a failure that cannot heal: the reason is kept and shown. */
  failed(reason: string): void;
  /** The pipeline stopped by itself at its configured stop point (stopAt). */
  stoppedAtPoint?(point: string): void;
  /** A verify or repair finished: its report is kept with the pipeline. */
  verified(report: VerifyReport): void;
  /** Rows the target refused, to the exceptions store; answers each of their tables' rows kept now. */
  keepExceptions(rows: readonly RefusedRow[]): Record<string, number>;
}

/** `taken`; or why not: the pipeline does not run here, or no entity of it reads the table (or copies it). */
export type SnapshotRequestOutcome = 'taken' | 'not-running' | 'unknown-table';

export interface BacklogFigure {
  rowsToRead: number | null;
  minutesLeft: number | null;
  /** rowsToRead at the rate the pipeline has been reading lately, when it runs. */
  measuredMinutesLeft?: number | null;
  versionsBehind: number | null;
  perTable?: { table: string; rowsToRead: number | null }[];
  /** Warnings before loss (SourceBacklog.warnings). */
  warnings?: string[];
}

/** Some columns of one table. */
export interface ColumnsOf {
  ref: TableRef;
  columns: readonly string[];
}

/**
 * A column's largest value now, in bytes as the source stores it (SQL Server's DATALENGTH; Db2 for i's
 * LENGTH, its double-byte characters counted as two bytes); null when no row holds a value.
 */
export interface LargestValue {
  ref: TableRef;
  column: string;
  bytes: number | null;
}

export interface AgentRuntime {
  /** Checks that need the database itself, after the engine's own checks. */
  check(agent: ResolvedAgent, entities: readonly Entity[]): Promise<CheckResult[]>;
  /** The entities' source tables as the source sees them. */
  tables(agent: ResolvedAgent, entities: readonly Entity[]): Promise<TableState[]>;
  /** Every table of the source a DBA may choose, with what would stop each (the engine pages it). */
  catalog(agent: ResolvedAgent, entities: readonly Entity[]): Promise<CatalogTable[]>;
  /** Entity tables' columns as the source describes them; undefined where the type cannot say. */
  columns?(
    agent: ResolvedAgent,
    entities: readonly Entity[],
    refs: readonly TableRef[],
  ): Promise<TableShape[]>;
  /**
   * The first rows of a table as the source reads them for a copy (up to `limit`, the filter pushed
   * down where the source can): a table's story shows them as the target would get them.
   */
  sample?(
    agent: ResolvedAgent,
    entities: readonly Entity[],
    ref: TableRef,
    limit: number,
    rowFilter?: FilterExpr,
  ): Promise<Row[]>;
  /** The largest value of each column asked, read at the source now (a scan of those columns). */
  largestValues?(
    agent: ResolvedAgent,
    entities: readonly Entity[],
    asked: readonly ColumnsOf[],
  ): Promise<LargestValue[]>;
  /** The current backlog, or a reason why there is none. */
  backlog(
    agent: ResolvedAgent,
    entities: readonly Entity[],
  ): Promise<BacklogFigure | { unavailable: string }>;
  /**
   * Applies the fix a failed check offers (its `fix` statement), when this runtime may; answers the
   * statement applied (null when there was nothing to fix) and the checks afterwards.
   */
  applyFix(
    agent: ResolvedAgent,
    entities: readonly Entity[],
    checkId: string,
  ): Promise<{ applied: string | null; checks: CheckResult[] }>;
  /** Starts (or resumes) the agent's pipeline; throws a ProblemError when it cannot run here. */
  start(agent: ResolvedAgent, context: StartContext): Promise<void>;
  pause(agent: ResolvedAgent): Promise<void>;
  stop(agent: ResolvedAgent): Promise<void>;
  /** The running pipeline's tables suspended or stopped on their own, with why; none when it does not run. */
  suspendedTables?(pipelineId: string, agentId: string): { table: string; reason: string }[];
  /** A running pipeline whose source is shared among engines: the tables this engine applies now; else null. */
  heldTables?(pipelineId: string, agentId: string): string[] | null;
  /** The table copies of the agent's running pipeline; null when it does not run here. */
  snapshots(agent: ResolvedAgent): TableSnapshot[] | null;
  /** Asks the running pipeline to rewind every table to `to` at its next step (the outcome is an event). */
  rewind(agent: ResolvedAgent, to: string): 'taken' | 'not-running';
  /** Asks the running pipeline to copy one table (again), or to stop copying it. */
  requestSnapshot(
    agent: ResolvedAgent,
    table: string,
    kind: 'copy' | 'cancel' | 'resume',
  ): SnapshotRequestOutcome;
  /**
   * Asks the running pipeline to retry kept rows (each read again from the source by key): their
   * outcomes once done, or `not-running` when it does not run here (or is paused).
   */
  retryRows(agent: ResolvedAgent, items: readonly RetryItem[]): Promise<RetryOutcome[]> | 'not-running';
  /**
   * Asks the running pipeline to verify, repair or cancel (docs/verify.md), answering its report then;
   * `not-running` when it does not run here. A request it cannot take throws VerifyRefused.
   */
  verify(agent: ResolvedAgent, action: VerifyAction): VerifyReport | null | 'not-running';
  /** The running pipeline's verify (in progress or its last); `not-running` when it does not run here. */
  verifyReport(agent: ResolvedAgent): VerifyReport | null | 'not-running';
  /** The pipeline's entities changed: a running pipeline copies the tables added and drops the others. */
  entitiesChanged(agent: ResolvedAgent, entities: readonly Entity[]): void;
  /** Stops whatever runs, before the engine closes. */
  close?(): Promise<void>;
}

export interface SourceAdmin {
  /** The checks that need the database, after the sign-on (which the engine reports itself). */
  check(entities: readonly Entity[]): Promise<CheckResult[]>;
  /** The entities' source tables as the source sees them. */
  tables(entities: readonly Entity[]): Promise<TableState[]>;
  /** Every table of the source that could be an entity's, the agent's own left out, in any order. */
  catalog(): Promise<CatalogTable[]>;
  /** The tables' columns as the runner reads them (its describe), for a table's story in the app. */
  columns?(refs: readonly TableRef[]): Promise<TableShape[]>;
  /** The largest value each column asked holds now: a scan of those columns, so asked only for a few. */
  largestValues?(asked: readonly ColumnsOf[]): Promise<LargestValue[]>;
  /** The first rows of a table, read as a copy reads them (AgentRuntime.sample). */
  sample?(ref: TableRef, limit: number, rowFilter?: FilterExpr): Promise<Row[]>;
  /** The checkpoint kept at the source; empty before the first snapshot finished. */
  loadCheckpoint(): Promise<Checkpoint>;
  backlog(entities: readonly Entity[], checkpoint: Checkpoint): Promise<BacklogFigure>;
  /** Runs the fix a check offered (statements this engine built); a refusal is a ProblemError (409). */
  applyFix(fix: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a source's changes come from, as a target that names them (a message broker's subjects and
 * Debezium's `source` block) writes it: the connector, the server, and the database whose name is
 * part of a table's name there (SQL Server's; an IBM i library is the table's schema).
 */
export interface SourceOrigin {
  connector: 'sqlserver' | 'ibmi';
  server: string;
  /** The database, as the first part of each table's name; null where the schema is the first part. */
  database: string | null;
}

/** What an agent type does as a source: the runner's reader, the admin side, and its rules. */
export interface SourceRole<H extends object = Settings, C extends object = Settings> {
  names: SourceNames;
  /** Opens the source as the runner reads it. Throws AgentConnectionError when it cannot sign on. */
  openReader(
    agent: ResolvedAgent<H, C>,
    context: { entities: readonly Entity[]; peerPipelines: string[] },
  ): Promise<SourceAgent>;
  /** Opens the source for checks, tables, backlog and fixes. Throws AgentConnectionError likewise. */
  openAdmin(agent: ResolvedAgent<H, C>, entities: readonly Entity[]): Promise<SourceAdmin>;
  /** Where its changes come from, for a target that names them (subjects, Debezium's source block). */
  origin(agent: ResolvedAgent<H, C>): SourceOrigin;
  /** The passed connection check's sentence ("Logged in as …", "Signed on as …"). */
  connected(agent: ResolvedAgent<H, C>): string;
  /** The checks whose fix this type applies, and how the refusal of another names them. */
  fixes: { checkIds: readonly string[]; described: string };
  /** The database's own refusal (not an engine failure) of `what`, in words; undefined otherwise. */
  refusal(error: unknown, what: string): string | undefined;
  /** Why these entities cannot be read by this type (a 409 at start), or null. */
  refuseEntities?(entities: readonly Entity[]): string | null;
  /** The spec's minutes-left figure for a backlog, where the type has one. */
  minutesLeft?(rowsToRead: number): number;
  /**
   * Why another agent of this type, configured with `theirs`, cannot share this source with one
   * configured with `mine` (the journal's own sync library), and the field of `mine` to change; null
   * when they can.
   */
  conflict?(
    mine: Record<string, unknown>,
    theirs: Record<string, unknown>,
  ): { field: string; reason: string } | null;
}

/** Settings of an agent as stored, without its secrets: what the name rules read. */
export interface AgentSettings {
  hostCredentials: Record<string, unknown>;
  configuration: Record<string, unknown>;
}

/**
 * How a target compares and reserves table names (main/engine/nameRules.ts): two entities whose
 * tables compare equal in one database would write one table, and a name the target keeps for itself
 * would meet the engine's own objects.
 */
export interface TargetNames {
  /**
   * The database the tables land in, one text for every agent (of any pipeline) writing there; the
   * type's default target has `settings` undefined.
   */
  database(settings: AgentSettings | undefined, context: { dataDir: string; pipelineId: string }): string;
  /** The local file the target writes, when it is one (never one of the engine's own files). */
  file?(settings: AgentSettings | undefined, context: { dataDir: string; pipelineId: string }): string;
  /** Whether an entity's `target.schema` means anything here; where not, naming one is refused. */
  schemas: boolean;
  /** The schema an entity without one writes to. */
  defaultSchema(settings: AgentSettings | undefined): string | undefined;
  /** A table, column or schema name as this target compares names. */
  fold(name: string): string;
  /** Why this table is the target's own (its checkpoint table, its work tables), or null. */
  reserved(schema: string | undefined, table: string): string | null;
  /**
   * What an entity writes when it is named after the source rather than its target table (a stream's
   * subject): the name rules compare these instead. `sourceDatabase`: SourceNames.database.
   */
  writes?(
    entity: Entity,
    sourceDatabase: string | null,
    settings: AgentSettings | undefined,
  ): { name: string; what: string };
}

/** How a source compares table names and which of its objects are the agent's own. */
export interface SourceNames {
  /**
   * A source table as this source compares names without a connection; a source whose comparison
   * depends on the database (a collation) answers the exact parts, and refuses look-alikes when
   * connected (checks and start).
   */
  fold(schema: string, table: string): string;
  /** Why reading this table would read the agent's own objects (its sync schema or library), or null. */
  reserved(entity: Entity, settings: AgentSettings): string | null;
  /** The database that is the first part of a table's full name at this source (SQL Server's); none. */
  database?(settings: AgentSettings): string | null;
}

/** What an agent type does as a target of the runner. */
export interface TargetRole<H extends object = Settings, C extends object = Settings> {
  names: TargetNames;
  /** POST …/test of a target agent: can the runner write there? */
  check(agent: ResolvedAgent<H, C>): Promise<CheckResult[]>;
  /**
   * Checks that need the pipeline's tables as its source describes them (a stream's largest message
   * against the servers' limit), after `check`; the engine describes them through the source agent.
   */
  checkTables?(
    agent: ResolvedAgent<H, C>,
    shapes: readonly TableShape[],
    /** The largest values the source holds now, for the columns whose type sets no bound. */
    measure: (asked: readonly ColumnsOf[]) => Promise<LargestValue[]>,
  ): Promise<CheckResult[]>;
  /**
   * How the runner opens it. `agent` undefined: the pipeline has no target agent, and this is the
   * registry's default target.
   */
  open(
    agent: ResolvedAgent<H, C> | undefined,
    context: { dataDir: string; pipelineId: string; origin?: SourceOrigin },
  ): { open: () => Promise<Target>; batchRows: number };
  /** Whether a target so configured writes into the database a source so configured reads. */
  sameDatabase?(target: Record<string, unknown>, source: Record<string, unknown>): boolean;
  /** The type it declares for a source column (as its prepare creates it); `agent` undefined: the default. */
  columnType?(column: ColumnShape, agent: ResolvedAgent<H, C> | undefined): string;
}

/**
 * One agent type. `H` and `C` are its host credentials and configuration as its schemas parse them;
 * the registry holds every plugin as `AgentPlugin`, and the engine parses an agent's settings with its
 * type's schemas before any call (engine/operationKit.ts, resolve).
 */
export interface AgentPlugin<H extends object = Settings, C extends object = Settings> {
  /** The type's declaration in shared/agents: title, roles, and its two sections. */
  definition: Omit<AgentTypeDefinition, 'type'> & { type: string };
  /** The server's TCP endpoint for the reachability check; none for a file or an in-process system. */
  endpoint(hostCredentials: H): { host: string; port: number } | undefined;
  /**
   * "Test connection" with parsed host credentials: signs on and off again, stores nothing. Throws
   * AgentConnectionError when it cannot.
   */
  testConnection(hostCredentials: H): Promise<CheckResult>;
  /** Its driver's errors sorted for the runner's retries (source.ts, ErrorVerdict). */
  classifyError?(error: unknown): ErrorVerdict;
  source?: SourceRole<H, C>;
  target?: TargetRole<H, C>;
}
