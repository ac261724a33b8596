// The store's shape in one place: each slice's state, and the types they hold. The slices (one file
// each, with their actions) and the store itself import it, so no slice imports another's types.
import type { z } from 'zod';
import type { SchemaChanges } from '../../shared/agents/common';
import type { ExceptionsAnswer } from '../../shared/exceptions';
import type {
  agentTypeSummarySchema,
  appInfoSchema,
  applyAnswerSchema,
  engineAgentsSchema,
  EngineProfile,
  localEngineSchema,
} from '../../shared/api';
import type { AgentType } from '../../shared/agents';
import type { SectionId } from '../../shared/config/section';
import type { Problem } from '../../shared/config/problems';
import type {
  backlogAnswerSchema,
  CatalogAnswer,
  CheckResult,
  Entity,
  pipelineEventSchema,
  TableActivity,
  TableState,
} from '../../shared/controlApi';
import type { DiagnosticsView } from '../../shared/diagnostics';
import type { SeriesAnswer, SeriesWindow } from '../../shared/liveFeed';
import type { AlertSettings, FleetEngine } from '../../shared/push';
import type { PipelineSection, Screen } from '../../shared/route';
import type { SandboxDetails } from '../../shared/sandbox';
import type { TableMode } from '../../shared/shaping';
import type { SnapshotsAnswer } from '../../shared/snapshots';
import type { VerifyAnswer } from '../../shared/verify';
import type { Api } from '../platform/api';
import type { RunAddress } from './answerOrder';
import type { FormValues } from './formValues';

export interface AppSliceState {
  api?: Api;
  appInfo?: z.infer<typeof appInfoSchema>;
  agentTypes: z.infer<typeof agentTypeSummarySchema>[];
  loadError?: string;
}

export interface DiagnosticsSliceState {
  diagnostics: { view?: DiagnosticsView; openedName?: string; error?: string; busy: boolean; saved?: string };
}

export interface EnginesSliceState {
  localEngine?: z.infer<typeof localEngineSchema>;
  profiles: EngineProfile[];
  /** The last check of each profile, by id. */
  engineChecks: Record<string, { ok: boolean; message: string } | 'checking'>;
  /** A token to show once (first start or rotation), kept until the user dismisses it. */
  revealedToken?: { token: string; why: string };
  enginesError?: string;
}

export interface FleetSliceState {
  fleet: {
    engines: FleetEngine[];
    /** Whether main's pushes reach this window now. */
    channel: 'open' | 'closed' | 'none';
  };
  alertSettings?: AlertSettings;
  alertsError?: string;
}

export interface PipelinePageSliceState {
  pipelinePage: {
    profileId?: string;
    agents?: z.infer<typeof engineAgentsSchema>['pipelines'];
    /** `pipelineId/agentId` */
    selected?: string;
    /** `tables`: how many the pipeline replicates, read with the checks (0 says "choose tables"). */
    results?: { checkedAt: string; checks: CheckResult[]; tables?: number };
    busy?: 'loading' | 'checking' | 'fixing' | 'acting';
    /** The selected pipeline's recent events, newest last. */
    events?: z.infer<typeof pipelineEventSchema>[];
    backlog?: z.infer<typeof backlogAnswerSchema>;
    /** The selected pipeline's table copies, while it runs. */
    snapshots?: SnapshotsAnswer;
    /** The selected pipeline's verify or repair, and the reports kept. */
    verify?: VerifyAnswer;
    /** Rows the target refused, kept aside by the engine: counts per table and the newest rows. */
    exceptions?: ExceptionsAnswer;
    /** The table whose kept rows are listed; all tables when unset. */
    exceptionsTable?: string;
    /** The selected agent's entity tables, when asked for. */
    tables?: TableState[] | 'loading';
    /** What the pipeline applied of each table lately (with the tables). */
    tableActivity?: TableActivity[];
    /** The selected agent's charts over the chosen window, kept current by pushed events. */
    series?: SeriesAnswer;
    seriesWindow?: SeriesWindow;
    seriesError?: string;
    /** The table whose story is open in the Tables section. */
    storyTable?: string;
    notice?: string;
    error?: string;
  };
}

export interface SandboxSliceState {
  /** null: the sandbox has not been started in this app. */
  sandbox?: SandboxDetails | null;
  sandboxError?: string;
}

export interface StartPlan {
  at: RunAddress;
  /** Statements the agent runs at Start. */
  atStart: string[];
  failed: CheckResult[];
  tables: number;
}

