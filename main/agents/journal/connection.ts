// The journal agent's connection: hostCredentials (and the format inheritance of decisions.md) to an
// IbmiConnection — an in-process system when the host names one (the sandbox's simulated IBM i), the IBM i Access ODBC
// Driver otherwise — and sign-on failures said in plain words with what to do about them.
import {
  effectiveJournalFormats,
  type JournalConfiguration,
  type JournalHostCredentials,
} from '../../../shared/agents/journal';
import { clName, IbmiError, type IbmiConnection } from '../../../lib/ibmi/connection';
import { openOdbcIbmi } from '../drivers/ibmi/odbc';
import { inProcessIbmiAt } from '../../../lib/ibmi/inProcess';
import { redactSecret } from '../../platform/redact';
import { AgentConnectionError } from '../connectionError';
import { ibmiFold } from '../../../shared/names';

export { AgentConnectionError };

/** Opens a connection as the agent uses it, or throws an AgentConnectionError that says why. */
export async function openIbmi(
  credentials: JournalHostCredentials,
  configuration: JournalConfiguration | undefined,
): Promise<IbmiConnection> {
  const formats = effectiveJournalFormats(credentials, configuration);
  try {
    const inProcess = inProcessIbmiAt(credentials.host);
    if (inProcess)
      return await inProcess.connect({ user: credentials.username, password: credentials.password });
    return await openOdbcIbmi({
      host: credentials.host,
      username: credentials.username,
      password: credentials.password,
      databaseName: credentials.databaseName,
      ...formats,
      blockSize: credentials.blockSize,
      useConnectionPool: credentials.useConnectionPool,
      maxConnectionsCount: credentials.maxConnectionsCount,
    });
  } catch (error) {
    throw explainSignOn(error, credentials);
  }
}

function explainSignOn(error: unknown, c: JournalHostCredentials): AgentConnectionError {
  const id = error instanceof IbmiError ? error.messageId : '';
  const raw = error instanceof Error ? error.message : String(error);
  const redacted = redactSecret(raw, c.password);
  const text = id ? redacted.replace(`${id}: `, '') : redacted;
  switch (id) {
    case 'CPF2204':
      return new AgentConnectionError(
        `IBM i has no user profile ${ibmiFold(c.username)} (CPF2204).`,
        'Check username, or create the profile (CRTUSRPRF) as source-agents.md suggests.',
        'login',
      );
    case 'CPF22E2':
      return new AgentConnectionError(
        `IBM i refused the password of ${ibmiFold(c.username)} (CPF22E2).`,
        'Check the password; repeated failures disable the profile (QMAXSIGN).',
        'login',
      );
    case 'CPF22E3':
      return new AgentConnectionError(
        `The user profile ${ibmiFold(c.username)} is disabled (CPF22E3).`,
        clName(c.username)
          ? `Enable it: CHGUSRPRF USRPRF(${clName(c.username)}) STATUS(*ENABLED).`
          : 'A security officer enables it (CHGUSRPRF … STATUS(*ENABLED)).',
        'login',
      );
    case 'ODBC-SETUP':
      return new AgentConnectionError(
        text,
        'Install unixODBC and IBM i Access Client Solutions’ ODBC driver on the machine that runs the engine.',
        'driver',
      );
  }
  if (id.startsWith('CWBCO'))
    return new AgentConnectionError(
      `${c.host} cannot be reached (${id}): ${text}`,
      'Check host, that the IBM i host servers run (STRHOSTSVR *ALL), and that no firewall blocks ports 449, 8470–8476.',
      'unreachable',
    );
  return new AgentConnectionError(
    `The connection to ${c.host} failed${id ? ` (${id})` : ''}: ${text}`,
    'Check the host credentials.',
    'other',
  );
}
