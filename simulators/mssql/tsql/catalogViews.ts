// SQL Server's catalog views over the sandbox's catalog ("Catalog Views (Transact-SQL)", "System
// Information Schema Views"). The catalog's columns are declared with T-SQL types, so each view column
// reaches the client typed as SQL Server types it (sysname, int, bit, …).
import type { SqlType } from '../tds/dataTypes/sqlTypes';
import { typeFacts } from '../tds/typeFacts';

const T = (type: string) => `"tsql ${type}"`;
const SYSNAME = T('text nvarchar(128)');
const INT = T('int int');
const BIT = T('int bit');
const TINYINT = T('int tinyint');
const SMALLINT = T('int smallint');

export const CATALOG_DDL = `
  CREATE TABLE __schemas (schema_id ${INT} PRIMARY KEY, name ${SYSNAME} NOT NULL UNIQUE COLLATE NOCASE);
  CREATE TABLE __objects (object_id ${INT} PRIMARY KEY, schema_name ${SYSNAME} NOT NULL, name ${SYSNAME} NOT NULL,
    type ${T('text char(2)')} NOT NULL, create_date ${T('text datetime')} NOT NULL, modify_date ${T('text datetime')} NOT NULL,
    UNIQUE (schema_name, name));
  -- Names are looked up as the default collation compares them (case-insensitively): indexed so.
  CREATE INDEX __objects_name ON __objects (schema_name COLLATE NOCASE, name COLLATE NOCASE);
  CREATE TABLE __columns (object_id ${INT} NOT NULL, column_id ${INT} NOT NULL, name ${SYSNAME} NOT NULL, type TEXT NOT NULL,
    type_name ${SYSNAME} NOT NULL, system_type_id ${TINYINT} NOT NULL, max_length ${SMALLINT} NOT NULL,
    precision ${TINYINT} NOT NULL, scale ${TINYINT} NOT NULL, collation_name ${SYSNAME},
    is_nullable ${BIT} NOT NULL, is_identity ${BIT} NOT NULL, seed INTEGER, increment INTEGER, last_value INTEGER,
    user_type_id INTEGER, PRIMARY KEY (object_id, column_id));
  CREATE TABLE __keys (object_id ${INT} NOT NULL, name ${SYSNAME} NOT NULL, kind ${T('text char(2)')} NOT NULL,
    clustered ${BIT} NOT NULL, index_id ${INT} NOT NULL, key_ordinal ${TINYINT} NOT NULL, column_name ${SYSNAME} NOT NULL);
  -- A table's keys and indexes are read by its object id at every reference: indexed, as SQL Server's
  -- own catalogue is, so a look-up does not grow with the number of tables.
  CREATE INDEX __keys_object ON __keys (object_id);
  -- Indexes made by CREATE INDEX (those of PRIMARY KEY and UNIQUE constraints are in __keys).
  CREATE TABLE __indexes (object_id ${INT} NOT NULL, name ${SYSNAME} NOT NULL, index_id ${INT} NOT NULL,
    is_unique ${BIT} NOT NULL, clustered ${BIT} NOT NULL, key_ordinal ${TINYINT} NOT NULL, column_name ${SYSNAME} NOT NULL,
    is_descending_key ${BIT} NOT NULL, filter_definition ${T('text nvarchar(max)')});
  CREATE INDEX __indexes_object ON __indexes (object_id);
  -- Column ids of dropped columns: SQL Server never gives one to a column added later.
  CREATE TABLE __dropped_columns (object_id ${INT} NOT NULL, column_id ${INT} NOT NULL);
  CREATE TABLE __options (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE __types (name ${SYSNAME} NOT NULL, system_type_id ${TINYINT} NOT NULL, user_type_id ${INT} NOT NULL,
    schema_id ${INT} NOT NULL, max_length ${SMALLINT} NOT NULL, precision ${TINYINT} NOT NULL, scale ${TINYINT} NOT NULL,
    collation_name ${SYSNAME}, is_nullable ${BIT} NOT NULL, is_user_defined ${BIT} NOT NULL);

  CREATE VIEW "sys.schemas" AS SELECT name, schema_id, 1 AS principal_id FROM __schemas;
  CREATE VIEW "sys.objects" AS
    SELECT o.name, o.object_id, s.schema_id, o.type, CASE o.type WHEN 'U' THEN 'USER_TABLE' ELSE o.type END AS type_desc,
      o.create_date, o.modify_date, 0 AS is_ms_shipped, 0 AS parent_object_id
    FROM __objects o JOIN __schemas s ON s.name = o.schema_name;
  CREATE VIEW "sys.tables" AS
    SELECT o.name, o.object_id, s.schema_id, o.type, 'USER_TABLE' AS type_desc, o.create_date, o.modify_date,
      0 AS is_ms_shipped, 0 AS parent_object_id
    FROM __objects o JOIN __schemas s ON s.name = o.schema_name WHERE o.type = 'U';
  CREATE VIEW "sys.columns" AS
    SELECT c.object_id, c.name, c.column_id, c.system_type_id,
      COALESCE(c.user_type_id, CASE c.type_name WHEN 'hierarchyid' THEN 128 WHEN 'geometry' THEN 129
        WHEN 'geography' THEN 130 ELSE c.system_type_id END) AS user_type_id, c.max_length, c.precision,
      c.scale, c.collation_name, c.is_nullable, c.is_identity, 0 AS is_computed
    FROM __columns c;
  CREATE VIEW "sys.types" AS
    SELECT *, CASE WHEN system_type_id = 240 THEN 1 ELSE 0 END AS is_assembly_type FROM __types;
  CREATE VIEW "sys.indexes" AS
    SELECT o.object_id, NULL AS name, 0 AS index_id, 0 AS type, 'HEAP' AS type_desc, 0 AS is_unique, 0 AS is_primary_key,
      0 AS is_unique_constraint, 0 AS has_filter, NULL AS filter_definition
    FROM __objects o WHERE o.type = 'U' AND NOT EXISTS (SELECT 1 FROM __keys k WHERE k.object_id = o.object_id AND k.clustered = 1)
      AND NOT EXISTS (SELECT 1 FROM __indexes x WHERE x.object_id = o.object_id AND x.clustered = 1)
    UNION ALL
    SELECT DISTINCT x.object_id, x.name, x.index_id, CASE WHEN x.clustered = 1 THEN 1 ELSE 2 END AS type,
      CASE WHEN x.clustered = 1 THEN 'CLUSTERED' ELSE 'NONCLUSTERED' END AS type_desc, x.is_unique, 0 AS is_primary_key,
      0 AS is_unique_constraint, CASE WHEN x.filter_definition IS NULL THEN 0 ELSE 1 END AS has_filter, x.filter_definition
    FROM __indexes x
    UNION ALL
    SELECT DISTINCT k.object_id, k.name, k.index_id, CASE WHEN k.clustered = 1 THEN 1 ELSE 2 END AS type,
      CASE WHEN k.clustered = 1 THEN 'CLUSTERED' ELSE 'NONCLUSTERED' END AS type_desc, 1 AS is_unique,
      CASE WHEN k.kind = 'PK' THEN 1 ELSE 0 END AS is_primary_key, CASE WHEN k.kind = 'UQ' THEN 1 ELSE 0 END AS is_unique_constraint,
      0 AS has_filter, NULL AS filter_definition
    FROM __keys k;
  CREATE VIEW "sys.index_columns" AS
    SELECT k.object_id, k.index_id, k.key_ordinal AS index_column_id, c.column_id, k.key_ordinal, 0 AS is_descending_key,
      0 AS is_included_column
    FROM __keys k JOIN __columns c ON c.object_id = k.object_id AND c.name = k.column_name COLLATE NOCASE
    UNION ALL
    SELECT x.object_id, x.index_id, x.key_ordinal, c.column_id, x.key_ordinal, x.is_descending_key, 0
    FROM __indexes x JOIN __columns c ON c.object_id = x.object_id AND c.name = x.column_name COLLATE NOCASE;
  CREATE VIEW "sys.key_constraints" AS
    SELECT DISTINCT k.name, k.object_id * 16 + k.index_id AS object_id, s.schema_id, k.object_id AS parent_object_id, k.kind AS type,
      CASE k.kind WHEN 'PK' THEN 'PRIMARY_KEY_CONSTRAINT' ELSE 'UNIQUE_CONSTRAINT' END AS type_desc, k.index_id AS unique_index_id,
      0 AS is_system_named
    FROM __keys k JOIN __objects o ON o.object_id = k.object_id JOIN __schemas s ON s.name = o.schema_name;
  CREATE VIEW "INFORMATION_SCHEMA.TABLES" AS
    SELECT db_name() AS TABLE_CATALOG, schema_name AS TABLE_SCHEMA, name AS TABLE_NAME, 'BASE TABLE' AS TABLE_TYPE
    FROM __objects WHERE type = 'U';
  CREATE VIEW "INFORMATION_SCHEMA.COLUMNS" AS
    SELECT db_name() AS TABLE_CATALOG, o.schema_name AS TABLE_SCHEMA, o.name AS TABLE_NAME, c.name AS COLUMN_NAME,
      c.column_id AS ORDINAL_POSITION, CASE WHEN c.is_nullable = 1 THEN 'YES' ELSE 'NO' END AS IS_NULLABLE, c.type_name AS DATA_TYPE,
      CASE WHEN c.type_name IN ('char', 'varchar', 'binary', 'varbinary') THEN c.max_length
           WHEN c.type_name IN ('nchar', 'nvarchar') THEN CASE WHEN c.max_length = -1 THEN -1 ELSE c.max_length / 2 END END AS CHARACTER_MAXIMUM_LENGTH,
      CASE WHEN c.type_name IN ('tinyint', 'smallint', 'int', 'bigint', 'decimal', 'numeric', 'float', 'real') THEN c.precision END AS NUMERIC_PRECISION,
      CASE WHEN c.type_name IN ('tinyint', 'smallint', 'int', 'bigint', 'decimal', 'numeric') THEN c.scale END AS NUMERIC_SCALE,
      CASE WHEN c.type_name IN ('datetime2', 'time', 'datetimeoffset') THEN c.scale WHEN c.type_name = 'datetime' THEN 3
           WHEN c.type_name IN ('date', 'smalldatetime') THEN 0 END AS DATETIME_PRECISION
    FROM __columns c JOIN __objects o ON o.object_id = c.object_id;
`;

