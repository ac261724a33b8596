// Every contract method as a plain function of (input, deps): callable from IPC, HTTP and tests alike.
import type { ExceptionsAnswer } from '../../shared/exceptions';
import type { z } from 'zod';
import { agentTypeSummaries, agentTypes } from '../../shared/agents';
import type { contract, MethodName, MethodOutput } from '../../shared/api';
import { parseSection, redactSection, withKeptSecrets } from '../../shared/config/parse';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  createEngineClient,
  EngineError,
  parseBaseUrl,
  TOKEN_REFUSED,
  type EngineClient,
  type EngineClientOptions,
} from '../client/engineClient';
import { peekFingerprint } from '../client/pinnedTls';
import { BundleError, buildDiagnosticsBundle, readDiagnosticsBundle } from '../engine/diagnostics';
import type { LocalEngineHandle } from './localEngine';
import { LOCAL_PROFILE_ID, type Profile, type ProfileStore } from './profiles';
import type { SandboxPipeline, SandboxSystems } from '../sandbox/mode';
import type { SandboxDetails, WorkloadStatus } from '../../shared/sandbox';
import { fieldsRefused, testConnection } from './signOnCheck';
import type { Fleet } from './fleet';

/** What a retry or a discard answers: the rows kept now, and what it did. */
type ExceptionsActed = ExceptionsAnswer & Partial<Record<'applied' | 'refusedAgain' | 'discarded', number>>;
import type { AlertSettingsStore } from './alerts';

export interface Deps {
  mode: 'electron' | 'web';
  appVersion: string;
  profiles: ProfileStore;
  localEngine: LocalEngineHandle;
  /** Seam: how the app reaches an engine; tests may point it elsewhere. */
  connectEngine: (
    baseUrl: string,
    token: string,
    timeoutMs?: number,
    pinnedCertificate?: string,
  ) => EngineClient;
  logFiles: () => string[];
  /** The desktop app's printer (Electron's printToPDF); null in web mode, where the browser prints. */
  printToPdf: ((html: string) => Promise<Uint8Array>) | null;
  /** Sandbox mode: the simulated SQL Server with the sample Sales database, started on request. */
  sandbox: {
    start(): Promise<SandboxSystems>;
    details(): Promise<SandboxDetails | null>;
    setWorkload(changesPerSecond: number): Promise<WorkloadStatus>;
  };
  /** Every engine watched live, pushed to the renderer. */
  fleet: Fleet;
  alertSettings: AlertSettingsStore;
  /** Seam: the clock. */
  now: () => Date;
}

export const connectEngine = (baseUrl: string, token: string, timeoutMs = 5000, pinnedCertificate?: string) =>
  createEngineClient({ baseUrl, token, timeoutMs, pinnedCertificate });

/**
 * How to reach a profile's engine: its address, token and certificate. An https:// engine's certificate
 * is pinned on first use (read before anything is sent) and required from then on; `pinnedNow` says when
 * this call pinned it.
 */
export async function engineAccess(
  deps: Pick<Deps, 'profiles'>,
  profile: Profile,
): Promise<{ options: EngineClientOptions; pinnedNow: string | null }> {
  const token = await deps.profiles.token(profile.id);
  if (!token)
    throw new UserError('No token is stored for this engine: edit the profile and paste its token.');
  const url = parseBaseUrl(profile.baseUrl);
  let pin = profile.certificateFingerprint;
  let pinnedNow: string | null = null;
  if (url.protocol === 'https:' && !pin) {
    try {
      pin = pinnedNow = await peekFingerprint(url);
    } catch {
      throw new EngineError(`Cannot reach the engine at ${url.origin}.`, 0);
    }
    deps.profiles.pin(profile.id, pin);
  }
  return { options: { baseUrl: profile.baseUrl, token, pinnedCertificate: pin ?? undefined }, pinnedNow };
}

async function clientFor(
  deps: Deps,
  profile: Profile,
  timeoutMs?: number,
): Promise<{ client: EngineClient; pinnedNow: string | null }> {
  const { options, pinnedNow } = await engineAccess(deps, profile);
  return {
    client: deps.connectEngine(options.baseUrl, options.token, timeoutMs, options.pinnedCertificate),
    pinnedNow,
  };
}

/** Checks reach the source database, whose login can take its own 15 s to time out. */
const CHECK_TIMEOUT_MS = 60_000;

