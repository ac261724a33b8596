// The journal agent as a SourceAgent: IBM i files read whole by SQL (a snapshot, paged by RRN) and
// then through their journals, from a checkpoint kept in the sync library. The checkpoint table
// holds, per table, the journal and the receiver library, receiver name and sequence number reading
// resumes from; a receiver that is gone stops the agent with its name rather than skip changes.
import { largestMemberValues } from './largestValues';
import type { ColumnsOf, LargestValue } from '../spi';
import type { JournalConfiguration, JournalHostCredentials } from '../../../shared/agents/journal';
import { effectiveJournalFormats } from '../../../shared/agents/journal';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { clName, type IbmiConnection, type IbmiValue } from '../../../lib/ibmi/connection';
import type { FilterExpr } from '../../../shared/rowFilter';
import { pushdownSql } from '../filterPushdown';
import { db2Pushdown } from './filterSql';
import {
  tableKey,
  type ChangeBatch,
  type Checkpoint,
  readWhole,
  type Row,
  type SnapshotChunk,
  type SourceAgent,
  type SourceBacklog,
  type TableRef,
  type TableShape,
} from '../source';
import { addedColumnClash, MEMBER_COLUMN, RRN_COLUMN } from './assemble';
import { NotJournaled, readJournalChanges, type JournalFiles } from './changes';
import { journalChecks } from './checks';
import { openIbmi } from './connection';
import { countMemberRows, MemberReader, readMemberChunk, readMemberRows } from './memberReader';
import {
  catalogLayouts,
  dspffdLayouts,
  membersRead,
  rowIdentity,
  UnkeyedFile,
  unsupportedColumns,
  type FileLayout,
} from './layout';
import { formatPosition, type JournalPosition, type TablePosition } from './position';
import { parseStartAt, rewoundPositions, startPointOf, startsIn, type StartPoint } from './startAt';
import { JournalStop } from './stopAt';
import {
  distinctJournals,
  journalEnd,
  journalKey,
  notAuthorizedReason,
  receiverChains,
  refusedFile,
  type JournalName,
  type ReceiverInfo,
} from './reader';
import { SyncLibrary } from './syncLibrary';
import { heartbeatTag, JournalHeartbeat } from './heartbeat';
import { forcedLayout } from './forcedCcsid';
import { orderedLayout } from './textOrder';
import { userCharacters } from './userCharacters';
import { parseUserCharacters } from '../../../shared/config/userCharacters';
import { invalidValuesProblem, timezoneMinutes, withColumnPolicies, type ValueForm } from './values';
import { detectJournals, refuseSyncJournal } from './journals';
import { anyJournalDeletesReceivers, minimisedJournals, receiversAtRisk } from './journalAttributes';
import { classifyIbmiError } from './errors';
import { journalBacklog, ReadingRate, receiversNeeded } from './backlog';
import { ibmiFold } from '../../../shared/names';

export interface JournalSourceOptions {
  credentials: JournalHostCredentials;
  configuration: JournalConfiguration;
  pipelineId: string;
  agentId: string;
  /** The pipeline's entities: row identification and journal overrides per table. */
  entities?: readonly Entity[];
  /** Checkpoint saves between CHGJRN of the sync library's journal (500). */
  rotateEvery?: number;
}

/** Saves between CHGJRN of the sync library's journal, which keeps its receivers few. */
const ROTATE_EVERY = 500;

export class JournalSource implements SourceAgent {
  readonly classifyError = classifyIbmiError;
  private readonly layouts = new Map<string, FileLayout>();
  /** How SQL reads each member of a file (aliases in the sync library for files of several). */
  private readonly members: MemberReader;
  /**
   * Per table, the journal's end just before its layout was read: a D CG (ALTER TABLE, CHGPF) after
   * it may be newer than the layout; one at or before it is already in it. Missing: not known.
   */
  private readonly layoutSince = new Map<string, JournalPosition>();
  private journals = new Map<string, JournalName>();
  private readonly form: ValueForm;
  private utcOffset = 0;
  private startPoint: StartPoint | undefined;
  private stop: JournalStop | undefined;
  private saves = 0;
  /** Entries consumed, and when the last backlog was taken: the measured reading rate. */
  private readonly rate = new ReadingRate();
  readonly sync: SyncLibrary;
  /** With heartbeatSeconds above 0: a user entry in each journal read (heartbeat.ts). */
  readonly heartbeat: JournalHeartbeat | undefined;

