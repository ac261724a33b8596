// The plugin boundary: the engine hands a plugin its agent's settings parsed by the type's own schemas
// (defaults filled in, typed), and a stored setting that no longer meets them is refused by name —
// never by value, so a secret cannot leak through the error.
import { describe, expect, it } from 'vitest';
import { AGENT_PLUGINS } from '../../../main/agents/registry';
import { resolve } from '../../../main/engine/operationKit';
import type { StoredAgent } from '../../../main/engine/store/repo';
import type { SecretBox } from '../../../main/platform/secretBox';

const SECRET = 'Hunter2-not-in-errors';
const secrets: SecretBox = {
  seal: async () => 'sealed',
  open: async () => JSON.stringify({ password: SECRET }),
};

const stored = (
  configuration: Record<string, unknown>,
  hostCredentials: Record<string, unknown>,
): StoredAgent => ({
  pipelineId: 'orders',
  id: 'sales',
  name: 'sales',
  type: 'change-tracking',
  role: 'source',
  state: 'stopped',
  failureReason: null,
  hostCredentials,
  secretsSealed: 'sealed',
  configuration,
  createdAt: '2026-11-27T00:00:00Z',
  updatedAt: '2026-11-27T00:00:00Z',
});

const credentials = {
  connectionName: 'sales',
  host: 'sql01.example.com',
  databaseName: 'Sales',
  username: 'cdc_reader',
};

describe('an agent resolved for its plugin', () => {
  it('has its settings parsed by its type: defaults filled in, the secret joined', async () => {
    const agent = await resolve({ plugins: AGENT_PLUGINS, secrets }, stored({}, credentials));
    // Port, the pool size and every configuration default come from the type's declaration.
    expect(agent?.hostCredentials).toMatchObject({ ...credentials, port: 1433, password: SECRET });
    expect(agent?.configuration).toMatchObject({ enableRecursionProtection: false, snapshotMode: 'initial' });
  });

  it('refuses stored settings that no longer meet the type, naming the field and not the values', async () => {
    const error = await resolve(
      { plugins: AGENT_PLUGINS, secrets },
      stored({ snapshotChunkRows: 'lots' }, { ...credentials, port: 'x' }),
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/stored hostCredentials of agent orders\/sales .* \(port\)/);
    expect((error as Error).message).not.toContain(SECRET);
  });
});