/** Runs a call on a profile's engine; the engine's refusal reaches the user as a UserError in its words. */
/** An engine refused one step of an apply: the steps so far are the answer. */
class Refused extends Error {
  constructor(override readonly cause: EngineError) {
    super(cause.message);
  }
}

/** The fields an engine's refusal names, for the form to show beside them. */
const problemsOf = (refused: Refused) =>
  (refused.cause.problem?.errors ?? []).map((e) => ({
    pointer: e.pointer,
    received: '',
    rule: '',
    message: e.detail,
  }));

async function onEngine<T>(
  deps: Deps,
  profileId: string,
  call: (client: EngineClient) => Promise<T>,
): Promise<T> {
  const profile = deps.profiles.get(profileId);
  if (!profile) throw new UserError(`There is no engine profile "${profileId}".`);
  try {
    return await call((await clientFor(deps, profile, CHECK_TIMEOUT_MS)).client);
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    if (error.status === 401) throw new UserError(TOKEN_REFUSED);
    throw new UserError(error.message);
  }
}

type Parsed<M extends MethodName> = z.output<(typeof contract)[M]['input']>;
export type Handlers = {
  [M in MethodName]: (input: Parsed<M>, deps: Deps) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

function pickVersions(versions: NodeJS.ProcessVersions): Record<string, string> {
  return Object.fromEntries(
    Object.entries(versions).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** A refusal the user can act on; the dispatcher answers it as invalid input, with this message. */
export class UserError extends Error {}

/** A sandbox pipeline with its source agent, created when absent; set up anew unless it runs. */
async function configureSandboxPipeline(client: EngineClient, setup: SandboxPipeline): Promise<void> {
  const { ids } = setup;
  if (!(await client.listPipelines({})).some((p) => p.id === ids.pipelineId)) {
    await client.createPipeline({}, { id: ids.pipelineId, name: setup.name });
    await client.createAgent(
      { pipelineId: ids.pipelineId },
      { id: ids.agentId, type: setup.type, role: 'source' },
    );
  }
  const agent = await client.getAgent(ids);
  // A running pipeline keeps its settings; otherwise it points at this start's sandbox (a new port,
  // a new simulated IBM i host name).
  if (agent.state === 'running' || agent.state === 'paused') return;
  await client.putCredentials(ids, { hostCredentials: setup.hostCredentials });
  await client.putSpecific(ids, { configuration: setup.configuration });
  await client.putEntities({ pipelineId: ids.pipelineId }, { entities: setup.entities });
}

/** A time as a file name may hold it: 2026-11-27T06-22-17-123Z. */
const fileStamp = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

export const handlers: Handlers = {
  getAppInfo: (_input, deps) => ({
    name: 'CDC Admin',
    version: deps.appVersion,
    mode: deps.mode,
    versions: pickVersions(process.versions),
  }),

  listAgentTypes: () => agentTypeSummaries(),

  validateAgentSection: ({ agentType, section, body, keepSecrets }) => {
    const definition = agentTypes[agentType].sections[section];
    const result = parseSection(definition, keepSecrets ? withKeptSecrets(definition, body) : body);
    return result.ok ? { ok: true, value: redactSection(definition, result.value) } : result;
  },

  testHostCredentials: ({ agentType, hostCredentials, editing }, deps) =>
    editing
      ? onEngine(deps, editing.profileId, async (client) => {
          try {
            return await client.testCredentials(editing, { hostCredentials });
          } catch (error) {
            // A value the engine refuses is a failed sign-on said by field, as this app's own parse says it.
            if (!(error instanceof EngineError) || error.status !== 422) throw error;
            const fields = (error.problem?.errors ?? []).map((e) => e.detail);
            return fieldsRefused(fields.length > 0 ? fields : [error.message]);
          }
        })
      : testConnection(agentType, hostCredentials),

  applyAgentConfig: async (input, deps) => {
    const ids = { pipelineId: input.pipelineId, agentId: input.agentId };
    const { roles } = agentTypes[input.agentType];
    const role = input.role ?? roles[0] ?? 'source';
    if (!roles.includes(role))
      throw new UserError(`role: a ${input.agentType} agent can be ${roles.join(' or ')}, not ${role}.`);
    const steps: MethodOutput<'applyAgentConfig'>['steps'] = [];
    return onEngine(deps, input.profileId, async (client) => {
      /** One request, recorded with the engine's answer; a refusal ends the apply. */
      const send = async <T>(
        request: string,
        status: number,
        call: () => Promise<T>,
        said: (r: T) => string,
      ) => {
        try {
          const result = await call();
          steps.push({ request, status, detail: said(result) });
          return result;
        } catch (error) {
          if (!(error instanceof EngineError) || error.status === 0 || error.status === 401) throw error;
          steps.push({ request, status: error.status, detail: error.problem?.detail ?? error.message });
          throw new Refused(error);
        }
      };
      const base = `/pipelines/${ids.pipelineId}`;
      const exists = (await client.listPipelines({})).some((p) => p.id === ids.pipelineId);
      // A pipeline of that id already holds agents: adding to it (or replacing an agent's settings)
      // is for the DBA to confirm, never a surprise.
      if (exists && !input.joinExisting) {
        const held = await client.getPipeline({ pipelineId: ids.pipelineId });
        return {
          steps,
          problems: [],
          agent: null,
          existing: {
            pipelineId: ids.pipelineId,
            agents: held.agents.map((a) => ({ id: a.id, type: a.type, role: a.role })),
          },
        };
      }
      // Every rule of both PUTs first, and the sign-on, with nothing stored: a refusal leaves the
      // engine as it was (an edit is never half applied), and a failing sign-on is the DBA's call.
      const checked = await send(
        `POST ${base}/agents/${ids.agentId}/config/validate`,
        200,
        () =>
          client.validateConfig(ids, {
            type: input.agentType,
            role,
            hostCredentials: input.hostCredentials,
            configuration: input.configuration,
            signOn: true,
          }),
        (answer) =>
          `both objects accepted, nothing stored; sign-on ${answer.signOn?.status ?? 'not tried'}: ${answer.signOn?.message ?? ''}`,
      ).catch((error: unknown) => {
        if (error instanceof Refused) return error;
        throw error;
      });
      if (checked instanceof Refused) return { steps, problems: problemsOf(checked), agent: null };
      if (checked.signOn && checked.signOn.status !== 'passed' && !input.applyDespiteSignOn)
        return { steps, problems: [], agent: null, signOn: checked.signOn };
      /** What this Apply made, removed again when a later step is refused: nothing half-made stays. */
      const made = { pipeline: false, agent: false };
      const undo = async () => {
        if (made.pipeline)
          await send(
            `DELETE ${base}`,
            204,
            () => client.deletePipeline({ pipelineId: ids.pipelineId }),
            () => `pipeline "${ids.pipelineId}" removed again: this Apply made it, and a step was refused`,
          );
        else if (made.agent)
          await send(
            `DELETE ${base}/agents/${ids.agentId}`,
            204,
            () => client.deleteAgent(ids),
            () => `agent "${ids.agentId}" removed again: this Apply made it, and a step was refused`,
          );
      };
      try {
        if (!exists) {
          await send(
            'POST /pipelines',
            201,
            () =>
              client.createPipeline({}, { id: ids.pipelineId, name: input.pipelineName ?? ids.pipelineId }),
            (p) => `pipeline "${p.id}" created`,
          );
          made.pipeline = true;
        }
        const pipeline = await client.getPipeline({ pipelineId: ids.pipelineId });
        if (!pipeline.agents.some((a) => a.id === ids.agentId)) {
          await send(
            `POST ${base}/agents`,
            201,
            () =>
              client.createAgent(
                { pipelineId: ids.pipelineId },
                {
                  id: ids.agentId,
                  type: input.agentType,
                  role,
                },
              ),
            (a) => `${a.type} agent "${a.id}" created as ${a.role}`,
          );
          made.agent = true;
        }
        await send(
          `PUT ${base}/agents/${ids.agentId}/config/credentials`,
          200,
          () => client.putCredentials(ids, { hostCredentials: input.hostCredentials }),
          (answer) => JSON.stringify(answer),
        );
        await send(
          `PUT ${base}/agents/${ids.agentId}/config/specific`,
          200,
          () => client.putSpecific(ids, { configuration: input.configuration }),
          (answer) => JSON.stringify(answer),
        );
        return { steps, problems: [], agent: await client.getAgent(ids) };
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        await undo().catch(() => undefined);
        return { steps, problems: problemsOf(error), agent: null };
      }
    });
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
    try {
      const { client, pinnedNow } = await clientFor(deps, profile);
      const pipelines = await client.listPipelines({});
      const pinned = pinnedNow
        ? ` Its certificate is pinned from now on (SHA-256 ${pinnedNow}): compare it with the fingerprint the engine printed.`
        : '';
      return {
        ok: true,
        message: `Connected to ${profile.baseUrl}: ${pipelines.length} pipeline(s).${pinned}`,
      };
    } catch (error) {
      if (error instanceof UserError) return { ok: false, message: error.message };
      if (!(error instanceof EngineError)) throw error;
      if (error.status === 401)
        return {
          ok: false,
          message: TOKEN_REFUSED,
        };
      return { ok: false, message: error.message };
    }
  },

  listEngineAgents: async ({ profileId }, deps) =>
    onEngine(deps, profileId, async (client) => {
      const pipelines = await client.listPipelines({});
      return { pipelines: await Promise.all(pipelines.map((p) => client.getPipeline({ pipelineId: p.id }))) };
    }),

  testEngineAgent: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, (client) => client.testAgent({ pipelineId, agentId })),

  applyEngineFix: ({ profileId, pipelineId, agentId, checkId }, deps) =>
    onEngine(deps, profileId, (client) => client.applyFix({ pipelineId, agentId, checkId })),

  controlEngineAgent: ({ profileId, pipelineId, agentId, action }, deps) =>
    onEngine(deps, profileId, (client) => {
      const ids = { pipelineId, agentId };
      if (action === 'start') return client.startAgent(ids);
      if (action === 'pause') return client.pauseAgent(ids);
      return client.stopAgent(ids);
    }),

  listPipelineEvents: ({ profileId, pipelineId }, deps) =>
    onEngine(deps, profileId, (client) => client.listEvents({ pipelineId })),

  describeEngineTableColumns: ({ profileId, pipelineId, agentId, tables, sampleRows }, deps) =>
    onEngine(deps, profileId, (client) =>
      client.describeTableColumns(
        { pipelineId, agentId },
        { tables, ...(sampleRows !== undefined && { sampleRows }) },
      ),
    ),
  listEngineTables: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, (client) => client.listAgentTables({ pipelineId, agentId })),

  searchEngineCatalog: ({ profileId, pipelineId, agentId, query }, deps) =>
    onEngine(deps, profileId, (client) => client.searchCatalog({ pipelineId, agentId }, query)),

  getEngineEntities: ({ profileId, pipelineId }, deps) =>
    onEngine(deps, profileId, (client) => client.listEntities({ pipelineId })),

  deleteEngineAgent: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, async (client) => {
      await client.deleteAgent({ pipelineId, agentId });
      return { deleted: true };
    }),

  deleteEnginePipeline: ({ profileId, pipelineId }, deps) =>
    onEngine(deps, profileId, async (client) => {
      await client.deletePipeline({ pipelineId });
      return { deleted: true };
    }),

  saveEngineEntities: ({ profileId, pipelineId, entities }, deps) =>
    onEngine(deps, profileId, (client) => client.putEntities({ pipelineId }, { entities })),

  listEngineSnapshots: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, (client) => client.listSnapshots({ pipelineId, agentId })),

  requestEngineSnapshot: ({ profileId, pipelineId, agentId, table, action }, deps) =>
    onEngine(deps, profileId, (client) =>
      action === 'copy'
        ? client.requestSnapshot({ pipelineId, agentId }, { table })
        : action === 'resume'
          ? client.resumeTable({ pipelineId, agentId }, { table })
          : client.cancelSnapshot({ pipelineId, agentId }, { table }),
    ),

  rewindEnginePipeline: ({ profileId, pipelineId, agentId, to }, deps) =>
    onEngine(deps, profileId, (client) => client.rewindPipeline({ pipelineId, agentId }, { to })),

  listEngineExceptions: ({ profileId, pipelineId, agentId, query }, deps) =>
    onEngine(deps, profileId, (client) => client.listExceptions({ pipelineId, agentId }, query)),

  actOnEngineExceptions: ({ profileId, pipelineId, agentId, action, which }, deps) =>
    onEngine(deps, profileId, async (client): Promise<ExceptionsActed> =>
      action === 'retry'
        ? client.retryExceptions({ pipelineId, agentId }, which)
        : client.discardExceptions({ pipelineId, agentId }, which),
    ),

  getEngineVerify: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, (client) => client.getVerify({ pipelineId, agentId })),

  requestEngineVerify: ({ profileId, pipelineId, agentId, action, request }, deps) =>
    onEngine(deps, profileId, (client) =>
      action === 'verify'
        ? client.requestVerify({ pipelineId, agentId }, request ?? {})
        : action === 'repair'
          ? client.repairVerify({ pipelineId, agentId })
          : client.cancelVerify({ pipelineId, agentId }),
    ),

  getEngineBacklog: ({ profileId, pipelineId, agentId }, deps) =>
    onEngine(deps, profileId, (client) => client.getBacklog({ pipelineId, agentId })),

  startSandbox: async (_input, deps) => {
    const { sqlServer, ibmi } = await deps.sandbox.start();
    return onEngine(deps, LOCAL_PROFILE_ID, async (client) => {
      await configureSandboxPipeline(client, ibmi.pipeline);
      await configureSandboxPipeline(client, sqlServer.pipeline);
      return {
        ...sqlServer.pipeline.ids,
        port: sqlServer.port,
        ibmi: { ...ibmi.pipeline.ids, host: ibmi.host },
      };
    });
  },

  getSandboxDetails: (_input, deps) => deps.sandbox.details(),
  setSandboxWorkload: ({ changesPerSecond }, deps) => deps.sandbox.setWorkload(changesPerSecond),

  getLocalEngine: (_input, deps) => ({
    ...deps.localEngine.status(),
    tokenToShow: deps.localEngine.takeTokenToShow(),
  }),

  rotateLocalEngineToken: async (_input, deps) => ({ token: await deps.localEngine.rotateToken() }),

  getFleet: (_input, deps) => deps.fleet.engines(),
  getEngineSeries: ({ profileId, pipelineId, agentId, window }, deps) =>
    onEngine(deps, profileId, (client) => client.getSeries({ pipelineId, agentId, window })),
  getAlertSettings: (_input, deps) => deps.alertSettings.get(),
  saveAlertSettings: (settings, deps) => deps.alertSettings.save(settings),

  createReadinessReport: async ({ profileId, pipelineId, agentId }, deps) => {
    const bytes = await onEngine(deps, profileId, (client) =>
      client.createReadinessReport({ pipelineId, agentId }),
    );
    const html = new TextDecoder().decode(bytes);
    const stamp = fileStamp(deps.now());
    const pdf = deps.printToPdf ? await deps.printToPdf(html) : null;
    return {
      fileName: `readiness-${pipelineId}-${agentId}-${stamp}`,
      html,
      pdfBase64: pdf ? Buffer.from(pdf).toString('base64') : null,
    };
  },

  createDiagnostics: async ({ profileId }, deps) => {
    const stamp = fileStamp(deps.now());
    if (profileId && profileId !== LOCAL_PROFILE_ID) {
      // A remote engine's bundle, as it makes it (secrets removed there); the app adds nothing to it.
      const bytes = await onEngine(deps, profileId, (client) => client.createDiagnostics({}));
      return {
        fileName: `cdc-engine-${profileId}-diagnostics-${stamp}.zip`,
        base64: Buffer.from(bytes).toString('base64'),
      };
    }
    const engineDeps = deps.localEngine.engineDeps();
    if (!engineDeps) throw new UserError('The local engine is not running, so there is nothing to bundle.');
    const profiles = deps.profiles
      .list()
      .map(({ id, name, baseUrl, tokenSet }) => ({ id, name, baseUrl, tokenSet }));
    const tokens = (await Promise.all(profiles.map((p) => deps.profiles.token(p.id)))).filter(
      (t): t is string => t !== undefined,
    );
    const logs = deps.logFiles().map((file) => ({ name: basename(file), text: readFileSync(file, 'utf8') }));
    const versions = { app: deps.appVersion, mode: deps.mode, ...pickVersions(process.versions) };
    const bytes = await buildDiagnosticsBundle(engineDeps, {
      source: 'app',
      versions,
      profiles,
      logs,
      secrets: tokens,
    });
    return { fileName: `cdc-admin-diagnostics-${stamp}.zip`, base64: Buffer.from(bytes).toString('base64') };
  },

  openDiagnostics: ({ base64 }) => {
    try {
      return readDiagnosticsBundle(Buffer.from(base64, 'base64'));
    } catch (error) {
      if (error instanceof BundleError) throw new UserError(error.message);
      throw error;
    }
  },
};