  constructor(
    readonly c: IbmiConnection,
    private readonly o: JournalSourceOptions,
  ) {
    const formats = effectiveJournalFormats(o.credentials, o.configuration);
    this.form = {
      ...formats,
      utcOffsetMinutes: null,
      invalid: {
        decimals: o.configuration.invalidDecimals,
        dates: o.configuration.invalidDates,
        text: o.configuration.invalidText,
      },
      userCharacters: userCharacters(parseUserCharacters(o.configuration.userCharacters ?? '')),
    };
    this.sync = new SyncLibrary(c, o.credentials, `${o.pipelineId}/${o.agentId}`);
    this.members = new MemberReader(c, () => this.sync.ready());
    const beatSeconds = o.configuration.heartbeatSeconds;
    this.heartbeat =
      beatSeconds > 0
        ? new JournalHeartbeat(
            c,
            () => distinctJournals(this.journals.values()),
            heartbeatTag(this.sync.agent),
            this.profile,
            beatSeconds * 1000,
          )
        : undefined;
  }

  async init(): Promise<void> {
    const [row] = await this.c.query('VALUES CURRENT TIMEZONE');
    this.utcOffset = timezoneMinutes(row ? (Object.values(row)[0] ?? 0) : 0);
    if (this.o.credentials.useDatabaseTimezone) this.form.utcOffsetMinutes = this.utcOffset;
    this.startPoint = startPointOf(this.o.configuration, this.utcOffset);
    this.stop = JournalStop.of(this.o.configuration, this.utcOffset);
  }

  /** Where tables started without a copy begin, in words, when the configuration names a point. */
  get startsFrom(): string | undefined {
    return this.startPoint?.said;
  }

  /** The user profile the agent signs on as, as IBM i names it. */
  private get profile(): string {
    return ibmiFold(this.o.credentials.username);
  }

  private entity(ref: TableRef): Entity | undefined {
    return this.o.entities?.find((e) => tableKey(e.source) === tableKey(ref));
  }

  check(entities: readonly Entity[]): Promise<CheckResult[]> {
    return journalChecks(this.c, this.o.credentials, this.sync, entities, this.heartbeat?.tag);
  }

  /** The tables' layouts; a table that does not exist throws, or with `existing` is left out. */
  private async layoutsOf(tables: readonly TableRef[], existing = false): Promise<FileLayout[]> {
    const missing = tables.filter((t) => !this.layouts.has(tableKey(t)));
    if (missing.length > 0) {
      await this.noteJournalEnds(missing);
      const found = this.o.credentials.enableDdsDiscovery
        ? await dspffdLayouts(this.c, missing, await this.sync.ready())
        : await catalogLayouts(this.c, missing);
      for (const l of found) this.layouts.set(tableKey(l.ref), l);
    }
    const layouts = tables.flatMap((t) => {
      const l = this.layouts.get(tableKey(t));
      if (!l && !existing)
        throw new Error(`${tableKey(t)} does not exist on the IBM i, or the user cannot see it.`);
      // The file's tags as read, the entity's forced CCSIDs over them (read again at each call).
      // Then Arabic and Hebrew text marked for logical order, by the setting and the entity's own.
      const e = this.entity(t);
      return l
        ? [
            orderedLayout(
              forcedLayout(l, e?.forceCcsid, tableKey(t)),
              this.o.configuration.textOrder,
              e?.textOrder,
              tableKey(t),
            ),
          ]
        : [];
    });
    // An entity's decode policy per column is checked against the file's own fields before anything is read.
    for (const l of layouts) {
      const chosen = this.entity(l.ref)?.invalidValues;
      const problem = chosen && invalidValuesProblem(tableKey(l.ref), l.fields, chosen);
      if (problem) throw new Error(problem);
    }
    // Refused before anything is read, never discovered at the first change (the column-types check says the same).
    const unsupported = layouts.flatMap((l) =>
      unsupportedColumns(l).map((c) => `${l.library}/${l.file} ${c}`),
    );
    if (unsupported.length)
      throw new Error(`Columns the journal agent cannot replicate: ${unsupported.join('; ')}.`);
    return layouts;
  }

