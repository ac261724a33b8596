// Why a PostgreSQL sign-on failed, told apart with the remedy that fits: a closed port is never a
// password or pg_hba.conf problem. Against the machine's PostgreSQL where it can be made to happen;
// the server's refusals (28P01, 28000) as node-postgres reports them, since trust auth lets any
// password in here.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { checkPostgresTarget } from '../../../../main/agents/postgresql/checks';
import { explainPostgresConnectError } from '../../../../main/agents/postgresql/errors';
import { postgresqlConfiguration, postgresqlHostCredentials } from '../../../../shared/agents/targets';
import { POSTGRES } from '../../../helpers/replica';
import { freePort } from '../../../helpers/ports';

const signOn = async (over: Record<string, unknown>) => {
  const [first] = await checkPostgresTarget({
    pipelineId: 'p',
    id: 'dst',
    type: 'postgresql',
    role: 'target',
    hostCredentials: postgresqlHostCredentials.schema.parse({
      connectionName: 'dst',
      host: POSTGRES.host,
      port: POSTGRES.port,
      databaseName: POSTGRES.database,
      username: POSTGRES.user,
      password: 'unused-with-trust',
      ...over,
    }),
    configuration: postgresqlConfiguration.schema.parse({}),
  });
  return first;
};

const c = { host: 'db01', port: 5432, username: 'cdc', databaseName: 'dw' };
const serverError = (code: string, message: string) => {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  return error;
};

describe('a PostgreSQL sign-on that fails', () => {
  it('says nothing listens at a closed port, and asks for no password', async () => {
    const port = await freePort();
    const answer = await signOn({ port });
    expect(answer).toMatchObject({ status: 'failed' });
    expect(answer?.message).toBe(
      `Nothing is listening at ${POSTGRES.host}:${port}: the connection was refused.`,
    );
    expect(answer?.remedy).not.toMatch(/password|pg_hba/i);
  });

  it('says a database does not exist, and how to make it', async () => {
    const answer = await signOn({ databaseName: 'no_such_db_here' });
    expect(answer?.message).toBe(
      `The database "no_such_db_here" does not exist on ${POSTGRES.host}:${POSTGRES.port}.`,
    );
    expect(answer?.remedy).toContain('CREATE DATABASE "no_such_db_here";');
  });

  it('says a host name does not resolve', async () => {
    const answer = await signOn({ host: 'no-such-host.invalid' });
    expect(answer?.message).toBe('The host name no-such-host.invalid cannot be resolved.');
  });

  it('tells a refused password from a missing pg_hba.conf line', () => {
    const password = explainPostgresConnectError(
      serverError('28P01', 'password authentication failed for user "cdc"'),
      c,
    );
    expect(password.remedy).toBe('Check the User and Password.');
    const hba = explainPostgresConnectError(
      serverError(
        '28000',
        'no pg_hba.conf entry for host "10.0.0.5", user "cdc", database "dw", no encryption',
      ),
      c,
    );
    expect(hba.message).toContain('does not let "cdc" sign on to "dw" from this machine');
    expect(hba.remedy).toMatch(/^Add a line for this user, database and client address to pg_hba\.conf/);
    expect(hba.remedy).not.toContain('Password');
  });
});
