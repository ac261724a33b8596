// A row filter's pushed part in T-SQL (main/agents/filterPushdown.ts): exact numbers and bits as they
// are, character columns as loose text (a collation may be case- or accent-insensitive), every value
// a parameter of the request.
import sql from 'mssql';
import type { PushdownDialect, PushedKind } from '../../filterPushdown';
import type { TableShape } from '../../source';
import { bracket } from './names';

const KINDS: Record<string, PushedKind> = {
  tinyint: 'exact-number',
  smallint: 'exact-number',
  int: 'exact-number',
  bigint: 'exact-number',
  decimal: 'exact-number',
  numeric: 'exact-number',
  money: 'exact-number',
  smallmoney: 'exact-number',
  bit: 'boolean',
  // Not text and ntext: `=` refuses them.
  char: 'loose-text',
  varchar: 'loose-text',
  nchar: 'loose-text',
  nvarchar: 'loose-text',
};

const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

/** SQL Server's decimal holds 38 digits. */
const MAX_PRECISION = 38;

/** The dialect over one request: its parameters are named `f0`, `f1`, …; columns through `alias`. */
export function mssqlPushdown(request: sql.Request, shape: TableShape, alias: string): PushdownDialect {
  let n = 0;
  const param = (type: sql.ISqlType | (() => sql.ISqlType), value: unknown) => {
    const name = `f${n++}`;
    request.input(name, type, value);
    return `@${name}`;
  };
  return {
    column(name) {
      const c = shape.columns.find((x) => x.name === name);
      if (!c) return null;
      // Any other column: whether it is null is the same to SQL Server as to the engine.
      const kind = KINDS[c.sourceType.toLowerCase().replace(/\s*\(.*$/, '')] ?? 'nulls-only';
      const column = `${alias}.${bracket(c.name)}`;
      return { sql: kind === 'loose-text' ? `RTRIM(${column})` : column, kind };
    },
    // A whole number within bigint goes as a bigint (SQL Server compares it with any exact type
    // exactly, and reads a bare parameter faster than a CAST); any other as an exact decimal.
    decimal: (digits, precision, scale) =>
      scale === 0 && BIGINT_MIN <= BigInt(digits) && BigInt(digits) <= BIGINT_MAX
        ? param(sql.BigInt, digits)
        : `CAST(${param(sql.VarChar(80), digits)} AS decimal(${precision}, ${scale}))`,
    text: (value) =>
      param(value.length > 4000 ? sql.NVarChar(sql.MAX) : sql.NVarChar(Math.max(1, value.length)), value),
    boolean: (value) => param(sql.Bit, value),
    maxPrecision: MAX_PRECISION,
  };
}