  /** The journal's end for each table, before its layout is read (see layoutSince). */
  private async noteJournalEnds(tables: readonly TableRef[]): Promise<void> {
    const journaled = tables.filter((t) => this.entity(t) !== undefined);
    let journals: JournalName[];
    try {
      journals = await this.journalsOf(journaled);
    } catch (error) {
      // A file not journaled has no journal end; the reader says so when it reads it.
      if (error instanceof NotJournaled) return;
      throw error;
    }
    const chains = await receiverChains(this.c, journals);
    journaled.forEach((t, i) => {
      const j = journals[i] as JournalName;
      const end = journalEnd(chains.get(journalKey(j)) ?? []);
      if (end) this.layoutSince.set(tableKey(t), end);
      else this.layoutSince.delete(tableKey(t));
    });
  }

  private async journalsOf(tables: readonly TableRef[]): Promise<JournalName[]> {
    const missing = tables.filter((t) => !this.journals.has(tableKey(t)));
    if (missing.length > 0) {
      const detected = await detectJournals(this.c, missing);
      for (const t of missing) {
        const override = this.entity(t)?.journal;
        const found = override ?? detected.get(tableKey(t))?.journal;
        if (!found)
          throw new NotJournaled(
            `${tableKey(t)} is not journaled: STRJRNPF it with IMAGES(*BOTH) first.`,
            tableKey(t),
          );
        this.journals.set(tableKey(t), found);
      }
      const refused = await minimisedJournals(
        this.c,
        distinctJournals(missing.map((t) => this.journals.get(tableKey(t)) as JournalName)),
      );
      if (refused.length) {
        for (const t of missing) this.journals.delete(tableKey(t));
        throw new Error(refused.join('\n'));
      }
    }
    return tables.map((t) => this.journals.get(tableKey(t)) as JournalName);
  }

  /** The members replicated: those the entity names (refused when the file lacks one), else all. */
  private membersRead(layout: FileLayout): string[] {
    const { read, unknown } = membersRead(layout, this.entity(layout.ref)?.members);
    if (unknown.length)
      throw new Error(
        `The entity of ${tableKey(layout.ref)} names members the file does not have: ${unknown.join(', ')} (it has ${layout.members.join(', ')}).`,
      );
    return read;
  }

  /** How the entity identifies the file's rows; UnkeyedFile when it cannot. */
  private identify(layout: FileLayout): string[] | 'rrn' {
    return rowIdentity(layout, this.entity(layout.ref)?.rowIdentification);
  }

  /**
   * Files the catalog no longer shows the profile that still exist: CHKOBJ … AUT(*USE) answers
   * CPF9802 for those (CPF9820 when the library's authority went), CPF9801 for one gone. A name
   * longer than a system name cannot be asked so (its system name is in the catalog it cannot see)
   * and counts as gone.
   */
  async refusedAmong(tables: readonly TableRef[]): Promise<{ table: string; reason: string }[]> {
    const refused: { table: string; reason: string }[] = [];
    for (const t of tables) {
      const [library, file] = [clName(t.schema), clName(t.table)];
      if (!library || !file) continue;
      const f = { library, file };
      const answer = await this.c.command(`CHKOBJ OBJ(${f.library}/${f.file}) OBJTYPE(*FILE) AUT(*USE)`).then(
        () => null,
        (error: unknown) => error,
      );
      const denied = refusedFile(answer, [f]);
      if (denied)
        refused.push({
          table: tableKey(t),
          reason: notAuthorizedReason(f, this.profile, 'CHKOBJ', denied.byLibrary),
        });
    }
    return refused;
  }

  /** The shapes of the tables that exist (a file deleted or renamed is left out: the runner decides). */
  async describe(tables: readonly TableRef[]): Promise<TableShape[]> {
    return (await this.layoutsOf(tables, true)).map((l) => {
      let id: string[] | 'rrn';
      try {
        id = this.identify(l);
      } catch (error) {
        if (!(error instanceof UnkeyedFile)) throw error;
        return {
          ref: l.ref,
          identity: `${l.library}/${l.file}`,
          columns: l.columns,
          key: [],
          cannotKey: error.message,
        };
      }
      const clash = addedColumnClash(l.columns, { rrn: id === 'rrn', member: l.members.length > 1 });
      if (clash) throw new Error(`${tableKey(l.ref)} ${clash}.`);
      const rrn = id === 'rrn' ? [{ name: RRN_COLUMN, sourceType: 'BIGINT', nullable: false }] : [];
      // Every member of a file with several replicates; the member leads each row's key.
      const member =
        l.members.length > 1 ? [{ name: MEMBER_COLUMN, sourceType: 'VARCHAR(10)', nullable: false }] : [];
      return {
        ref: l.ref,
        identity: `${l.library}/${l.file}`,
        columns: [...member, ...rrn, ...l.columns],
        key: [...member.map((c) => c.name), ...(id === 'rrn' ? [RRN_COLUMN] : id)],
      };
    });
  }

