// A connection to the JetStream cluster from the agent's host credentials: one way to sign on, TLS when
// asked or implied, secrets only to the client. Errors are sorted for the runner's retries.
import { readFile } from 'node:fs/promises';
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type NatsConnection,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import type { NatsHostCredentials } from '../../../shared/agents/nats';
import { AgentConnectionError } from '../connectionError';
import type { ErrorVerdict } from '../source';

/** Why these credentials cannot sign on, naming the fields; null when they can. */
export function credentialsProblem(c: NatsHostCredentials): string | null {
  const ways = [
    c.password !== undefined && 'password',
    c.token !== undefined && 'token',
    c.nkeySeed !== undefined && 'nkeySeed',
    c.credsFile !== undefined && 'credsFile',
  ].filter((w): w is string => typeof w === 'string');
  if (ways.length > 1)
    return `hostCredentials: ${ways.join(' and ')} are set; sign on with one of Password (with User), Token, NKey seed or Credentials file.`;
  if (c.password !== undefined && c.username === undefined)
    return 'hostCredentials.username is not set: a password signs on a user.';
  if (c.username !== undefined && c.password === undefined)
    return 'hostCredentials.password is not set: the user needs a password.';
  if (c.nkeySeed !== undefined && !/^SU[A-Z2-7]+$/.test(c.nkeySeed))
    return 'NKey seed must be a user seed (SU followed by base32 letters).';
  return null;
}

export const serverList = (c: NatsHostCredentials) =>
  c.servers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export async function openNats(c: NatsHostCredentials, name: string): Promise<NatsConnection> {
  const problem = credentialsProblem(c);
  if (problem)
    throw new AgentConnectionError(
      problem,
      'Set exactly one way to sign on in the NATS connection.',
      'login',
    );
  const options: NodeConnectionOptions = {
    servers: serverList(c),
    name,
    // The runner retries a failed start with its own waits; a cluster member down is the client's job.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 10_000,
  };
  if (c.tls || c.tlsCaFile) options.tls = c.tlsCaFile ? { caFile: c.tlsCaFile } : {};
  if (c.username !== undefined) {
    options.user = c.username;
    options.pass = c.password;
  }
  if (c.token !== undefined) options.token = c.token;
  if (c.nkeySeed !== undefined)
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(c.nkeySeed));
  if (c.credsFile !== undefined) {
    const creds = await readFile(c.credsFile).catch((e: NodeJS.ErrnoException) => {
      throw new AgentConnectionError(
        `The credentials file ${c.credsFile} cannot be read (${e.code ?? e.message}).`,
        'Give the path of the .creds file nsc wrote, readable by the app.',
        'certificate-file',
      );
    });
    options.authenticator = credsAuthenticator(new Uint8Array(creds));
  }
  try {
    return await connect(options);
  } catch (e) {
    const said = describeNatsError(e);
    const refused = /refused the sign-on/.test(said);
    const tls = /certificate|self[- ]signed|tls|ssl/i.test(said);
    throw new AgentConnectionError(
      `Cannot connect to NATS at ${c.servers}: ${said}.`,
      refused
        ? "Check the user and password, token, NKey or credentials file against the server's accounts."
        : tls
          ? "Give the CA file that signed the servers' certificates (CA file), or check that the servers' names match their certificates."
          : 'Check that nats-server runs there with JetStream on (-js), and the host and port.',
      refused ? 'login' : tls ? 'tls' : 'unreachable',
    );
  }
}

/** The client's error in words without what it was given (a token or password never shows). */
export function describeNatsError(e: unknown): string {
  const error = e as { message?: string; code?: string; name?: string };
  if (/authorization/i.test(error.message ?? ''))
    return 'the server refused the sign-on (authorization violation)';
  if (error.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(error.message ?? ''))
    return 'no server listens there (connection refused)';
  return error.message ?? String(e);
}

/**
 * No JetStream server answered a request: the client says "jetstream is not enabled" for a 503 with no
 * responders, which is what a stream's leader election or a server down looks like; or it gave up
 * waiting (its TimeoutError); or a server answered that the cluster has no leader for it now.
 * JetStream really off for the account comes otherwise: as the server's API error 10039
 * (JetStreamApiError as cause).
 */
