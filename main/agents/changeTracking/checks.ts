// The change-tracking agent's checks: one result each, with a remedy and, where SQL fixes it, the
// statement. They use a fixed number of queries whatever the number of tables: the schemas catalogue
// (and, when that fails, once more in lower case to tell the cause), the SYNC schema, one batch over
// the catalogue, one permission query and one for the server's VIEW SERVER STATE.
import type sql from 'mssql';
import { labelOf } from '../../../shared/config/parse';
import { changeTrackingConfiguration } from '../../../shared/agents/changeTracking';
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../../../shared/agents/changeTracking';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { failed, passed, unchecked, warning } from '../checkResults';
import { tableKey, tableRefOf, type TableRef } from '../source';
import { sqlServerErrorNumber } from '../drivers/mssql/errors';
import { bracket, byTableName, perSlice, qualified, sameName } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';
import { describeTables, unsupportedColumns } from '../drivers/mssql/shape';
import { enableTracking } from './tables';
import { COMMIT_TIMES_CHECK, commitTimeCheck } from './commitTimeCheck';
import { heartbeatCheck } from './heartbeat';

/** The retention setting as the form names it. */
const RETENTION = `"${labelOf(changeTrackingConfiguration, 'sourceChangeRetentionDays')}"`;

export const SCHEMAS_ERROR = "Driver SQL exception: Invalid object name 'SYS.SCHEMAS'.";
export const MISSING_KEYS_ERROR = 'IllegalArgumentException: Missing primary keys for entities...';

interface CatalogTable {
  schema_name: string;
  table_name: string;
  tracked: number;
  has_pk: number;
}
interface Permissions {
  name: string;
  can_select: number | null;
  can_insert: number | null;
  can_update: number | null;
  can_delete: number | null;
  can_view_ct: number | null;
  object_id: number | null;
}

const list = (names: string[]) => names.join(', ');

/** Runs every check on an open pool (the connection check is the caller's: it opened the pool). */
export async function runChecks(
  pool: sql.ConnectionPool,
  credentials: ChangeTrackingHostCredentials,
  configuration: ChangeTrackingConfiguration,
  entities: readonly Entity[],
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const catalog = await checkSchemasCatalog(pool, credentials);
  results.push(catalog.result);
  if (catalog.schemas) results.push(await syncSchemaCheck(pool, credentials.databaseName, catalog.schemas));
  if (catalog.schemas && configuration.heartbeatSeconds > 0) {
    const schemaExists = catalog.schemas.some((s) => sameName(s, SYNC_SCHEMA));
    results.push(
      ...(await orFailed(['heartbeat'], async () => [
        await heartbeatCheck(pool, credentials.username, schemaExists),
      ])),
    );
  }
  const tables = entities.map(tableRefOf);
  results.push(
    ...(await orFailed(['entity-tables', 'table-permissions', 'view-change-tracking'], () =>
      checkPermissions(pool, credentials, tables),
    )),
  );
  results.push(
    ...(await orFailed([COMMIT_TIMES_CHECK], async () => [
      await commitTimeCheck(pool, credentials, configuration.startAt, configuration.stopAt),
    ])),
  );
  if (!catalog.readable) {
    const why = 'The login cannot read the catalogue views (see the schemas catalogue check).';
    const remedy = 'Grant the login VIEW DEFINITION on the database, then test again.';
    for (const id of [
      'change-tracking-database',
      'change-retention',
      'snapshot-isolation',
      'change-tracking-tables',
      'primary-keys',
      'column-types',
    ])
      results.push(unchecked(id, why, remedy));
    return results;
  }
  results.push(
    ...(await orFailed(
      [
        'change-tracking-database',
        'change-retention',
        'snapshot-isolation',
        'change-tracking-tables',
        'primary-keys',
      ],
      () => checkCatalog(pool, credentials, configuration, tables),
    )),
  );
  results.push(...(await orFailed(['column-types'], () => checkColumnTypes(pool, tables))));
  return results;
}

/** Every column of every entity has a type the agent replicates exactly, or the run does not start. */
async function checkColumnTypes(pool: sql.ConnectionPool, tables: TableRef[]): Promise<CheckResult[]> {
  const shapes = await describeTables(pool, tables);
  const problems = shapes.flatMap(unsupportedColumns);
  return [
    problems.length
      ? failed(
          'column-types',
          `Columns the change-tracking agent cannot replicate:\n${problems.join('\n')}`,
          'Leave these tables out of the pipeline; it does not start while they are in it.',
        )
      : passed(
          'column-types',
          `Every column of the ${shapes.length} entity table(s) has a type the agent replicates exactly.`,
        ),
  ];
}

