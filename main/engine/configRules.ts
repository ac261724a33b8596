// What an agent's two settings objects must satisfy before the engine stores them, as one set of rules:
// the PUTs apply them one object at a time and store; POST …/config/validate applies them to both
// objects at once (for an agent that may not exist yet) and stores nothing, so an Apply — or a plan
// of pipelines as code — learns every refusal before anything changes.
import { agentTypes } from '../../shared/agents';
import { parseSection, secretKeysOf } from '../../shared/config/parse';
import type { Problem } from '../../shared/config/problems';
import { problem } from '../platform/problem';
import { pluginOf } from '../agents/registry';
import type { StoredAgent } from './store/repo';
import { parsedOr422, secretContext, type EngineDeps } from './operationKit';
import { checkNames } from './nameRules';

/** The spec's bodies wrap one object: `{ "hostCredentials": {…} }` or `{ "configuration": {…} }`. */
export function unwrap(body: unknown, key: 'hostCredentials' | 'configuration'): unknown {
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  const extra = isObject ? Object.keys(body).filter((k) => k !== key) : [];
  if (!isObject || !Object.hasOwn(body, key) || extra.length > 0) {
    const pointer = extra.length > 0 ? `/${extra[0]}` : `/${key}`;
    const message =
      extra.length > 0
        ? `"${extra[0]}" is not accepted here: the body is a JSON object with one key, ${key}.`
        : `The body must be a JSON object with one key, ${key}.`;
    throw problem.invalid([{ pointer, received: '', rule: `an object with one key, ${key}`, message }]);
  }
  return (body as Record<string, unknown>)[key];
}

export function refuseWhileRunning(row: StoredAgent, what: string): void {
  if (row.state === 'running')
    throw problem.conflict(`Agent "${row.id}" is running; pause or stop it before ${what}.`);
}

/** Host credentials with each secret left out taken from the stored ones (an absent password keeps it). */
async function withStoredSecrets(deps: EngineDeps, row: StoredAgent, inner: unknown): Promise<unknown> {
  if (!row.secretsSealed || typeof inner !== 'object' || inner === null || Array.isArray(inner)) return inner;
  const stored = JSON.parse(await deps.secrets.open(row.secretsSealed, secretContext(row))) as Record<
    string,
    unknown
  >;
  const kept = Object.fromEntries(
    secretKeysOf(agentTypes[row.type].sections.hostCredentials)
      .filter((k) => !Object.hasOwn(inner, k))
      .map((k) => [k, stored[k]]),
  );
  return { ...inner, ...kept };
}

/**
 * Host credentials as a PUT gives them, parsed whole (422 otherwise), with each secret left out taken
 * from the stored ones (decisions.md: an absent password keeps the stored one).
 */
export async function credentialsWithStoredSecrets(
  deps: EngineDeps,
  row: StoredAgent,
  inner: unknown,
): Promise<Record<string, unknown>> {
  const section = agentTypes[row.type].sections.hostCredentials;
  return parsedOr422(parseSection(section, await withStoredSecrets(deps, row, inner))) as Record<
    string,
    unknown
  >;
}

/** The credentials without their secrets, as stored in the clear; the secrets, to be sealed. */
export function splitSecrets(row: StoredAgent, value: Record<string, unknown>) {
  const secretKeys = secretKeysOf(agentTypes[row.type].sections.hostCredentials);
  return {
    plain: Object.fromEntries(Object.entries(value).filter(([k]) => !secretKeys.includes(k))),
    secrets: Object.fromEntries(secretKeys.map((k) => [k, value[k]])),
  };
}

/** 409 when another agent of the same type cannot share this source with one so configured. */
export function refuseSharedSource(deps: EngineDeps, row: StoredAgent, credentials: Record<string, unknown>) {
  const rule = pluginOf(deps.plugins, row.type).source?.conflict;
  if (!rule) return;
  for (const other of deps.repo.configuredAgentsOfType(row.type)) {
    if (other.pipelineId === row.pipelineId && other.id === row.id) continue;
    const found = rule(credentials, other.hostCredentials ?? {});
    if (found)
      throw problem.conflict(
        `Agent "${other.id}" of pipeline "${other.pipelineId}" ${found.reason}`,
        `/hostCredentials/${found.field}`,
      );
  }
}

/**
 * Both objects checked as the two PUTs would check them, together: every field problem of either at
 * once (422), then the running state, a shared source and the name rules (409). `proposed` is an
 * agent not stored yet, seen by the name rules as if it were.
 */
export async function checkBothSections(
  deps: EngineDeps,
  row: StoredAgent,
  body: { hostCredentials: unknown; configuration: unknown },
  proposed: boolean,
): Promise<{ hostCredentials: Record<string, unknown>; configuration: Record<string, unknown> }> {
  const { sections } = agentTypes[row.type];
  const credentials = parseSection(
    sections.hostCredentials,
    await withStoredSecrets(deps, row, body.hostCredentials),
  );
  const configuration = parseSection(sections.configuration, body.configuration);
  const problems: Problem[] = [
    ...(credentials.ok ? [] : credentials.problems),
    ...(configuration.ok ? [] : configuration.problems),
  ];
  if (!credentials.ok || !configuration.ok) throw problem.invalid(problems);
  refuseWhileRunning(row, 'changing its settings');
  const hostCredentials = credentials.value as Record<string, unknown>;
  refuseSharedSource(deps, row, hostCredentials);
  const value = configuration.value as Record<string, unknown>;
  checkNames(deps, {
    pipelineId: row.pipelineId,
    agent: {
      id: row.id,
      settings: { hostCredentials: splitSecrets(row, hostCredentials).plain, configuration: value },
    },
    ...(proposed && { proposed: row }),
  });
  return { hostCredentials, configuration: value };
}
