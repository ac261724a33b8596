// "Test connection" at the wizard's first step: sign on with the host credentials and sign off again.
// Nothing is created and no agent is stored; the answer is one check, as POST …/test words it.
import type { AgentType } from '../../shared/agents';
import { parseSection } from '../../shared/config/parse';
import type { CheckResult } from '../../shared/controlApi';
import { signOnResult } from '../agents/checkResults';
import { AGENT_PLUGINS, pluginOf, type AgentPlugins } from '../agents/registry';

export async function testConnection(
  type: AgentType,
  hostCredentials: unknown,
  plugins: AgentPlugins = AGENT_PLUGINS,
): Promise<CheckResult> {
  const plugin = pluginOf(plugins, type);
  const parsed = parseSection(plugin.definition.sections.hostCredentials, hostCredentials);
  if (!parsed.ok) return fieldsRefused(parsed.problems.map((p) => p.message));
  return signOnResult(() => plugin.testConnection(parsed.value as Record<string, unknown>));
}

/** "Test connection" before any sign-on: the fields' problems, each in its words. */
export const fieldsRefused = (messages: readonly string[]): CheckResult => ({
  id: 'connection',
  status: 'failed',
  message: messages.join('\n'),
  remedy: 'Correct the fields above first.',
});
