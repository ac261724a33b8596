import { z } from 'zod';
import type { Section, SectionId } from '../config/section';
import { changeTrackingConfiguration, changeTrackingHostCredentials } from './changeTracking';
import { journalConfiguration, journalHostCredentials } from './journal';

export const AGENT_TYPES = ['change-tracking', 'journal'] as const;
export const agentTypeSchema = z.enum(AGENT_TYPES);
export type AgentType = z.infer<typeof agentTypeSchema>;

export interface AgentTypeDefinition {
  type: AgentType;
  title: string;
  database: string;
  description: string;
  sections: Record<SectionId, Section>;
}

export const agentTypes: Record<AgentType, AgentTypeDefinition> = {
  'change-tracking': {
    type: 'change-tracking',
    title: 'Change tracking',
    database: 'SQL Server',
    description:
      'Reads changes from SQL Server through its Change Tracking feature. Every sourced table needs a primary key.',
    sections: { hostCredentials: changeTrackingHostCredentials, configuration: changeTrackingConfiguration },
  },
  journal: {
    type: 'journal',
    title: 'Journal',
    database: 'IBM i',
    description:
      'Reads changes from IBM i tables through their journals (DSPJRN). Every sourced table must be journaled with IMAGES(*BOTH).',
    sections: { hostCredentials: journalHostCredentials, configuration: journalConfiguration },
  },
};

export const SECTION_IDS = ['hostCredentials', 'configuration'] as const satisfies readonly SectionId[];
export const sectionIdSchema = z.enum(SECTION_IDS);

/** What a list of agent types shows of each. */
export const agentTypeSummarySchema = z.object({
  type: agentTypeSchema,
  title: z.string(),
  database: z.string(),
  description: z.string(),
});