export interface StartPlanSliceState {
  startPlan?: StartPlan | 'reading';
}

export interface PickerAddress {
  profileId: string;
  pipelineId: string;
  agentId: string;
  /** The source's agent type: it decides the default target names. */
  agentType: string;
}

export interface ChosenTable {
  schema: string;
  table: string;
  target: string;
  /** The table's own schema-change policy; the pipeline's when left out. */
  schemaChanges?: SchemaChanges;
  /**
   * How its rows are told apart, for a table without a primary key (a logical key's columns as typed,
   * or RRN); left out: by the primary key.
   */
  rowIdentification?: { kind: 'rrn' } | { kind: 'logicalKey'; columns: string };
  /** Chosen from the catalogue without a primary key: its rows need a key chosen before saving. */
  keyless?: boolean;
  /** Its row filter as typed (docs/shaping.md); empty or left out: every row. */
  rowFilter?: string;
  /** How the target holds its rows (docs/shaping.md); left out: live. */
  tableMode?: TableMode['kind'];
  /** Journal agent: the CCSID its text is really in, as typed ("273", "NAME=273"); empty: the file's tags. */
  forceCcsid?: string;
}

export interface TablePickerState {
  address: PickerAddress;
  search: string;
  schema: string;
  /** The cursors of the pages before this one (the first page's is null). */
  cursors: (string | null)[];
  page?: CatalogAnswer;
  loading: boolean;
  /** By `keyOf`: the tables chosen and the target table each writes. */
  chosen: Record<string, ChosenTable>;
  /** The entities as stored when the picker opened. */
  stored: Entity[];
  saving: boolean;
  /** The last save's outcome, shown beside its button. */
  result?: { ok: boolean; message: string };
  /** Every matching page being read to choose (or let go) all it matches. */
  choosingAll?: boolean;
  /** What choosing all matching did, said beside its buttons. */
  notice?: string;
  error?: string;
}

export interface TablePickerSliceState {
  picker: TablePickerState | undefined;
}

export interface WizardState {
  agentType: AgentType;
  /** What the agent is in its pipeline: its source, or where it writes. */
  role: 'source' | 'target';
  /** The pipeline Apply offers first (a target is set for a pipeline that exists). */
  pipelineId?: string;
  /** Where Apply sends the settings, as the DBA typed it: kept across Back and Next. */
  applyTo: ApplyAddress;
  /** The field a refused Apply named, to be focused once its step shows. */
  focusField?: string;
  step: WizardStep;
  values: Record<SectionId, FormValues>;
  /** Fields the user has edited or tried to submit: only these show errors while typing. */
  touched: Record<SectionId, Record<string, boolean>>;
  /** What main said at the last submit, until the field is edited again. */
  serverProblems: Record<SectionId, Problem[]>;
  /** The objects main accepted, secrets redacted. */
  accepted: Partial<Record<SectionId, Record<string, unknown>>>;
  busy: boolean;
  error?: string;
  /** The last "Test connection" at step 1. */
  connection?: CheckResult | 'testing';
  /** The last "Apply" to an engine: each request with its answer. */
  applied?: z.infer<typeof applyAnswerSchema> | 'applying';
  /** What the DBA agreed to at the last Apply (to join a pipeline that exists), kept for its next ask. */
  consent?: ApplyConsent;
  /** Editing an agent an engine holds: its address and state; secrets left blank keep the stored ones. */
  editing?: { profileId: string; pipelineId: string; agentId: string; state: string };
}

/** What the DBA agreed to, one question at a time, before Apply stores anything. */
export interface ApplyConsent {
  /** Add to (or change) a pipeline the engine already holds. */
  joinExisting?: boolean;
  /** Store settings whose sign-on failed. */
  despiteSignOn?: boolean;
}

export interface ApplyAddress {
  profileId: string;
  pipelineId: string;
  agentId: string;
  /** For a pipeline this Apply creates: what the DBA calls it (its id when blank). */
  pipelineName?: string;
}

export interface WizardSliceState {
  wizard: WizardState | undefined;
}

export type WizardStep = SectionId | 'done';

export type StoreState = AppSliceState &
  WizardSliceState &
  EnginesSliceState &
  DiagnosticsSliceState &
  PipelinePageSliceState &
  FleetSliceState &
  TablePickerSliceState &
  StartPlanSliceState &
  SandboxSliceState & {
    screen: Screen;
    /** The open pipeline's section on the Pipelines screen. */
    section: PipelineSection;
  };