/**
 * A database error while checking is the checks' answer (each check it stopped failed, with the
 * database's own message), never a failure of the request. A lost connection still throws: the
 * connection check answers for it.
 */
async function orFailed(ids: string[], run: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (error) {
    const number = sqlServerErrorNumber(error);
    if (number === undefined) throw error;
    const message = (error as { message?: unknown }).message;
    return ids.map((id) =>
      unchecked(
        id,
        `SQL Server answered error ${number}: ${typeof message === 'string' ? message : 'no message'}`,
        'Correct what the message names (a permission, an object), then test again.',
      ),
    );
  }
}

/**
 * Engines read `SYS.SCHEMAS` in upper case to find the SYNC schema. When that fails, a second read in
 * lower case tells a missing permission (fails too) from a case-sensitive collation (works).
 */
async function checkSchemasCatalog(
  pool: sql.ConnectionPool,
  c: ChangeTrackingHostCredentials,
): Promise<{ result: CheckResult; schemas?: string[]; readable: boolean }> {
  const id = 'schemas-catalog';
  try {
    const r = await pool.request().query<{ name: string }>('SELECT name FROM SYS.SCHEMAS');
    return {
      result: passed(id, 'The login reads the schemas catalogue (SYS.SCHEMAS).'),
      schemas: r.recordset.map((x) => x.name),
      readable: true,
    };
  } catch (error) {
    if (sqlServerErrorNumber(error) !== 208) throw error;
  }
  try {
    const r = await pool.request().query<{ name: string }>('SELECT name FROM sys.schemas');
    return {
      result: warning(
        id,
        `${SCHEMAS_ERROR} The database "${c.databaseName}" has a case-sensitive collation: catalogue names only match in lower case. Engines that read SYS.SCHEMAS in upper case stop here; this app's local runner reads sys.schemas and works.`,
        'Use a sync engine version that reads catalogue views in lower case, or a database with a case-insensitive collation.',
      ),
      schemas: r.recordset.map((x) => x.name),
      readable: true,
    };
  } catch (error) {
    if (sqlServerErrorNumber(error) !== 208) throw error;
    return {
      result: failed(
        id,
        `${SCHEMAS_ERROR} The login "${c.username}" cannot read the catalogue views of "${c.databaseName}", so the agent cannot find or create the SYNC schema.`,
        `Correct the user's permissions, then retry: GRANT VIEW DEFINITION TO ${bracket(c.username)} in database ${bracket(c.databaseName)}.`,
        `GRANT VIEW DEFINITION TO ${bracket(c.username)};`,
      ),
      readable: false,
    };
  }
}

/**
 * The spec: the agent creates the SYNC schema when it is absent — at Start, where the run does it. The
 * check only reads: it says the schema will be created, with the statement, or that the login cannot.
 */
async function syncSchemaCheck(
  pool: sql.ConnectionPool,
  database: string,
  schemas: string[],
): Promise<CheckResult> {
  const id = 'sync-schema';
  const create = `CREATE SCHEMA ${bracket(SYNC_SCHEMA)};`;
  if (schemas.some((s) => sameName(s, SYNC_SCHEMA))) return passed(id, `The ${SYNC_SCHEMA} schema exists.`);
  const request = pool.request();
  request.input('db', database);
  const { recordset } = await request.query<{ can: number | null }>(
    "SELECT HAS_PERMS_BY_NAME(@db, 'DATABASE', 'CREATE SCHEMA') AS can",
  );
  if (recordset[0]?.can === 1)
    return {
      ...passed(id, `The ${SYNC_SCHEMA} schema is absent: the agent will create it at Start (${create}).`),
      atStart: create,
    };
  return failed(
    id,
    `The ${SYNC_SCHEMA} schema is absent and the login cannot create it (no CREATE SCHEMA permission).`,
    `Create it as a DBA (CREATE SCHEMA ${bracket(SYNC_SCHEMA)}), or grant the login CREATE SCHEMA.`,
    create,
  );
}

