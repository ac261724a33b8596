// "Test connection" at the wizard's first step: sign on with the host credentials and sign off again.
// Nothing is created and no agent is stored; the answer is one check, as POST …/test words it.
import type { AgentType } from '../../shared/agents';
import { agentTypes } from '../../shared/agents';
import { parseSection } from '../../shared/config/parse';
import type { CheckResult } from '../../shared/controlApi';
import { changeTrackingHostCredentials } from '../../shared/agents/changeTracking';
import { journalHostCredentials } from '../../shared/agents/journal';
import { checkTarget } from '../runner/targetChecks';
import { AgentConnectionError, openPool } from '../connectors/changeTracking/connection';
import { openIbmi } from '../connectors/journal/connection';

export async function testConnection(type: AgentType, hostCredentials: unknown): Promise<CheckResult> {
  const parsed = parseSection(agentTypes[type].sections.hostCredentials, hostCredentials);
  if (!parsed.ok)
    return {
      id: 'connection',
      status: 'failed',
      message: parsed.problems.map((p) => p.message).join('\n'),
      remedy: 'Correct the fields above first.',
    };
  try {
    if (type === 'change-tracking') {
      const c = changeTrackingHostCredentials.schema.parse(parsed.value);
      await (await openPool(c)).close();
      return {
        id: 'connection',
        status: 'passed',
        message: `Logged in as "${c.username}" to the database "${c.databaseName}" on ${c.host}:${c.port}${c.enableTls ? ' over TLS' : ''}.`,
        remedy: null,
      };
    }
    if (type === 'journal') {
      const c = journalHostCredentials.schema.parse(parsed.value);
      await (await openIbmi(c, undefined)).close();
      return {
        id: 'connection',
        status: 'passed',
        message: `Signed on as ${c.username.toUpperCase()} to ${c.host}.`,
        remedy: null,
      };
    }
    const [first] = await checkTarget({
      pipelineId: 'connection-test',
      id: 'connection-test',
      type,
      role: 'target',
      hostCredentials: parsed.value,
      configuration: {},
    });
    return first
      ? { ...first, id: 'connection' }
      : { id: 'connection', status: 'passed', message: 'Nothing to reach.', remedy: null };
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return { id: 'connection', status: 'failed', message: error.message, remedy: error.remedy };
  }
}