export function isUnanswered(e: unknown): boolean {
  const error = e as { name?: string; cause?: { name?: string } };
  if (error.name === 'NoResponders' || e instanceof StreamUnanswered) return true;
  if (betweenLeaders(e) || timedOut(e)) return true;
  return error.name === 'JetStreamNotEnabled' && error.cause?.name !== 'JetStreamApiError';
}

/**
 * The JetStream API's answers of a cluster between leaders (nats-server's errors.json): incomplete
 * results, no peers for placement, not assigned to this server, "JetStream system temporarily
 * unavailable" (what a stream's follower answers while no quorum elects a leader), not the leader.
 */
const CLUSTER_BETWEEN_LEADERS = new Set([10004, 10005, 10007, 10008, 10009]);

type Caused = { name?: string; code?: unknown; message?: string; cause?: unknown };

/** What `match` answers for the first error it accepts among `e` and its causes (four deep). */
function inCauses<T>(e: unknown, match: (error: Caused) => T | undefined): T | undefined {
  let error = e as Caused | undefined;
  for (let depth = 0; error && depth < 4; depth++) {
    const found = match(error);
    if (found !== undefined) return found;
    error = error.cause as Caused | undefined;
  }
  return undefined;
}

/** The server's answer that the cluster is between leaders, wherever it sits in the causes. */
const betweenLeaders = (e: unknown): { code: number; said: string } | undefined =>
  inCauses(e, (error) =>
    error.name === 'JetStreamApiError' &&
    typeof error.code === 'number' &&
    CLUSTER_BETWEEN_LEADERS.has(error.code)
      ? { code: error.code, said: error.message ?? '' }
      : undefined,
  );

/** The client's request timed out (its TimeoutError, "timeout"), wherever it sits in the causes. */
const timedOut = (e: unknown): boolean =>
  inCauses(e, (error) => (error.name === 'TimeoutError' ? true : undefined)) === true;

/**
 * The stream's servers did not answer for a while, or answered that the cluster is between leaders:
 * said in words, and retried.
 */
export class StreamUnanswered extends Error {
  constructor(stream: string, options?: ErrorOptions) {
    const answer = betweenLeaders(options?.cause);
    super(
      answer !== undefined
        ? `The JetStream cluster cannot serve stream ${stream} now (the server said "${answer.said}", JetStream error ${answer.code}) — a leader election or a server down`
        : timedOut(options?.cause)
          ? `No JetStream server answered for stream ${stream} in time (the request timed out) — a leader election, a server down or a slow link`
          : `No JetStream server answered for stream ${stream} — a leader election or a server down`,
      options,
    );
    this.name = 'StreamUnanswered';
  }
}

/**
 * Runs a JetStream call, saying an unanswered one in words: the client's own words mislead ("jetstream
 * is not enabled") or say nothing of what was asked ("timeout").
 */
export async function answered<T>(stream: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    throw isUnanswered(e) && !(e instanceof StreamUnanswered)
      ? new StreamUnanswered(stream, { cause: e })
      : e;
  }
}

/** A dropped connection, a timeout or a leader election heals; a refused permission does not. */
export function classifyNatsError(e: unknown): ErrorVerdict {
  const error = e as { name?: string; message?: string; code?: string; api_error?: { err_code?: number } };
  const message = error.message ?? '';
  if (error.name === 'PermissionViolationError' || /permissions violation|authorization/i.test(message))
    return 'permanent';
  if (isUnanswered(e)) return 'transient';
  // JetStream off for the account (the checks at start say so): no wait turns it on.
  if (error.name === 'JetStreamNotEnabled') return 'permanent';
  if (
    error.name === 'TimeoutError' ||
    error.name === 'ConnectionError' ||
    error.name === 'ClosedConnectionError' ||
    /timeout|no responders|connection closed|disconnect|insufficient resources|no suitable peers|leader/i.test(
      message,
    )
  )
    return 'transient';
  return undefined;
}

/**
 * Drains the connection (what is in flight finishes), but closes it after `ms` at the latest: a
 * drain waits on every subscription, and a stop must not hang on one a server no longer answers.
 */
export async function closeConnection(nc: NatsConnection, ms = 3000): Promise<void> {
  if (nc.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([nc.drain().catch(() => undefined), late]);
  clearTimeout(timer);
  if (!nc.isClosed()) await nc.close().catch(() => undefined);
}
