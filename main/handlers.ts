// Every contract method as a plain function of (input, deps): callable from IPC, HTTP and tests alike.
import type { z } from 'zod';
import { agentTypes, AGENT_TYPES } from '../shared/agents';
import type { contract, MethodName, MethodOutput } from '../shared/api';
import { parseSection, redactSection } from '../shared/config/parse';
import { createEngineClient, EngineError, type EngineClient } from './client/engineClient';
import type { LocalEngineHandle } from './localEngine';
import { LOCAL_PROFILE_ID, type ProfileStore } from './profiles';

export interface Deps {
  mode: 'electron' | 'web';
  appVersion: string;
  profiles: ProfileStore;
  localEngine: LocalEngineHandle;
  /** Seam: how the app reaches an engine; tests may point it elsewhere. */
  connectEngine: (baseUrl: string, token: string) => EngineClient;
}

export const connectEngine = (baseUrl: string, token: string) =>
  createEngineClient({ baseUrl, token, timeoutMs: 5000 });

type Parsed<M extends MethodName> = z.output<(typeof contract)[M]['input']>;
export type Handlers = {
  [M in MethodName]: (input: Parsed<M>, deps: Deps) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

/** A refusal the user can act on; the dispatcher answers it as invalid input, with this message. */
export class UserError extends Error {}

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

  listEngineProfiles: (_input, deps) => deps.profiles.list(),

  saveEngineProfile: (input, deps) => {
    if (input.id === LOCAL_PROFILE_ID) throw new UserError('The local engine profile is managed by the app.');
    return deps.profiles.save(input);
  },

  deleteEngineProfile: ({ id }, deps) => {
    if (id === LOCAL_PROFILE_ID) throw new UserError('The local engine profile cannot be deleted.');
    return { deleted: deps.profiles.remove(id) };
  },

  checkEngine: async ({ id }, deps) => {
    const profile = deps.profiles.get(id);
    if (!profile) throw new UserError(`There is no engine profile "${id}".`);
    const token = await deps.profiles.token(id);
    if (!token)
      return {
        ok: false,
        message: 'No token is stored for this engine: edit the profile and paste its token.',
      };
    try {
      const pipelines = await deps.connectEngine(profile.baseUrl, token).listPipelines({});
      return { ok: true, message: `Connected to ${profile.baseUrl}: ${pipelines.length} pipeline(s).` };
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      if (error.status === 401)
        return {
          ok: false,
          message: 'The engine refused the token: paste the current one into the profile.',
        };
      return { ok: false, message: error.message };
    }
  },

  getLocalEngine: (_input, deps) => ({
    ...deps.localEngine.status(),
    tokenToShow: deps.localEngine.takeTokenToShow(),
  }),

  rotateLocalEngineToken: async (_input, deps) => ({ token: await deps.localEngine.rotateToken() }),
};
