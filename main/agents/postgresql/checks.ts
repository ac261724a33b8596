// Checks of a PostgreSQL target: the login, and the right to create the replica's tables.
import pg from 'pg';
import type { CheckResult } from '../../../shared/controlApi';
import { failed, loggedIn, passed } from '../checkResults';
import { postgresSettingsOf, type PostgresqlAgent } from './settings';
import { quoted as q } from './identifier';
import { explainPostgresConnectError } from './errors';

export async function checkPostgresTarget(agent: PostgresqlAgent): Promise<CheckResult[]> {
  const { credentials: c, connection, schema } = postgresSettingsOf(agent);
  const client = new pg.Client(connection);
  try {
    await client.connect();
  } catch (error) {
    const why = explainPostgresConnectError(error, c);
    return [failed('connection', why.message, why.remedy)];
  }
  try {
    // The schema is looked up by its exact name, as the target quotes it: to_regnamespace() and
    // has_schema_privilege(text) would fold an unquoted name to lower case and disagree.
    const { rows } = await client.query<{ exists: boolean; can_create: boolean; lookalike: string | null }>(
      `SELECT n.oid IS NOT NULL AS exists,
         CASE WHEN n.oid IS NULL THEN has_database_privilege(current_user, current_database(), 'CREATE')
              ELSE has_schema_privilege(current_user, n.oid, 'CREATE') END AS can_create,
         (SELECT min(o.nspname) FROM pg_namespace o WHERE lower(o.nspname) = lower($1) AND o.nspname <> $1) AS lookalike
       FROM (SELECT $1::text AS name) w LEFT JOIN pg_namespace n ON n.nspname = w.name`,
      [schema],
    );
    const r = rows[0];
    const connected = passed(
      'connection',
      loggedIn({ user: c.username, database: c.databaseName, server: `${c.host}:${c.port}` }),
    );
    if (r && !r.exists && r.lookalike !== null)
      return [
        connected,
        failed(
          'target-writable',
          `The schema ${q(schema)} does not exist, but ${q(r.lookalike)} does: they differ only in case. The runner quotes every name, so it would create ${q(schema)} beside it, while anyone who writes the name without quotes reaches ${q(r.lookalike)}.`,
          `Set the schema to ${JSON.stringify(r.lookalike)}, or create ${q(schema)} first if two schemas are meant.`,
        ),
      ];
    return [
      connected,
      r?.can_create
        ? passed(
            'target-writable',
            `"${c.username}" may create tables in ${r.exists ? 'the schema' : 'a new schema'} ${q(schema)}.`,
          )
        : failed(
            'target-writable',
            `"${c.username}" may not create tables in the schema ${q(schema)}.`,
            r?.exists
              ? `GRANT CREATE ON SCHEMA ${q(schema)} TO ${q(c.username)};`
              : `GRANT CREATE ON DATABASE ${q(c.databaseName)} TO ${q(c.username)};`,
          ),
    ];
  } finally {
    await client.end().catch(() => undefined);
  }
}