/** Read, write and VIEW CHANGE TRACKING on every entity's table, in one query. */
async function checkPermissions(
  pool: sql.ConnectionPool,
  c: ChangeTrackingHostCredentials,
  tables: TableRef[],
): Promise<CheckResult[]> {
  if (tables.length === 0) {
    const none = (id: string): CheckResult =>
      warning(
        id,
        'No entities yet: there are no tables to check.',
        "Choose the tables to replicate (the pipeline's Tables section in the app, or PUT …/entities), then check again.",
      );
    return [none('table-permissions'), none('view-change-tracking')];
  }
  // Bounded statements whatever the number of entities (SQL Server takes at most 2,100 parameters).
  const found = await perSlice(tables, async (slice) => {
    const request = pool.request();
    const rows = slice.map((t, i) => {
      request.input(`t${i}`, qualified(t));
      const has = (perm: string) => `HAS_PERMS_BY_NAME(@t${i}, 'OBJECT', '${perm}')`;
      return `SELECT @t${i} AS name, OBJECT_ID(@t${i}) AS object_id, ${has('SELECT')} AS can_select, ${has('INSERT')} AS can_insert, ${has('UPDATE')} AS can_update, ${has('DELETE')} AS can_delete, ${has('VIEW CHANGE TRACKING')} AS can_view_ct`;
    });
    return (await request.query<Permissions>(rows.join(' UNION ALL '))).recordset;
  });
  const named = (i: number) => tableKey(tables[i] as TableRef);
  const missing = found.flatMap((r, i) => (r.can_select === null ? [named(i)] : []));
  const noRead = found.flatMap((r, i) => (r.can_select === 0 ? [named(i)] : []));
  const noWrite = found.flatMap((r, i) =>
    r.can_insert === 0 || r.can_update === 0 || r.can_delete === 0 ? [named(i)] : [],
  );
  const noViewCt = found.flatMap((r, i) => (r.can_view_ct === 0 ? [named(i)] : []));
  const user = bracket(c.username);
  const results: CheckResult[] = [];
  // Names SQL Server resolves to one table (its collation decides): each table once per pipeline.
  const firstOf = new Map<number, string>();
  const twice = found.flatMap((r, i) => {
    if (r.object_id === null) return [];
    const first = firstOf.get(r.object_id);
    if (first === undefined) firstOf.set(r.object_id, named(i));
    return first === undefined ? [] : [`${first} and ${named(i)}`];
  });
  if (missing.length > 0 || twice.length > 0)
    results.push(
      failed(
        'entity-tables',
        [
          missing.length > 0
            ? `These tables do not exist in "${c.databaseName}", or the login cannot see them: ${list(missing)}.`
            : '',
          twice.length > 0
            ? `${twice.join('; ')} name the same table under the database's collation: a table is replicated by one entity.`
            : '',
        ]
          .filter(Boolean)
          .join(' '),
        twice.length > 0
          ? 'Remove the entities that repeat a table.'
          : 'Check the entities’ source schema and table names.',
      ),
    );
  else results.push(passed('entity-tables', `All ${tables.length} entity tables exist.`));
  results.push(
    noRead.length + noWrite.length === 0
      ? passed(
          'table-permissions',
          `The login reads and writes all ${tables.length - missing.length} entity tables.`,
        )
      : failed(
          'table-permissions',
          [
            noRead.length > 0 ? `No SELECT on ${list(noRead)}.` : '',
            noWrite.length > 0 ? `No INSERT, UPDATE or DELETE on ${list(noWrite)}.` : '',
          ]
            .filter(Boolean)
            .join(' '),
          'The agent needs to read and write the tables: grant the login SELECT, INSERT, UPDATE and DELETE on them.',
          [...new Set([...noRead, ...noWrite])]
            .map((n) => `GRANT SELECT, INSERT, UPDATE, DELETE ON ${qualifiedKey(tables, n)} TO ${user};`)
            .join('\n'),
        ),
  );
  results.push(
    noViewCt.length === 0
      ? passed('view-change-tracking', 'VIEW CHANGE TRACKING is granted on every entity table.')
      : failed(
          'view-change-tracking',
          `VIEW CHANGE TRACKING is not granted on ${list(noViewCt)}: the agent cannot read their changes.`,
          'Grant VIEW CHANGE TRACKING on each table (or on its schema) to the login.',
          noViewCt
            .map((n) => `GRANT VIEW CHANGE TRACKING ON ${qualifiedKey(tables, n)} TO ${user};`)
            .join('\n'),
        ),
  );
  return results;
}

const qualifiedKey = (tables: TableRef[], key: string) =>
  qualified(tables.find((t) => tableKey(t) === key) ?? { schema: 'dbo', table: key });

