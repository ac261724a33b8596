// The largest value of some columns now, as SQL Server stores it: MAX(DATALENGTH(column)), one scan
// per table (DATALENGTH counts bytes: two per UTF-16 unit for nvarchar, the code page's for varchar).
import type sql from 'mssql';
import type { ColumnsOf, LargestValue } from '../../spi';
import { bracket, qualified } from './names';

export async function largestValues(
  pool: sql.ConnectionPool,
  asked: readonly ColumnsOf[],
): Promise<LargestValue[]> {
  const found: LargestValue[] = [];
  for (const { ref, columns } of asked) {
    // Each column named by position: a column's name cannot collide with another's alias.
    const list = columns.map((c, i) => `MAX(DATALENGTH(${bracket(c)})) AS [v${i}]`).join(', ');
    const result = await pool
      .request()
      .query<Record<string, number | null>>(`SELECT ${list} FROM ${qualified(ref)}`);
    const row = result.recordset[0] ?? {};
    columns.forEach((column, i) => {
      const value = row[`v${i}`];
      found.push({ ref, column, bytes: value === null || value === undefined ? null : Number(value) });
    });
  }
  return found;
}