  /** The largest value each column asked holds now, over the members read (largestValues.ts). */
  async largestValues(asked: readonly ColumnsOf[]): Promise<LargestValue[]> {
    const found: LargestValue[] = [];
    // Described together (one catalog read for the tables not described yet), then measured in turn.
    const layouts = await this.layoutsOf(
      asked.map((a) => a.ref),
      true,
    );
    for (const { ref, columns } of asked) {
      const layout = layouts.find((l) => tableKey(l.ref) === tableKey(ref));
      if (layout)
        found.push(...(await largestMemberValues(this.members, layout, this.membersRead(layout), columns)));
    }
    return found;
  }

  async countRows(table: TableRef): Promise<number> {
    const [l] = await this.layoutsOf([table]);
    return l ? countMemberRows(this.members, l, this.membersRead(l)) : 0;
  }

  snapshot(
    table: TableRef,
    onRows: (rows: Row[]) => Promise<void>,
    options: { snapshotChunkRows?: number } = {},
  ): Promise<{ position: string; rows: number }> {
    return readWhole(this, table, onRows, options);
  }

  /**
   * The journal's end before the first row is read: changes from there on are replayed over the copied
   * rows, and a replayed change carries the whole record, so the target converges.
   */
  async snapshotStart(table: TableRef): Promise<string> {
    const position = (await this.startsOf([table], undefined)).get(tableKey(table));
    if (position === undefined) throw new Error(`${tableKey(table)} cannot be described.`);
    return position;
  }

  /** Where tables without a copy start: the configuration's point, else their journals' ends. */
  snapshotStarts(tables: readonly TableRef[]): Promise<Map<string, string>> {
    return this.startsOf(tables, this.startPoint);
  }

  /** A rewind: every table at the point, as startAt reads it (startAt.ts, rewoundPositions). */
  async positionsAt(
    tables: readonly TableRef[],
    point: string,
    current: Checkpoint,
  ): Promise<Map<string, string>> {
    const journals = await this.journalsOf(tables);
    return rewoundPositions(
      this.c,
      tables.map(tableKey),
      journals,
      parseStartAt(point, this.utcOffset),
      current,
    );
  }

  /** Their journals, then their receivers, in one query each; a point costs two queries a journal. */
  private async startsOf(
    tables: readonly TableRef[],
    point: StartPoint | undefined,
  ): Promise<Map<string, string>> {
    const journals = await this.journalsOf(tables);
    const starts = await startsIn(this.c, journals, point);
    return new Map(
      tables.map((table, i) => [
        tableKey(table),
        formatPosition(starts.get(journalKey(journals[i] as JournalName)) as TablePosition),
      ]),
    );
  }

  /** One chunk in relative record number order, member after member (memberReader.ts). */
  async readChunk(
    table: TableRef,
    cursor: string | null,
    limit: number,
    options: { rowFilter?: FilterExpr } = {},
  ): Promise<SnapshotChunk> {
    const [layout] = await this.layoutsOf([table]);
    if (!layout) throw new Error(`${tableKey(table)} cannot be described.`);
    // The filter's part Db2 decides as the engine does: rows it refuses are not read at all.
    const params: IbmiValue[] = [];
    const sql = options.rowFilter && pushdownSql(options.rowFilter, db2Pushdown(layout, params));
    return readMemberChunk(
      this.members,
      layout,
      this.membersRead(layout),
      this.identify(layout) === 'rrn',
      withColumnPolicies(this.form, this.entity(layout.ref)?.invalidValues),
      cursor,
      limit,
      sql ? { sql, params } : undefined,
    );
  }

