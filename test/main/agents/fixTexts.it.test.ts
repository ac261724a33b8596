// Fix and remedy texts are statements a DBA copies and runs: a name in them stays one identifier,
// whatever it holds. PostgreSQL's GRANT is run here as the DBA would run it; the IBM i commands are
// never written around a name that is not an IBM i name; a schema that differs only in case from one
// that exists is a clear refusal, not a failed request.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPostgresTarget } from '../../../main/agents/postgresql/checks';
import { profileCheck } from '../../../main/agents/journal/checks';
import { permissionChecks } from '../../../main/agents/journal/permissions';
import type { SyncLibrary } from '../../../main/agents/journal/syncLibrary';
import { POSTGRES, postgresClient } from '../../helpers/replica';
import { agentsRuntime } from '../../../main/engine/agentRuntime';
import { startSandboxSqlServer } from '../../../simulators/mssql';
import { lex } from '../../../simulators/mssql/tsql/lexer';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../helpers/sandbox';
import { postgresqlConfiguration, postgresqlHostCredentials } from '../../../shared/agents/targets';
import type { PostgresqlAgent } from '../../../main/agents/postgresql/settings';

const HOSTILE = `x"; DROP SCHEMA fix_victim CASCADE; --`;
const SCHEMA = `fix_target_${process.pid}`;
let admin: pg.Client;

/** A PostgreSQL target agent as the engine hands it over: its settings parsed by the type's schemas. */
const agent = (username: string, schema: string): PostgresqlAgent => ({
  pipelineId: 'p',
  id: 'dst',
  type: 'postgresql',
  role: 'target' as const,
  hostCredentials: postgresqlHostCredentials.schema.parse({
    connectionName: 'dst',
    host: POSTGRES.host,
    port: POSTGRES.port,
    databaseName: POSTGRES.database,
    username,
    password: 'unused-with-trust',
  }),
  configuration: postgresqlConfiguration.schema.parse({ schema }),
});

beforeAll(async () => {
  admin = await postgresClient();
  await admin.query('DROP SCHEMA IF EXISTS fix_victim CASCADE');
  await admin.query('CREATE SCHEMA fix_victim');
  await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${SCHEMA}"`);
  await admin.query(`DROP ROLE IF EXISTS "${HOSTILE.replaceAll('"', '""')}"`);
  await admin.query(`CREATE ROLE "${HOSTILE.replaceAll('"', '""')}" LOGIN`);
});
afterAll(async () => {
  await admin?.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await admin?.query('DROP SCHEMA IF EXISTS fix_victim CASCADE');
  await admin?.query('DROP SCHEMA IF EXISTS injp_a CASCADE');
  await admin?.query(`DROP ROLE IF EXISTS "${HOSTILE.replaceAll('"', '""')}"`);
  await admin?.end();
});

describe('the PostgreSQL target check', () => {
  it('offers a GRANT that, run as it is, grants the hostile login and drops nothing', async () => {
    const [, writable] = await checkPostgresTarget(agent(HOSTILE, SCHEMA));
    expect(writable?.status).toBe('failed');
    const grant = writable?.remedy ?? '';
    expect(grant).toBe(`GRANT CREATE ON SCHEMA "${SCHEMA}" TO "x""; DROP SCHEMA fix_victim CASCADE; --";`);
    await admin.query(grant);
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'fix_victim'",
    );
    expect(rows[0]?.n).toBe(1);
    const [, after] = await checkPostgresTarget(agent(HOSTILE, SCHEMA));
    expect(after?.status).toBe('passed');
  });

  it('offers a GRANT on the database for a new schema that, run as it is, drops nothing', async () => {
    const fresh = `fix_new_${process.pid}`;
    const [, writable] = await checkPostgresTarget(agent(HOSTILE, fresh));
    expect(writable?.status).toBe('failed');
    const grant = writable?.remedy ?? '';
    expect(grant).toBe(
      `GRANT CREATE ON DATABASE "${POSTGRES.database}" TO "x""; DROP SCHEMA fix_victim CASCADE; --";`,
    );
    await admin.query(grant);
    try {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'fix_victim'",
      );
      expect(rows[0]?.n).toBe(1);
      expect((await checkPostgresTarget(agent(HOSTILE, fresh)))[1]?.status).toBe('passed');
    } finally {
      await admin.query(
        `REVOKE CREATE ON DATABASE "${POSTGRES.database}" FROM "${HOSTILE.replaceAll('"', '""')}"`,
      );
    }
  });

  it('refuses a schema that differs only in case from one that exists, in words', async () => {
    await admin.query('CREATE SCHEMA IF NOT EXISTS injp_a');
    const checks = await checkPostgresTarget(agent(POSTGRES.user, 'Injp_a'));
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['connection', 'passed'],
      ['target-writable', 'failed'],
    ]);
    expect(checks[1]?.message).toMatch(
      /"Injp_a" does not exist, but "injp_a" does: they differ only in case/,
    );
  });
});

