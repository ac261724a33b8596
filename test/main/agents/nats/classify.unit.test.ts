// How the NATS agents sort the client's errors: a stream's leader election (the client's 503 "no
// responders", which it names JetStreamNotEnabled) is retried and said in words; JetStream really off
// for the account (the server's API error 10039) and a refused permission are not.
import { jserrors } from '@nats-io/jetstream/internal';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { answered, classifyNatsError, StreamUnanswered } from '../../../../main/agents/nats/connection';
import { isTransient } from '../../../../main/runner/failures';

/** What `js.publish` throws while no server leads the stream: built as the client builds it. */
const election = () =>
  new jserrors.JetStreamNotEnabled('jetstream is not enabled', {
    cause: new RequestError('no responders', { cause: new NoRespondersError('$JS.API.STREAM.INFO.S') }),
  });

/** What the server answers when the account has no JetStream: err_code 10039, as the client wraps it. */
const accountWithout = () => {
  const api = new jserrors.JetStreamApiError({
    code: 503,
    err_code: 10039,
    description: 'jetstream not enabled for account',
  });
  return new jserrors.JetStreamNotEnabled(api.message, { cause: api });
};

/** What a stream's follower answers while no quorum elects a leader (nats-server's errors.json, 10008). */
const noQuorum = () =>
  new jserrors.JetStreamApiError({
    code: 503,
    err_code: 10008,
    description: 'JetStream system temporarily unavailable',
  });

describe('classifyNatsError', () => {
  it('retries a leader election', () => {
    expect(classifyNatsError(election())).toBe('transient');
    expect(isTransient(election(), classifyNatsError)).toBe(true);
    expect(classifyNatsError(new NoRespondersError('drill.x'))).toBe('transient');
  });

  it('retries a cluster that answers it has no leader now, and says so in words', async () => {
    expect(classifyNatsError(noQuorum())).toBe('transient');
    const told = await answered('ORDERS', Promise.reject(noQuorum())).catch((e: unknown) => e);
    expect(told).toBeInstanceOf(StreamUnanswered);
    expect((told as Error).message).toBe(
      'The JetStream cluster cannot serve stream ORDERS now (the server said "JetStream system temporarily unavailable", JetStream error 10008) — a leader election or a server down',
    );
    expect(isTransient(told, classifyNatsError)).toBe(true);
    // Wrapped by another error, it is still the server's own words that are quoted.
    const wrapped = new Error('request failed', { cause: noQuorum() });
    const toldWrapped = await answered('ORDERS', Promise.reject(wrapped)).catch((e: unknown) => e);
    expect((toldWrapped as Error).message).toContain(
      'the server said "JetStream system temporarily unavailable"',
    );
    const badRequest = new jserrors.JetStreamApiError({
      code: 400,
      err_code: 10003,
      description: 'bad request',
    });
    expect(classifyNatsError(badRequest)).toBeUndefined();
  });

  it('does not retry JetStream off for the account, nor a refused permission', () => {
    expect(classifyNatsError(accountWithout())).toBe('permanent');
    expect(isTransient(accountWithout(), classifyNatsError)).toBe(false);
    expect(classifyNatsError(new Error('Permissions Violation for Publish to "drill.x"'))).toBe('permanent');
  });

  it('says an election in words, naming the stream, and keeps it retried', async () => {
    const told = await answered('ORDERS', Promise.reject(election())).catch((e: unknown) => e);
    expect(told).toBeInstanceOf(StreamUnanswered);
    expect((told as Error).message).toBe(
      'No JetStream server answered for stream ORDERS — a leader election or a server down',
    );
    expect((told as Error).message).not.toMatch(/not enabled/);
    expect(classifyNatsError(told)).toBe('transient');
  });

  it('says a request that timed out in words, naming the stream, and keeps it retried', async () => {
    // What js.publish throws when no server answers within its wait (a leader lost mid-publish).
    const late = new RequestError('timeout', { cause: new TimeoutError() });
    const told = await answered('ORDERS', Promise.reject(late)).catch((e: unknown) => e);
    expect(told).toBeInstanceOf(StreamUnanswered);
    expect((told as Error).message).toBe(
      'No JetStream server answered for stream ORDERS in time (the request timed out) — a leader election, a server down or a slow link',
    );
    expect((told as Error).cause).toBe(late);
    expect(classifyNatsError(told)).toBe('transient');
    expect(classifyNatsError(new TimeoutError())).toBe('transient');
  });

  it('leaves every other error as it was', async () => {
    const other = accountWithout();
    expect(await answered('ORDERS', Promise.reject(other)).catch((e: unknown) => e)).toBe(other);
    expect(await answered('ORDERS', Promise.resolve(7))).toBe(7);
  });
});
