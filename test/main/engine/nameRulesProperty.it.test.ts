// A property: for any two entity target names (case, dots, brackets, quotes, long names, Unicode), the
// engine accepts them together exactly when the target database keeps them as two tables. The
// databases answer for themselves: both tables are created in a scratch SQLite file and in a real
// PostgreSQL schema, and a second CREATE TABLE that meets the first is the collision.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../main/client/engineClient';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { POSTGRES, scratchSchema } from '../../helpers/replica';

const SCHEMA = `cdc_name_property_${process.pid}`;
let e: RunningEngine;
let client: pg.Client;
let drop: () => Promise<void>;

beforeAll(async () => {
  e = await startTestEngine();
  ({ client, drop } = await scratchSchema(SCHEMA));
  await client.query(`CREATE SCHEMA "${SCHEMA}"`);
  for (const [id, target] of [
    ['to-sqlite', null],
    ['to-postgres', 'postgresql'],
  ] as const) {
    await e.client.createPipeline({}, { id, name: id });
    await e.client.createAgent({ pipelineId: id }, { id: 'src', type: 'change-tracking', role: 'source' });
    if (!target) continue;
    await e.client.createAgent({ pipelineId: id }, { id: 'dst', type: target, role: 'target' });
    await e.client.putCredentials(
      { pipelineId: id, agentId: 'dst' },
      {
        hostCredentials: {
          connectionName: 'pg',
          host: '127.0.0.1',
          port: POSTGRES.port,
          databaseName: 'test',
          username: 'postgres',
          password: 'unused-with-trust',
        },
      },
    );
    await e.client.putSpecific({ pipelineId: id, agentId: 'dst' }, { configuration: { schema: SCHEMA } });
  }
});
afterAll(async () => {
  await drop?.();
  await client?.end();
  await e?.stop();
});

/** Names a DBA might give: look-alikes in case, dots, brackets, quotes, accents, emoji, long ones. */
const part = fc.constantFrom(
  'a',
  'A',
  'é',
  'É',
  'ß',
  'SS',
  '.',
  '[',
  ']',
  '"',
  ' ',
  '_',
  'x',
  'İ',
  'ı',
  '😀',
  'ǅ',
);
const names = fc.oneof(
  fc.array(part, { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
  fc
    .tuple(
      fc.constantFrom('x'.repeat(60), 'é'.repeat(31), 'Long_Table_'.repeat(6)),
      fc.array(part, { maxLength: 4 }),
    )
    .map(([stem, tail]) => stem + tail.join('')),
);
const pairs = fc.oneof(
  fc.tuple(names, names),
  // Case variants of one name, the look-alike most DBAs meet.
  names.map((n) => [n, n.toUpperCase()] as [string, string]),
  names.map((n) => [n, n.toLowerCase()] as [string, string]),
);

const accepted = async (pipelineId: string, a: string, b: string) =>
  e.client
    .putEntities({ pipelineId }, {
      entities: [
        { source: { schema: 'dbo', table: 'A' }, target: { table: a } },
        { source: { schema: 'dbo', table: 'B' }, target: { table: b } },
      ],
    } as never)
    .then(
      () => true,
      (error: unknown) => {
        if (error instanceof EngineError && error.status === 422) return false;
        throw error;
      },
    );

const quoted = (n: string) => `"${n.replaceAll('"', '""')}"`;

/** Whether SQLite keeps the two as two tables. */
function sqliteKeepsApart(a: string, b: string): boolean {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE TABLE ${quoted(a)} (x INTEGER)`);
    db.exec(`CREATE TABLE ${quoted(b)} (x INTEGER)`);
    return true;
  } catch (error) {
    if (/already exists/.test(String(error))) return false;
    throw error;
  } finally {
    db.close();
  }
}

/** Whether PostgreSQL keeps the two as two tables (tried in a transaction, rolled back). */
async function postgresKeepsApart(a: string, b: string): Promise<boolean> {
  await client.query('BEGIN');
  try {
    await client.query(`CREATE TABLE ${quoted(SCHEMA)}.${quoted(a)} (x int)`);
    await client.query(`CREATE TABLE ${quoted(SCHEMA)}.${quoted(b)} (x int)`);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '42P07') return false;
    throw error;
  } finally {
    await client.query('ROLLBACK');
  }
}

describe('any two entity names', () => {
  it('are accepted for a SQLite target exactly when SQLite keeps them as two tables', async () => {
    await fc.assert(
      fc.asyncProperty(pairs, async ([a, b]) => {
        expect(await accepted('to-sqlite', a, b)).toBe(sqliteKeepsApart(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('are accepted for a PostgreSQL target exactly when PostgreSQL keeps them as two tables', async () => {
    await fc.assert(
      fc.asyncProperty(pairs, async ([a, b]) => {
        expect(await accepted('to-postgres', a, b)).toBe(await postgresKeepsApart(a, b));
      }),
      { numRuns: 300 },
    );
  });
});
