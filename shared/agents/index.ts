import { z } from 'zod';
import type { Section, SectionId } from '../config/section';
import {
  CHANGE_TRACKING_KEYLESS,
  changeTrackingConfiguration,
  changeTrackingHostCredentials,
} from './changeTracking';
import { natsConfiguration, natsHostCredentials } from './nats';
import { effectiveJournalFormats, journalConfiguration, journalHostCredentials } from './journal';
import {
  postgresqlConfiguration,
  postgresqlHostCredentials,
  sqliteConfiguration,
  sqliteHostCredentials,
} from './targets';
// A new type's sections: import them above this line.

export const AGENT_TYPES = [
  'change-tracking',
  'journal',
  'sqlite',
  'postgresql',
  'nats-jetstream',
  // A new type's name: above this line.
] as const;
export const agentTypeSchema = z.enum(AGENT_TYPES);
export type AgentType = z.infer<typeof agentTypeSchema>;

export interface AgentTypeDefinition {
  type: AgentType;
  title: string;
  database: string;
  description: string;
  /** What an agent of this type can be in a pipeline. */
  roles: readonly ('source' | 'target')[];
  sections: Record<SectionId, Section>;
  /** How the app presents the type, declared here so that renderer/ names no type. */
  ui?: AgentTypeUi;
}

export interface AgentTypeUi {
  /** The agent id the wizard's Apply offers for a new source agent of this type. */
  defaultAgentId?: string;
  /** Its name among the targets, when it differs from its title (the change-tracking type: SQL Server). */
  targetTitle?: string;
  /** A note under one step of the wizard. */
  stepNotes?: Partial<Record<SectionId, string>>;
  /** What an empty choice of a configuration field falls back to, from the accepted host credentials. */
  inheritedChoice?: (key: string, hostCredentials: Record<string, unknown> | undefined) => string;
  /** The target table a chosen source table gets by default. */
  defaultTargetName?: (t: { schema: string; table: string }) => string;
  /**
   * A source table without a primary key, in the table picker: `choose-key`, the DBA picks a logical
   * key or RRN for it (`note` says so in its row, `beforeSaving` when none is chosen yet); `refused`,
   * it cannot be replicated, for this reason.
   */
  keylessTables?:
    { kind: 'choose-key'; note: string; beforeSaving: string } | { kind: 'refused'; reason: string };
  /** The picker offers each table a CCSID override (an entity's forceCcsid, docs/journal-agent.md). */
  ccsidOverrides?: true;
  /** What a rewind of a pipeline reading this source applies again, said before the DBA asks for one. */
  rewindNote?: string;
}

export const agentTypes: Record<AgentType, AgentTypeDefinition> = {
  'change-tracking': {
    type: 'change-tracking',
    title: 'Change tracking',
    database: 'SQL Server',
    description:
      'Reads changes from SQL Server through its Change Tracking feature. Every sourced table needs a primary key.',
    // As a target, the runner writes through its connection (the two-way case of recursion protection).
    roles: ['source', 'target'],
    sections: { hostCredentials: changeTrackingHostCredentials, configuration: changeTrackingConfiguration },
    ui: {
      targetTitle: 'SQL Server',
      // dbo's tables by their name alone; another schema's prefixed, so two schemas' tables do not meet.
      defaultTargetName: (t) =>
        (t.schema.toLowerCase() === 'dbo' ? t.table : `${t.schema}_${t.table}`).toLowerCase(),
      keylessTables: { kind: 'refused', reason: CHANGE_TRACKING_KEYLESS },
      rewindNote:
        'Change Tracking keeps no history: each key changed since the point is applied again with its row as it is now, not as it was then.',
    },
  },
  journal: {
    type: 'journal',
    title: 'Journal',
    database: 'IBM i',
    description:
      'Reads changes from IBM i tables through their journals (DSPJRN). Every sourced table must be journaled with IMAGES(*BOTH).',
    roles: ['source'],
    sections: { hostCredentials: journalHostCredentials, configuration: journalConfiguration },
    ui: {
      defaultAgentId: 'ibmi',
      ccsidOverrides: true,
      rewindNote:
        "The journal's entries since the point are applied again, in order; the receivers holding them must still be on the system.",
      keylessTables: {
        kind: 'choose-key',
        note: 'No primary key: choose how its rows are identified (a logical key or RRN).',
        beforeSaving:
          "no primary key: choose how its rows are identified (a logical key's columns, or RRN) before saving.",
      },
      stepNotes: {
        configuration:
          'Date and time formats are set in two places. A format chosen here wins; left empty, the one in host credentials (Advanced) applies; if neither is set, iso.',
      },
      inheritedChoice: (key, hostCredentials) => {
        const inherited = effectiveJournalFormats(hostCredentials, undefined);
        return `(inherit: ${key === 'timeFormat' ? inherited.timeFormat : inherited.dateFormat} from host credentials)`;
      },
    },
  },
  sqlite: {
    type: 'sqlite',
    title: 'SQLite file',
    database: 'SQLite',
    description:
      "A target of the local runner: a SQLite file, no set-up. A pipeline without a target agent writes to one in the app's data folder.",
    roles: ['target'],
    sections: { hostCredentials: sqliteHostCredentials, configuration: sqliteConfiguration },
  },
  postgresql: {
    type: 'postgresql',
    title: 'PostgreSQL',
    database: 'PostgreSQL',
    description:
      'A target of the local runner: tables created from the source columns in a PostgreSQL schema.',
    roles: ['target'],
    sections: { hostCredentials: postgresqlHostCredentials, configuration: postgresqlConfiguration },
  },
  'nats-jetstream': {
    type: 'nats-jetstream',
    title: 'NATS JetStream',
    database: 'NATS JetStream',
    description:
      "Each change as a Debezium change event on a JetStream stream, for any number of consumers (Debezium's JDBC sink, Flink, your own services); as a source, such a stream applied to SQLite, PostgreSQL or SQL Server, its tables shared among engines.",
    roles: ['source', 'target'],
    sections: { hostCredentials: natsHostCredentials, configuration: natsConfiguration },
  },
  // A new type's declaration: above this line.
};

export const SECTION_IDS = ['hostCredentials', 'configuration'] as const satisfies readonly SectionId[];
export const sectionIdSchema = z.enum(SECTION_IDS);

/** What a list of agent types shows of each. */
export const agentTypeSummarySchema = z.object({
  type: agentTypeSchema,
  title: z.string(),
  database: z.string(),
  description: z.string(),
  /** Whether the app offers it as a source, as a target, or both. */
  roles: z.array(z.enum(['source', 'target'])),
});

/** Every agent type as a list shows it (the control API's and the app's), in the registry's order. */
export const agentTypeSummaries = (): z.infer<typeof agentTypeSummarySchema>[] =>
  AGENT_TYPES.map((type) => {
    const { title, database, description, roles } = agentTypes[type];
    return { type, title, database, description, roles: [...roles] };
  });
