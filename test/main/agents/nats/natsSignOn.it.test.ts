// The other ways a shop signs on to NATS, each against a server of the test's own: a token, an NKey
// (the server knows only its public key), a credentials file (operator mode), and TLS with the shop's own CA — refused, with what to do,
// without the CA file. No refusal shows the secret it was given.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt';
import { credsAuthenticator, nkeyAuthenticator, nkeys } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsConfiguration, natsHostCredentials } from '../../../../shared/agents/nats';
import { checkNatsTarget } from '../../../../main/agents/nats/checks';
import { startNatsCluster, type NatsCluster } from '../../../helpers/natsServer';

const ARTIFACTS = fileURLToPath(new URL('../../../artifacts', import.meta.url));
const TOKEN = 'Tok3n-for-nats-signon';
const clusters: NatsCluster[] = [];
beforeAll(() => mkdirSync(ARTIFACTS, { recursive: true }));
afterAll(() => clusters.forEach((c) => c.destroy()));

const configuration = natsConfiguration.schema.parse({ stream: 'SIGNON', subjectPrefix: 'signon' });
const check = (servers: string, way: object) =>
  checkNatsTarget(
    natsHostCredentials.schema.parse({ connectionName: 'shop', servers, ...way }),
    configuration,
  );
const ids = (checks: { id: string; status: string }[]) => checks.map((c) => `${c.id}:${c.status}`);
const start = async (...args: Parameters<typeof startNatsCluster>) => {
  const c = await startNatsCluster(...args);
  clusters.push(c);
  return c;
};

describe('signing on to NATS', () => {
  it('with a token', async () => {
    const c = await start(1, ARTIFACTS, {
      config: `authorization { token: "${TOKEN}" }`,
      readyWith: { token: TOKEN },
    });
    expect(ids(await check(c.servers, { token: TOKEN }))).toEqual([
      'connection:passed',
      'jetstream:passed',
      'publish-permission:passed',
      'stream:passed',
    ]);
    const [refused] = await check(c.servers, { token: 'not-the-token' });
    expect(refused).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('refused the sign-on'),
    });
    expect(JSON.stringify(refused)).not.toContain('not-the-token');
  });

  it('with an NKey seed, the server knowing its public key only', async () => {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const c = await start(1, ARTIFACTS, {
      config: `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`,
      readyWith: { authenticator: nkeyAuthenticator(user.getSeed()) },
    });
    expect(ids(await check(c.servers, { nkeySeed: seed }))[0]).toBe('connection:passed');
    const other = new TextDecoder().decode(nkeys.createUser().getSeed());
    const [refused] = await check(c.servers, { nkeySeed: other });
    expect(refused).toMatchObject({ id: 'connection', status: 'failed' });
    expect(JSON.stringify(refused)).not.toContain(other);
  });

  it('with a credentials file, the server in operator mode (a user JWT of the shop’s account)', async () => {
    const operator = nkeys.createOperator();
    const system = nkeys.createAccount();
    const account = nkeys.createAccount();
    const user = nkeys.createUser();
    const unlimited = {
      subs: -1,
      conn: -1,
      leaf: -1,
      imports: -1,
      exports: -1,
      data: -1,
      payload: -1,
      wildcards: true,
    };
    const jetStream = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
    const signedBy = { signer: operator };
    const accounts = {
      [system.getPublicKey()]: await encodeAccount('SYS', system, {}, signedBy),
      [account.getPublicKey()]: await encodeAccount(
        'SHOP',
        account,
        { limits: { ...unlimited, ...jetStream } },
        signedBy,
      ),
    };
    const dir = mkdtempSync(join(ARTIFACTS, 'creds-'));
    const creds = join(dir, 'capture.creds');
    writeFileSync(
      creds,
      fmtCreds(await encodeUser('capture', user, account, { subs: -1, data: -1, payload: -1 }), user),
    );
    const c = await start(1, ARTIFACTS, {
      config: [
        `operator: ${await encodeOperator('OP', operator, { system_account: system.getPublicKey() })}`,
        `system_account: ${system.getPublicKey()}`,
        'resolver: MEMORY',
        `resolver_preload: { ${Object.entries(accounts)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')} }`,
      ].join('\n'),
      readyWith: { authenticator: credsAuthenticator(new Uint8Array(readFileSync(creds))) },
    });
    expect(ids(await check(c.servers, { credsFile: creds }))).toEqual([
      'connection:passed',
      'jetstream:passed',
      'publish-permission:passed',
      'stream:passed',
    ]);
    const [missing] = await check(c.servers, { credsFile: join(dir, 'gone.creds') });
    expect(missing).toMatchObject({
      id: 'connection',
      status: 'failed',
      message: expect.stringContaining('cannot be read (ENOENT)'),
    });
  });

  it('over TLS with the shop’s own CA, and refused without it, saying to give it', async () => {
    const dir = mkdtempSync(join(ARTIFACTS, 'tls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=shop CA',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    );
    writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      'server.pem',
      '-extfile',
      'san.cnf',
    );
    const ca = join(dir, 'ca.pem');
    const c = await start(1, ARTIFACTS, {
      config: `tls { cert_file: "${join(dir, 'server.pem')}", key_file: "${join(dir, 'server.key')}" }`,
      readyWith: { tls: { caFile: ca } },
    });
    expect(ids(await check(c.servers, { tlsCaFile: ca }))[0]).toBe('connection:passed');
    const [refused] = await check(c.servers, { tls: true });
    expect(refused).toMatchObject({
      id: 'connection',
      status: 'failed',
      remedy: expect.stringContaining('CA file'),
    });
  });
});
