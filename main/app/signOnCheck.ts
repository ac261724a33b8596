// "Test connection" at the wizard's first step: sign on with the host credentials and sign off again.
// Nothing is created and no agent is stored; the answer is one check, as POST …/test words it.
import type { AgentType } from '../../shared/agents';
import { parseSection } from '../../shared/config/parse';
import type { CheckResult } from '../../shared/controlApi';
import { connectionFailed } from '../agents/checkResults';
import { AgentConnectionError } from '../agents/connectionError';
import { AGENT_PLUGINS, pluginOf, type AgentPlugins } from '../agents/registry';

export async function testConnection(
  type: AgentType,
  hostCredentials: unknown,
  plugins: AgentPlugins = AGENT_PLUGINS,
): Promise<CheckResult> {
  const plugin = pluginOf(plugins, type);
  const parsed = parseSection(plugin.definition.sections.hostCredentials, hostCredentials);
  if (!parsed.ok)
    return {
      id: 'connection',
      status: 'failed',
      message: parsed.problems.map((p) => p.message).join('\n'),
      remedy: 'Correct the fields above first.',
    };
  try {
    return await plugin.testConnection(parsed.value as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return connectionFailed(error);
  }
}
