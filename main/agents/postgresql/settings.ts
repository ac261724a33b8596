// A PostgreSQL target agent's settings as node-postgres takes them, for its checks and its writer alike.
import {
  postgresqlConfiguration,
  type PostgresqlConfiguration,
  type PostgresqlHostCredentials,
} from '../../../shared/agents/targets';
import type { ResolvedAgent } from '../spi';

export type PostgresqlAgent = ResolvedAgent<PostgresqlHostCredentials, PostgresqlConfiguration>;

/** A target's settings before its configuration is set ("Test connection"): the defaults. */
export const defaultPostgresqlConfiguration = (): PostgresqlConfiguration =>
  postgresqlConfiguration.schema.parse({});

export function postgresSettingsOf(agent: PostgresqlAgent) {
  const { hostCredentials: c, configuration } = agent;
  return {
    credentials: c,
    connection: {
      host: c.host,
      port: c.port,
      database: c.databaseName,
      user: c.username,
      password: c.password,
    },
    schema: configuration.schema ?? 'public',
    batchRows: configuration.batchRows,
    preciseTimes: configuration.preciseTimes,
    nulCharacter: configuration.nulCharacter,
  };
}