  async readRows(table: TableRef, keys: readonly Row[]): Promise<Row[]> {
    const [layout] = await this.layoutsOf([table]);
    if (!layout) throw new Error(`${tableKey(table)} cannot be described.`);
    // SQL reads LOB columns whole, as a copy does.
    return readMemberRows(
      this.members,
      layout,
      this.membersRead(layout),
      this.identify(layout),
      withColumnPolicies(this.form, this.entity(layout.ref)?.invalidValues),
      keys,
    );
  }

  readChanges(
    tables: readonly TableRef[],
    checkpoint: Checkpoint,
    options: { maxRows?: number } = {},
  ): Promise<ChangeBatch> {
    return readJournalChanges(this.files(), tables, checkpoint, options);
  }

  /** What reading changes needs, as the source stands now (its offset and stop are set at init). */
  private files(): JournalFiles {
    return {
      c: this.c,
      sync: this.sync,
      members: this.members,
      form: this.form,
      rate: this.rate,
      layoutSince: this.layoutSince,
      utcOffset: this.utcOffset,
      stop: this.stop,
      profile: this.profile,
      ...(this.heartbeat && { heartbeatTag: this.heartbeat.tag }),
      layoutsOf: (tables) => this.layoutsOf(tables),
      journalsOf: (tables) => this.journalsOf(tables),
      forgetLayout: (table) => {
        this.layouts.delete(table);
        this.layoutSince.delete(table);
      },
      membersRead: (layout) => this.membersRead(layout),
      identify: (layout) => this.identify(layout),
      entity: (ref) => this.entity(ref),
    };
  }

  async loadCheckpoint(): Promise<Checkpoint> {
    return this.sync.load();
  }

  async saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    const keys = Object.keys(checkpoint);
    const refs = keys.map((k) => {
      const [schema = '', ...rest] = k.split('.');
      return { schema, table: rest.join('.') };
    });
    const journals = await this.journalsOf(refs);
    // Never a CHGJRN … DLTRCV(*YES) on a journal a source file is read through.
    refuseSyncJournal(this.sync.library, refs, journals);
    await this.sync.save(
      keys.map((k, i) => ({ table: k, journal: journals[i] as JournalName, position: checkpoint[k] ?? '' })),
    );
    if (++this.saves % (this.o.rotateEvery ?? ROTATE_EVERY) === 0) await this.sync.rotateJournal();
  }

  async backlog(tables: readonly TableRef[], checkpoint: Checkpoint): Promise<SourceBacklog> {
    const journals = await this.journalsOf(tables);
    const chains = await receiverChains(this.c, journals);
    const { rowsToRead, perTable } = journalBacklog(tables, checkpoint, journals, chains);
    return {
      rowsToRead,
      versionsBehind: null,
      perTable,
      measuredMinutesLeft: this.rate.minutesFor(rowsToRead),
      warnings: await this.lossWarnings(tables, checkpoint, journals, chains),
    };
  }

  /** Warnings before loss: entries not read yet in a journal whose receivers the system deletes. */
  async lossWarnings(
    tables: readonly TableRef[],
    checkpoint: Checkpoint,
    known?: readonly JournalName[],
    knownChains?: ReadonlyMap<string, readonly ReceiverInfo[]>,
  ): Promise<string[]> {
    // A table not journaled (yet) has no receiver to lose: the checks say what it lacks. Without the
    // journals at hand (the engine's idle reading), one query first: most systems have no journal that
    // deletes its receivers, and then finding each table's journal is work for nothing.
    if (!known) {
      if (!(await anyJournalDeletesReceivers(this.c))) return [];
      const reading = tables.filter((t) => checkpoint[tableKey(t)] !== undefined);
      const journaled = await this.journalsOf(reading).catch((error: unknown) => {
        if (error instanceof NotJournaled) return null;
        throw error;
      });
      return journaled ? this.lossWarnings(reading, checkpoint, journaled, knownChains) : [];
    }
    const chains = knownChains ?? (await receiverChains(this.c, known));
    return receiversAtRisk(this.c, receiversNeeded(tables, checkpoint, known, chains));
  }

  async close(): Promise<void> {
    await this.c.close();
  }
}

export async function openJournalSource(options: JournalSourceOptions): Promise<JournalSource> {
  const c = await openIbmi(options.credentials, options.configuration);
  const source = new JournalSource(c, options);
  try {
    await source.init();
  } catch (error) {
    await c.close().catch(() => undefined);
    throw error;
  }
  return source;
}