/** A column's type as __columns stores it: the type itself, then what sys.columns shows of it. */
export function typeColumns(t: SqlType): [string, string, number, number, number, number, string | null] {
  const f = typeFacts(t);
  return [JSON.stringify(t), f.typeName, f.systemTypeId, f.maxLength, f.precision, f.scale, f.collation];
}

/** The rows of sys.types for the built-in types the sandbox knows. */
export const BUILT_IN_TYPES: SqlType[] = [
  { name: 'bit' },
  { name: 'tinyint' },
  { name: 'smallint' },
  { name: 'int' },
  { name: 'bigint' },
  { name: 'decimal', precision: 18, scale: 0 },
  { name: 'numeric', precision: 18, scale: 0 },
  { name: 'float' },
  { name: 'real' },
  { name: 'date' },
  { name: 'time', scale: 7 },
  { name: 'datetime2', scale: 7 },
  { name: 'datetimeoffset', scale: 7 },
  { name: 'datetime' },
  { name: 'char', length: 8000 },
  { name: 'varchar', length: 8000 },
  { name: 'nchar', length: 4000 },
  { name: 'nvarchar', length: 4000 },
  { name: 'binary', length: 8000 },
  { name: 'varbinary', length: 8000 },
  { name: 'uniqueidentifier' },
  { name: 'money' },
  { name: 'smallmoney' },
  { name: 'rowversion' },
  { name: 'xml' },
  { name: 'smalldatetime' },
  { name: 'text' },
  { name: 'ntext' },
  { name: 'image' },
  { name: 'sql_variant' },
  { name: 'hierarchyid' },
  { name: 'geometry' },
  { name: 'geography' },
];
