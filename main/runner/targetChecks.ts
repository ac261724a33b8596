// Checks of a target agent (POST …/test on an agent with role "target"): can the runner write there?
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { changeTrackingHostCredentials } from '../../shared/agents/changeTracking';
import {
  postgresqlConfiguration,
  postgresqlHostCredentials,
  sqliteHostCredentials,
} from '../../shared/agents/targets';
import type { CheckResult } from '../../shared/controlApi';
import { AgentConnectionError, openPool } from '../connectors/changeTracking/connection';
import type { ResolvedAgent } from '../connectors/spi';

const passed = (id: string, message: string): CheckResult => ({
  id,
  status: 'passed',
  message,
  remedy: null,
});
const failed = (id: string, message: string, remedy: string): CheckResult => ({
  id,
  status: 'failed',
  message,
  remedy,
});

export async function checkTarget(agent: ResolvedAgent): Promise<CheckResult[]> {
  if (agent.type === 'sqlite') return checkSqlite(agent);
  if (agent.type === 'postgresql') return checkPostgres(agent);
  if (agent.type === 'change-tracking') return checkSqlServerTarget(agent);
  return [];
}

async function checkSqlite(agent: ResolvedAgent): Promise<CheckResult[]> {
  const { path } = sqliteHostCredentials.schema.parse(agent.hostCredentials);
  if (!path)
    return [
      passed(
        'target-writable',
        'The replica goes to <data folder>/replicas/<pipeline id>.sqlite, which the engine owns.',
      ),
    ];
  try {
    // The nearest folder that exists must be a folder the engine may write in (the rest it creates).
    let folder = dirname(path);
    while (!(await stat(folder).catch(() => undefined))) folder = dirname(folder);
    if (!(await stat(folder)).isDirectory())
      throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    await access(folder, constants.W_OK);
    return [passed('target-writable', `The engine can write ${path}.`)];
  } catch (error) {
    return [
      failed(
        'target-writable',
        `The engine cannot write in ${dirname(path)} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
        'Choose a path in a folder the engine may create files in.',
      ),
    ];
  }
}

async function checkPostgres(agent: ResolvedAgent): Promise<CheckResult[]> {
  const c = postgresqlHostCredentials.schema.parse(agent.hostCredentials);
  const schema = postgresqlConfiguration.schema.parse(agent.configuration).schema ?? 'public';
  const client = new pg.Client({
    host: c.host,
    port: c.port,
    database: c.databaseName,
    user: c.username,
    password: c.password,
  });
  try {
    await client.connect();
  } catch (error) {
    return [
      failed(
        'connection',
        `PostgreSQL at ${c.host}:${c.port} refused "${c.username}" on "${c.databaseName}": ${(error as Error).message}`,
        'Check the database, user and password, and pg_hba.conf on the server.',
      ),
    ];
  }
  try {
    const { rows } = await client.query<{ exists: boolean; can_create: boolean }>(
      `SELECT to_regnamespace($1) IS NOT NULL AS exists,
         CASE WHEN to_regnamespace($1) IS NULL THEN has_database_privilege(current_user, current_database(), 'CREATE')
              ELSE has_schema_privilege(current_user, $1, 'CREATE') END AS can_create`,
      [schema],
    );
    const r = rows[0];
    return [
      passed('connection', `Logged in as "${c.username}" to "${c.databaseName}".`),
      r?.can_create
        ? passed(
            'target-writable',
            `"${c.username}" may create tables in ${r.exists ? 'the schema' : 'a new schema'} "${schema}".`,
          )
        : failed(
            'target-writable',
            `"${c.username}" may not create tables in the schema "${schema}".`,
            r?.exists
              ? `GRANT CREATE ON SCHEMA "${schema}" TO "${c.username}";`
              : `GRANT CREATE ON DATABASE "${c.databaseName}" TO "${c.username}";`,
          ),
    ];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkSqlServerTarget(agent: ResolvedAgent): Promise<CheckResult[]> {
  const c = changeTrackingHostCredentials.schema.parse(agent.hostCredentials);
  let pool;
  try {
    pool = await openPool(c);
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return [{ id: 'connection', status: 'failed', message: error.message, remedy: error.remedy }];
  }
  try {
    const { recordset } = await pool
      .request()
      .query<{ can_create: number }>(
        "SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'CREATE TABLE') AS can_create",
      );
    return [
      passed('connection', `Logged in as "${c.username}" to the database "${c.databaseName}".`),
      recordset[0]?.can_create === 1
        ? passed('target-writable', `"${c.username}" may create the replica tables in "${c.databaseName}".`)
        : failed(
            'target-writable',
            `"${c.username}" may not create tables in "${c.databaseName}".`,
            'Grant CREATE TABLE (and ALTER on the schema), or create the target tables beforehand.',
          ),
    ];
  } finally {
    await pool.close().catch(() => undefined);
  }
}