/** The database's Change Tracking, retention and snapshot isolation; each table's tracking and key. */
async function checkCatalog(
  pool: sql.ConnectionPool,
  c: ChangeTrackingHostCredentials,
  conf: ChangeTrackingConfiguration,
  tables: TableRef[],
): Promise<CheckResult[]> {
  const answer = await pool.request().query(`
    SELECT d.snapshot_isolation_state FROM sys.databases d WHERE d.database_id = DB_ID();
    SELECT ctd.retention_period, ctd.retention_period_units_desc, ctd.is_auto_cleanup_on
      FROM sys.change_tracking_databases ctd WHERE ctd.database_id = DB_ID();
    SELECT s.name AS schema_name, t.name AS table_name,
        CASE WHEN ctt.object_id IS NULL THEN 0 ELSE 1 END AS tracked,
        CASE WHEN pk.parent_object_id IS NULL THEN 0 ELSE 1 END AS has_pk
      FROM sys.tables t
      JOIN sys.schemas s ON s.schema_id = t.schema_id
      LEFT JOIN sys.change_tracking_tables ctt ON ctt.object_id = t.object_id
      LEFT JOIN sys.key_constraints pk ON pk.parent_object_id = t.object_id AND pk.type = 'PK';`);
  const sets = answer.recordsets as unknown as [
    { snapshot_isolation_state: number }[],
    { retention_period: number; retention_period_units_desc: string; is_auto_cleanup_on: boolean }[],
    CatalogTable[],
  ];
  const [databases, tracking, catalogTables] = sets;
  const db = bracket(c.databaseName);
  const days = conf.sourceChangeRetentionDays;
  const results: CheckResult[] = [];
  const ct = tracking[0];
  results.push(
    ct
      ? passed('change-tracking-database', `Change Tracking is on for "${c.databaseName}".`)
      : failed(
          'change-tracking-database',
          `Change Tracking is off for the database "${c.databaseName}".`,
          'Turn it on (ALTER DATABASE needs ALTER permission on the database).',
          `ALTER DATABASE ${db} SET CHANGE_TRACKING = ON (CHANGE_RETENTION = ${days} DAYS, AUTO_CLEANUP = ON);`,
        ),
  );
  if (!ct)
    results.push(
      failed(
        'change-retention',
        'No retention: Change Tracking is off for the database.',
        'Turn Change Tracking on first.',
      ),
    );
  else if (ct.retention_period_units_desc.toUpperCase() === 'DAYS' && ct.retention_period === days)
    results.push(passed('change-retention', `Changes are kept ${days} days, as ${RETENTION} says.`));
  else
    results.push(
      failed(
        'change-retention',
        `Changes are kept ${ct.retention_period} ${ct.retention_period_units_desc.toLowerCase()}; ${RETENTION} is ${days}.`,
        'Set the database retention to match; the engine applies the statement below when you ask it to. A retention shorter than the longest pause loses changes and forces a new snapshot.',
        `ALTER DATABASE ${db} SET CHANGE_TRACKING (CHANGE_RETENTION = ${days} DAYS);`,
      ),
    );
  results.push(
    databases[0]?.snapshot_isolation_state === 1
      ? passed('snapshot-isolation', `Snapshot isolation is allowed in "${c.databaseName}".`)
      : failed(
          'snapshot-isolation',
          `Snapshot isolation is not allowed in "${c.databaseName}": the agent cannot read a consistent set of changes.`,
          'Allow it; it does not change the isolation level of other sessions.',
          `ALTER DATABASE ${db} SET ALLOW_SNAPSHOT_ISOLATION ON;`,
        ),
  );
  if (tables.length === 0) return results;
  // One map of the catalogue: a lookup per entity, not a scan (10,000 entities in a large database).
  const rowsOf = byTableName(catalogTables);
  const lookup = (t: TableRef): CatalogTable | undefined => rowsOf(t)[0];
  const present = tables.filter((t) => lookup(t));
  const untracked = present.filter((t) => !lookup(t)?.tracked);
  const keyless = present.filter((t) => !lookup(t)?.has_pk);
  results.push(
    untracked.length === 0
      ? passed('change-tracking-tables', `Change Tracking is on for all ${present.length} entity tables.`)
      : failed(
          'change-tracking-tables',
          `Change Tracking is off for ${list(untracked.map(tableKey))}.`,
          'Enable it on each table (the table needs a primary key).',
          untracked
            .filter((t) => lookup(t)?.has_pk)
            .map(enableTracking)
            .join('\n'),
        ),
  );
  results.push(
    keyless.length === 0
      ? passed('primary-keys', `All ${present.length} entity tables have a primary key.`)
      : failed(
          'primary-keys',
          `${MISSING_KEYS_ERROR} ${list(keyless.map(tableKey))}`,
          'Define primary keys, or use an agent type that supports logical keys. A clustered index or unique constraint does not stand in for a primary key.',
        ),
  );
  return results;
}
