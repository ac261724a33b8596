// Row-for-row comparison of a source table and its replica: every column of every row in one
// canonical text form per type, sorted, and a SHA-256 over all of it (the checksum).
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import pg from 'pg';
import type { ColumnShape, TableShape } from '../../main/agents/source';
import { affinityOf } from '../../main/agents/targetValues';
import { qualified } from '../../main/agents/drivers/mssql/names';
import type { IbmiConnection } from '../../lib/ibmi/connection';

const scaleOf = (c: ColumnShape) => Number(/,\s*(\d+)\)/.exec(c.sourceType)?.[1] ?? '0');

/**
 * A decimal at its scale, digit for digit: through a JavaScript number a decimal(18,4) such as
 * 12345678901234.5678 would come back as …5684, and a replica that lost digits would compare equal.
 */
function decimalText(v: unknown, scale: number): string {
  const text = typeof v === 'number' ? String(v) : String(v as string | bigint);
  if (/e/i.test(text)) return Number(text).toFixed(scale);
  const [whole = '0', fraction = ''] = text.split('.');
  return scale > 0 ? `${whole}.${fraction.padEnd(scale, '0').slice(0, scale)}` : whole;
}

/** One value as text, at the precision the target keeps (`fractionDigits` of times). */
function canonical(c: ColumnShape, v: unknown, fractionDigits: number): string {
  if (v === null || v === undefined) return '∅';
  switch (affinityOf(c)) {
    case 'decimal':
      return decimalText(v, scaleOf(c));
    case 'boolean':
      return v === true || v === 1 || v === 1n || v === '1' || v === 't' || v === 'true' ? '1' : '0';
    case 'integer':
      return String(BigInt(v as string | number | bigint));
    case 'float':
      return Number(v).toPrecision(7);
    case 'binary':
      return Buffer.from(v as Uint8Array).toString('hex');
    case 'uuid':
      return String(v).toLowerCase();
    case 'datetime':
    case 'time': {
      const text = String(v).replace('T', ' ');
      const [whole = '', fraction = ''] = text.split('.');
      return `${whole}.${fraction.padEnd(7, '0').slice(0, fractionDigits)}`;
    }
    default:
      return String(v);
  }
}

export interface Replica {
  rows: string[];
  checksum: string;
}

function replica(shape: TableShape, rows: Record<string, unknown>[], fractionDigits: number): Replica {
  const lines = rows
    .map((r) => shape.columns.map((c) => canonical(c, r[c.name], fractionDigits)).join('|'))
    .sort();
  return { rows: lines, checksum: createHash('sha256').update(lines.join('\n')).digest('hex') };
}

export async function sourceReplica(pool: sql.ConnectionPool, shape: TableShape, fractionDigits = 7) {
  const { recordset } = await pool
    .request()
    .query(`SELECT ${shape.columns.map((c) => `[${c.name}]`).join(', ')} FROM ${qualified(shape.ref)}`);
  return replica(
    shape,
    recordset.map((r: Record<string, unknown>) =>
      Object.fromEntries(shape.columns.map((c) => [c.name, driverText(c, r[c.name] ?? null)])),
    ),
    fractionDigits,
  );
}

/**
 * The driver's value as text, computed here rather than by the runner's own conversion: a Date in
 * UTC with the 100-ns digits tedious keeps beside it.
 */
function driverText(c: ColumnShape, v: unknown): unknown {
  if (!(v instanceof Date)) return v;
  const iso = v.toISOString();
  const extra = Math.round(((v as Date & { nanosecondsDelta?: number }).nanosecondsDelta ?? 0) * 1e7);
  const full = `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(extra).padStart(4, '0')}`;
  if (affinityOf(c) === 'date') return full.slice(0, 10);
  if (affinityOf(c) === 'time') return full.slice(11);
  return full;
}

/**
 * The IBM i table as its SQL answers it (RRN(T) AS RRN when the shape has one), canonical as a
 * replica; a file of several members (a MEMBER column) read member by member through an alias in QGPL.
 */
export async function ibmiReplica(c: IbmiConnection, shape: TableShape, fractionDigits = 6) {
  const { schema, table } = shape.ref;
  const fields = shape.columns.filter((col) => col.name !== 'MEMBER');
  const columns = fields.map((col) => (col.name === 'RRN' ? 'RRN(T) AS RRN' : `T.${col.name}`));
  if (fields.length === shape.columns.length) {
    const rows = await c.query(`SELECT ${columns.join(', ')} FROM ${schema}.${table} T`);
    return replica(shape, rows, fractionDigits);
  }
  const members = await c.query(
    'SELECT SYSTEM_TABLE_MEMBER FROM QSYS2.SYSPARTITIONSTAT WHERE SYSTEM_TABLE_SCHEMA = ? AND SYSTEM_TABLE_NAME = ?',
    [schema, table],
  );
  const rows: Record<string, unknown>[] = [];
  for (const [i, m] of members.entries()) {
    const member = String(m.SYSTEM_TABLE_MEMBER);
    const alias = `QGPL.R${table.slice(0, 7)}${i}`;
    await c.query(`DROP ALIAS ${alias}`).catch(() => undefined);
    await c.query(`CREATE ALIAS ${alias} FOR ${schema}.${table}(${member})`);
    for (const r of await c.query(`SELECT ${columns.join(', ')} FROM ${alias} T`))
      rows.push({ ...r, MEMBER: member });
  }
  return replica(shape, rows, fractionDigits);
}

export function sqliteReplica(path: string, table: string, shape: TableShape): Replica {
  const db = new Database(path, { readonly: true });
  try {
    // Integers as bigints: past 2^53 a number would round, and the comparison with it.
    const rows = db.prepare(`SELECT * FROM "${table}"`).safeIntegers(true).all() as Record<string, unknown>[];
    return replica(shape, rows, 7);
  } finally {
    db.close();
  }
}

export async function postgresReplica(client: pg.Client, schema: string, table: string, shape: TableShape) {
  const columns = shape.columns.map((c) =>
    affinityOf(c) === 'binary' ? `"${c.name}"` : `"${c.name}"::text AS "${c.name}"`,
  );
  const { rows } = await client.query(`SELECT ${columns.join(', ')} FROM "${schema}"."${table}"`);
  return replica(shape, rows as Record<string, unknown>[], 6);
}

/** Several tables, one after the other: a pg.Client runs one query at a time. */
export async function postgresReplicas(
  client: pg.Client,
  schema: string,
  tables: readonly (readonly [string, TableShape])[],
): Promise<Replica[]> {
  const out: Replica[] = [];
  for (const [table, shape] of tables) out.push(await postgresReplica(client, schema, table, shape));
  return out;
}

/** The run's PostgreSQL: the machine's, or the one test/setup/postgres.ts started when none answered. */
export const POSTGRES = {
  host: '127.0.0.1',
  port: Number(process.env.CDC_TEST_PGPORT ?? 5432),
  database: 'test',
  user: process.env.PGUSER ?? 'postgres',
};

export async function postgresClient(): Promise<pg.Client> {
  const client = new pg.Client(POSTGRES);
  await client.connect();
  return client;
}

/** A client with `schema` dropped (a test's own place at the target), and the drop again at the end. */
export async function scratchSchema(schema: string): Promise<{ client: pg.Client; drop(): Promise<void> }> {
  const client = await postgresClient();
  const dropSchema = () => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await dropSchema();
  return {
    client,
    drop: async () => {
      await dropSchema();
      await client.end();
    },
  };
}
