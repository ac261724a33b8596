// The names of the contract's methods and its channel: all the preload needs, without any schema code.
// shared/api.ts must define exactly these methods (checked by the compiler through `satisfies`).
export const METHOD_NAMES = [
  'getAppInfo',
  'listAgentTypes',
  'validateAgentSection',
  'testHostCredentials',
  'applyAgentConfig',
  'listEngineProfiles',
  'saveEngineProfile',
  'deleteEngineProfile',
  'checkEngine',
  'listEngineAgents',
  'testEngineAgent',
  'applyEngineFix',
  'controlEngineAgent',
  'listPipelineEvents',
  'getEngineBacklog',
  'listEngineTables',
  'describeEngineTableColumns',
  'searchEngineCatalog',
  'getEngineEntities',
  'saveEngineEntities',
  'deleteEnginePipeline',
  'deleteEngineAgent',
  'listEngineSnapshots',
  'requestEngineSnapshot',
  'rewindEnginePipeline',
  'listEngineExceptions',
  'actOnEngineExceptions',
  'getEngineVerify',
  'requestEngineVerify',
  'startSandbox',
  'getLocalEngine',
  'rotateLocalEngineToken',
  'createReadinessReport',
  'getSandboxDetails',
  'setSandboxWorkload',
  'createDiagnostics',
  'openDiagnostics',
  'getFleet',
  'getEngineSeries',
  'getAlertSettings',
  'saveAlertSettings',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** Electron: the one IPC channel every method travels on. */
export const IPC_CHANNEL = 'api';

/** Electron: the channel main pushes its messages on (shared/push.ts), unasked. */
export const PUSH_CHANNEL = 'push';

/** What the preload puts on `window.api`: one function per method, answering with an envelope. */
export type RawApi = { [M in MethodName]: (input: unknown) => Promise<unknown> };
/** What the preload puts on `window.push`: a listener for main's messages (unparsed), and its removal. */
export interface RawPush {
  subscribe(listener: (message: unknown) => void): () => void;
}
