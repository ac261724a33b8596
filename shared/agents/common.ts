// The host-credential fields both agent types share (source-agents.md, decisions.md "Required fields").
import { integer, secret, text } from '../config/fields';

export const connectionName = text({
  label: 'Connection name',
  help: 'Nickname of the agent connection.',
  max: 128,
});

export const host = text({
  label: 'Host',
  help: 'DNS name or IP address of the server.',
  max: 253,
  noSpaces: true,
});

export const password = secret({
  label: 'Password',
  help: 'Password of that account. Never shown in answers, logs or error messages.',
  max: 128,
});

export const maxConnectionsCount = integer({
  label: 'Max connections',
  help: 'Maximum number of connections the pool can create.',
  min: 1,
  max: 100,
  default: 10,
});
