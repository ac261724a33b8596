// COPY of a batch's rows (main/agents/postgresql/copy.ts) on the machine's PostgreSQL: the text written
// ahead in several writes arrives exactly, and a COPY that fails part-way (a duplicate key at the
// server, a value the engine cannot write) reports its error and leaves the connection usable for the
// rollback that follows.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { copyLineOf, copyRows, type CopyLine } from '../../../../main/agents/postgresql/copy';
import { scratchSchema } from '../../../helpers/replica';

const SCHEMA = 'copy_rows_test';
const TABLE = `"${SCHEMA}"."t"`;
const COLUMNS = ['"id"', '"txt"'];
type Line = { id: number; txt: string | null };
const same = (v: unknown) => v;
const line = copyLineOf<unknown>(['id', 'txt'], [same, same], null);

let scratch: Awaited<ReturnType<typeof scratchSchema>>;
beforeAll(async () => {
  scratch = await scratchSchema(SCHEMA);
});
afterAll(async () => {
  await scratch.drop();
});
beforeEach(async () => {
  await scratch.client.query(`CREATE SCHEMA IF NOT EXISTS "${SCHEMA}"`);
  await scratch.client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await scratch.client.query(`CREATE TABLE ${TABLE} (id integer PRIMARY KEY, txt text)`);
});

const count = async () =>
  Number((await scratch.client.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE}`)).rows[0]?.n);

describe('copyRows', () => {
  it('writes every row exactly, escapes and nulls included, across many writes', async () => {
    const odd = ['tab\there', 'new\nline', 'back\\slash', 'cr\rx', '\\N', 'ünï 漢字 😀', '', null];
    const rows: Line[] = Array.from({ length: 3500 }, (_, i) => ({
      id: i,
      txt: odd[i % odd.length] ?? null,
    }));
    await copyRows(scratch.client, TABLE, COLUMNS, rows, line);
    const back = await scratch.client.query<Line>(`SELECT id, txt FROM ${TABLE} ORDER BY id`);
    expect(back.rows).toEqual(rows);
  });

  it('writes numbers, booleans, bytes and times exactly, and a value larger than a block', async () => {
    await scratch.client.query(
      `CREATE TABLE "${SCHEMA}".v (id integer PRIMARY KEY, n double precision, k bigint, b boolean, x bytea, at timestamptz, t text)`,
    );
    // Past 2^53 a bigint, not a number; a text of 300 KiB of UTF-8, escapes across its whole length.
    const long = 'ä\tab\t😀'.repeat(30_000);
    const rows = [
      {
        id: -2147483648,
        n: -0.5,
        k: 9007199254740993n,
        b: true,
        x: new Uint8Array([0, 92, 255]),
        at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
        t: long,
      },
      { id: 0, n: 1e21, k: -9007199254740991, b: false, x: new Uint8Array([]), at: null, t: '' },
      { id: 2147483647, n: Number.NaN, k: 0, b: null, x: null, at: null, t: 'x' },
      { id: 7, n: Number.NEGATIVE_INFINITY, k: 10, b: null, x: null, at: null, t: null },
    ];
    const names = ['id', 'n', 'k', 'b', 'x', 'at', 't'];
    const write = copyLineOf<unknown>(
      names,
      names.map(() => same),
      null,
    );
    await copyRows(
      scratch.client,
      `"${SCHEMA}".v`,
      names.map((n) => `"${n}"`),
      rows,
      write,
    );
    const back = await scratch.client.query(
      `SELECT id, n::text AS n, k::text AS k, b, encode(x, 'hex') AS x, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS at, t FROM "${SCHEMA}".v ORDER BY id`,
    );
    expect(back.rows).toEqual([
      {
        id: -2147483648,
        n: '-0.5',
        k: '9007199254740993',
        b: true,
        x: '005cff',
        at: '2026-01-02 03:04:05.678',
        t: long,
      },
      { id: 0, n: '1e+21', k: '-9007199254740991', b: false, x: '', at: null, t: '' },
      { id: 7, n: '-Infinity', k: '10', b: null, x: null, at: null, t: null },
      { id: 2147483647, n: 'NaN', k: '0', b: null, x: null, at: null, t: 'x' },
    ]);
  });

  it('reports a duplicate key found part-way and leaves the connection to roll back', async () => {
    // Early in a long batch: the server refuses while rows are still being written.
    const rows: Line[] = Array.from({ length: 200_000 }, (_, i) => ({
      id: i === 1800 ? 7 : i,
      txt: `r${i}`,
    }));
    await scratch.client.query('BEGIN');
    await scratch.client.query('SAVEPOINT s');
    await expect(copyRows(scratch.client, TABLE, COLUMNS, rows, line)).rejects.toMatchObject({
      code: '23505',
    });
    await scratch.client.query('ROLLBACK TO SAVEPOINT s');
    await scratch.client.query(`INSERT INTO ${TABLE} VALUES (1, 'after')`);
    await scratch.client.query('COMMIT');
    expect(await count()).toBe(1);
  });

  it('fails the COPY when a row cannot be written, and the connection answers afterwards', async () => {
    const rows: Line[] = Array.from({ length: 2500 }, (_, i) => ({ id: i, txt: `r${i}` }));
    const refusing: CopyLine<Line> = (r, out) => {
      if (r.id === 2100) throw new TypeError('row 2100 cannot be written');
      line(r, out);
    };
    await scratch.client.query('BEGIN');
    await expect(copyRows(scratch.client, TABLE, COLUMNS, rows, refusing)).rejects.toThrow(
      'row 2100 cannot be written',
    );
    await scratch.client.query('ROLLBACK');
    expect(await count()).toBe(0);
  });
});
