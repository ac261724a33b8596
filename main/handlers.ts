// Every contract method as a plain function of (input, deps): callable from IPC, HTTP and tests alike.
import { agentTypes, AGENT_TYPES } from '../shared/agents';
import type { MethodName, MethodOutput } from '../shared/api';
import type { contract } from '../shared/api';
import { parseSection, redactSection } from '../shared/config/parse';
import type { z } from 'zod';

export interface Deps {
  mode: 'electron' | 'web';
  appVersion: string;
}

type Parsed<M extends MethodName> = z.output<(typeof contract)[M]['input']>;
export type Handlers = {
  [M in MethodName]: (input: Parsed<M>, deps: Deps) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

export const handlers: Handlers = {
  getAppInfo: (_input, deps) => ({
    name: 'CDC Admin',
    version: deps.appVersion,
    mode: deps.mode,
    versions: Object.fromEntries(
      Object.entries(process.versions).filter((e): e is [string, string] => typeof e[1] === 'string'),
    ),
  }),

  listAgentTypes: () =>
    AGENT_TYPES.map((type) => {
      const { title, database, description } = agentTypes[type];
      return { type, title, database, description };
    }),

  validateAgentSection: ({ agentType, section, body }) => {
    const definition = agentTypes[agentType].sections[section];
    const result = parseSection(definition, body);
    return result.ok ? { ok: true, value: redactSection(definition, result.value) } : result;
  },
};
