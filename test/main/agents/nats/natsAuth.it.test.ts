// Signing on to a NATS server that checks who publishes where, as a shop's cluster does: the target's
// checks say who signed on, whether the user may publish the events (a probe nothing stores), and what
// to allow when not; a refused sign-on says so with its remedy and never the password; credentials
// that name two ways to sign on are refused naming the fields.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration, natsHostCredentials } from '../../../../shared/agents/nats';
import { checkNatsTarget } from '../../../../main/agents/nats/checks';
import { credentialsProblem } from '../../../../main/agents/nats/connection';
import { startNatsCluster, type NatsCluster } from '../../../helpers/natsServer';

const ARTIFACTS = fileURLToPath(new URL('../../../artifacts', import.meta.url));
const FULL = 'Full-Pa55-nats';
const LIMITED = 'Lim-Pa55-nats';
const WRONG = 'Wrong-Pa55-nats';
let cluster: NatsCluster;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  cluster = await startNatsCluster(1, ARTIFACTS, {
    config: `authorization { users = [
      { user: capture, password: "${FULL}" }
      { user: reader, password: "${LIMITED}", permissions: { publish: { allow: ["$JS.API.>"] }, subscribe: { allow: ["_INBOX.>"] } } }
    ] }`,
    readyWith: { user: 'capture', pass: FULL },
  });
});
afterAll(() => cluster?.destroy());

const credentials = (username: string, password: string) =>
  natsHostCredentials.schema.parse({ connectionName: 'shop', servers: cluster.servers, username, password });
const configuration = natsConfiguration.schema.parse({ stream: 'AUTH', subjectPrefix: 'shop' });

describe('a NATS server with users and permissions', () => {
  it('passes a user who may publish the events, stored nowhere by the probe', async () => {
    const checks = await checkNatsTarget(credentials('capture', FULL), configuration);
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['connection', 'passed'],
      ['jetstream', 'passed'],
      ['publish-permission', 'passed'],
      ['stream', 'passed'],
    ]);
    expect(checks[0]?.message).toContain('as "capture"');
    expect(checks[2]?.message).toContain('may publish to shop and shop.> (no stream takes them yet)');
  });

  it('fails a user who may not publish to the prefix, saying what to allow', async () => {
    const checks = await checkNatsTarget(credentials('reader', LIMITED), configuration);
    const publish = checks.find((c) => c.id === 'publish-permission');
    expect(publish).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('"reader" may not publish to shop and shop.>'),
      remedy: expect.stringContaining('publish to "shop", "shop.>" and "$JS.API.>"'),
    });
  });

  it('says a refused sign-on with its remedy, never the password', async () => {
    const [connection, ...rest] = await checkNatsTarget(credentials('capture', WRONG), configuration);
    expect(rest).toEqual([]);
    expect(connection).toMatchObject({
      id: 'connection',
      status: 'failed',
      message: expect.stringContaining('the server refused the sign-on'),
      remedy: expect.stringContaining('user and password'),
    });
    expect(JSON.stringify(connection)).not.toContain(WRONG);
  });

  it('refuses credentials that name two ways to sign on, or half of one, naming the fields', () => {
    const base = { connectionName: 'x', servers: '127.0.0.1:4222' };
    const parse = (o: object) => natsHostCredentials.schema.parse({ ...base, ...o });
    expect(credentialsProblem(parse({ username: 'u', password: 'p', token: 't' }))).toMatch(
      /password and token are set/,
    );
    expect(credentialsProblem(parse({ password: 'p' }))).toMatch(/hostCredentials\.username is not set/);
    expect(credentialsProblem(parse({ nkeySeed: 'not-a-seed' }))).toMatch(/NKey seed must be a user seed/);
    expect(credentialsProblem(parse({ token: 't' }))).toBeNull();
    expect(natsHostCredentials.schema.safeParse({ ...base, servers: 'nats://a:1, b c' }).success).toBe(false);
  });
});
