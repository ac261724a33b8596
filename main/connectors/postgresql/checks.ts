// Checks of a PostgreSQL target: the login, and the right to create the replica's tables.
import pg from 'pg';
import type { CheckResult } from '../../../shared/controlApi';
import { failed, loggedIn, passed } from '../checkResults';
import type { ResolvedAgent } from '../spi';
import { postgresSettingsOf } from './settings';

export async function checkPostgresTarget(agent: ResolvedAgent): Promise<CheckResult[]> {
  const { credentials: c, connection, schema } = postgresSettingsOf(agent);
  const client = new pg.Client(connection);
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
      passed(
        'connection',
        loggedIn({ user: c.username, database: c.databaseName, server: `${c.host}:${c.port}` }),
      ),
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