describe('IBM i command texts', () => {
  const profile = { STATUS: '*DISABLED', GROUP_PROFILE_NAME: '*NONE' };

  it('write CHGUSRPRF for a profile name, and no command around anything else', () => {
    expect(profileCheck('AGENT', profile).fix).toMatch(/^CHGUSRPRF USRPRF\(AGENT\) /);
    for (const user of ['AGENT) SPCAUT(*ALLOBJ', 'A B', "X'Y", 'TOOLONGNAME1']) {
      const check = profileCheck(user, profile);
      expect(check.status).toBe('failed');
      expect(check.fix).toBeNull();
      expect(check.remedy).not.toMatch(/CHGUSRPRF/);
      expect(check.remedy).toContain(JSON.stringify(user));
    }
  });

  it('write GRTOBJAUT for a profile name only', () => {
    const sync = { library: 'SYNC', table: 'JOURNALSCP' } as SyncLibrary;
    const privileges = (user: string) => ({ user, group: null, allObjects: false, rows: [] });
    const entities = [
      {
        source: { schema: 'SHOP', table: 'ORDERS' },
        target: { table: 'o' },
        rowIdentification: { kind: 'primaryKey' as const },
      },
    ];
    const fixes = (user: string) =>
      permissionChecks(privileges(user), entities, [], sync).flatMap((c) => (c.fix ? [c.fix] : []));
    expect(fixes('AGENT').join('\n')).toMatch(
      /GRTOBJAUT OBJ\(SHOP\/ORDERS\) OBJTYPE\(\*FILE\) USER\(AGENT\)/,
    );
    expect(fixes('AGENT) AUT(*ALL')).toEqual([]);
  });
});

describe('T-SQL fix texts', () => {
  const LOGIN = 'x]; DROP TABLE dbo.Orders; --';
  const DATABASE = 'Sales]; DROP TABLE dbo.Orders; --';

  it('keep a hostile login, database and table each one bracketed identifier', async () => {
    const sandbox = await startSandboxSqlServer({
      logins: [
        DBA,
        { name: LOGIN, password: 'Pa55-word', permissions: { write: false, viewChangeTracking: false } },
      ],
      databases: [DATABASE],
    });
    try {
      const setup = await sandboxPool(sandbox, { database: DATABASE, max: 1 });
      await setup
        .request()
        .batch('CREATE TABLE dbo.[T]]x] (Id INT PRIMARY KEY); CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);');
      await setup.close();
      const checks = await agentsRuntime().check(
        {
          pipelineId: 'p',
          id: 'src',
          type: 'change-tracking',
          role: 'source',
          hostCredentials: sandboxCredentials(sandbox, {
            databaseName: DATABASE,
            username: LOGIN,
            password: 'Pa55-word',
          }),
          configuration: ctConfiguration(),
        },
        [
          {
            source: { schema: 'dbo', table: 'T]x' },
            target: { table: 't' },
            rowIdentification: { kind: 'primaryKey' },
          },
        ],
      );
      const fixes = checks.flatMap((c) => (c.fix ? [c.fix] : []));
      expect(fixes.join('\n')).toMatch(
        /GRANT SELECT, INSERT, UPDATE, DELETE ON \[dbo\]\.\[T\]\]x\] TO \[x\]\]; DROP/,
      );
      expect(fixes.join('\n')).toMatch(/ALTER DATABASE \[Sales\]\]; DROP/);
      for (const fix of fixes) {
        const tokens = lex(fix);
        // No statement hides in a name: every DROP is inside a bracketed identifier.
        expect(tokens.filter((t) => t.kind === 'word' && t.text.toUpperCase() === 'DROP')).toEqual([]);
        const names = tokens.filter((t) => t.kind === 'quoted').map((t) => t.value);
        for (const name of names) expect([LOGIN, DATABASE, 'dbo', 'T]x']).toContain(name);
      }
    } finally {
      await sandbox.close();
    }
  });
});
