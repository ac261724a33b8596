// Who may do what, as SQL Server answers it: sys.database_principals and fn_my_permissions
// ("sys.database_principals (Transact-SQL)", "sys.fn_my_permissions (Transact-SQL)").
import type { Rights } from './database';
import type { TableInfo } from './schema';

const text = (v: string | null) => (v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`);

interface Principal {
  name: string;
  id: number;
  type: 'S' | 'R';
  defaultSchema: string | null;
  fixedRole: boolean;
  authentication: 'NONE' | 'INSTANCE';
}

/** The fixed roles every database has, with their documented principal ids. */
const FIXED_ROLES: [string, number][] = [
  ['db_owner', 16384],
  ['db_accessadmin', 16385],
  ['db_securityadmin', 16386],
  ['db_ddladmin', 16387],
  ['db_backupoperator', 16389],
  ['db_datareader', 16390],
  ['db_datawriter', 16391],
  ['db_denydatareader', 16392],
  ['db_denydatawriter', 16393],
];

/**
 * One row per principal: public, dbo (the user `sa` maps to), guest, INFORMATION_SCHEMA, sys, a SQL
 * user per other login (the sandbox maps every login into every database), and the fixed roles.
 */
export function databasePrincipalsSql(logins: readonly string[]): string {
  const principals: Principal[] = [
    { name: 'public', id: 0, type: 'R', defaultSchema: null, fixedRole: false, authentication: 'NONE' },
    { name: 'dbo', id: 1, type: 'S', defaultSchema: 'dbo', fixedRole: false, authentication: 'INSTANCE' },
    { name: 'guest', id: 2, type: 'S', defaultSchema: 'guest', fixedRole: false, authentication: 'NONE' },
    {
      name: 'INFORMATION_SCHEMA',
      id: 3,
      type: 'S',
      defaultSchema: null,
      fixedRole: false,
      authentication: 'NONE',
    },
    { name: 'sys', id: 4, type: 'S', defaultSchema: null, fixedRole: false, authentication: 'NONE' },
    ...logins
      .filter((l) => l.toLowerCase() !== 'sa')
      .map((name, i): Principal => ({
        name,
        id: 5 + i,
        type: 'S',
        defaultSchema: 'dbo',
        fixedRole: false,
        authentication: 'INSTANCE',
      })),
    ...FIXED_ROLES.map(([name, id]): Principal => ({
      name,
      id,
      type: 'R',
      defaultSchema: null,
      fixedRole: true,
      authentication: 'NONE',
    })),
  ];
  const rows = principals.map(
    (p) =>
      `SELECT ${text(p.name)} AS name, ${p.id} AS principal_id, ${text(p.type)} AS type, ` +
      `${text(p.type === 'S' ? 'SQL_USER' : 'DATABASE_ROLE')} AS type_desc, ${text(p.defaultSchema)} AS default_schema_name, ` +
      `'2003-04-08 09:10:42.287' AS create_date, '2003-04-08 09:10:42.287' AS modify_date, ` +
      `${p.type === 'R' ? 1 : 'NULL'} AS owning_principal_id, ${p.id === 3 || p.id === 4 ? 'NULL' : `X'${p.id.toString(16).padStart(2, '0')}'`} AS sid, ` +
      `${p.fixedRole ? 1 : 0} AS is_fixed_role, ${p.authentication === 'INSTANCE' ? 1 : 0} AS authentication_type, ` +
      `${text(p.authentication)} AS authentication_type_desc`,
  );
  return `(/* catalog */ ${rows.join(' UNION ALL ')})`;
}

export type SecurableClass = 'SERVER' | 'DATABASE' | 'OBJECT';

/**
 * fn_my_permissions(securable, class): the caller's effective permissions. An object's rows name the
 * object (empty subentity) and then each column for the permissions that apply to columns. A securable
 * that does not exist, or one the caller cannot see, gives no rows.
 */
export function myPermissions(
  rights: Rights,
  securableClass: string,
  database: string,
  table: TableInfo | undefined,
): { entity: string; subentity: string; permission: string }[] {
  const granted = (list: [string, boolean][]) => list.filter(([, on]) => on).map(([p]) => p);
  switch (securableClass.toUpperCase()) {
    case 'SERVER':
      return granted([
        ['CONNECT SQL', true],
        ['VIEW ANY DATABASE', true],
        ['VIEW SERVER STATE', rights.viewServerState],
        ['VIEW SERVER PERFORMANCE STATE', rights.viewServerState],
      ]).map((permission) => ({
        entity: 'server',
        subentity: '',
        permission,
      }));
    case 'DATABASE':
      return granted([
        ['CONNECT', true],
        ['SELECT', true],
        ['INSERT', rights.write],
        ['UPDATE', rights.write],
        ['DELETE', rights.write],
        ['CREATE TABLE', rights.createSchema],
        ['CREATE SCHEMA', rights.createSchema],
        ['VIEW DEFINITION', rights.viewCatalog],
        ['VIEW DATABASE STATE', rights.viewCatalog],
      ]).map((permission) => ({ entity: database, subentity: '', permission }));
    case 'OBJECT': {
      if (!table) return [];
      const entity = `${table.schema}.${table.name}`;
      const objectLevel = granted([
        ['SELECT', true],
        ['INSERT', rights.write],
        ['UPDATE', rights.write],
        ['DELETE', rights.write],
        ['REFERENCES', true],
        ['VIEW DEFINITION', rights.viewCatalog],
        ['VIEW CHANGE TRACKING', rights.viewChangeTracking],
      ]).map((permission) => ({ entity, subentity: '', permission }));
      const columnLevel = table.columns.flatMap((c) =>
        granted([
          ['SELECT', true],
          ['UPDATE', rights.write],
          ['REFERENCES', true],
        ]).map((permission) => ({ entity, subentity: c.name, permission })),
      );
      return [...objectLevel, ...columnLevel];
    }
    default:
      return [];
  }
}

export function myPermissionsSql(rows: ReturnType<typeof myPermissions>): string {
  if (rows.length === 0)
    return '(/* catalog */ SELECT NULL AS entity_name, NULL AS subentity_name, NULL AS permission_name WHERE 0)';
  return `(/* catalog */ ${rows
    .map(
      (r) =>
        `SELECT ${text(r.entity)} AS entity_name, ${text(r.subentity)} AS subentity_name, ${text(r.permission)} AS permission_name`,
    )
    .join(' UNION ALL ')})`;
}
