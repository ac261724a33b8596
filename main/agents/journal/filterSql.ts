// A row filter's pushed part in Db2 for i SQL (main/agents/filterPushdown.ts): numeric fields
// (packed, zoned, binary) compared, any field's nulls. Character fields are compared by the engine
// alone: the agent decodes them by its own CCSID tables, and a literal Db2 converts into the field's
// CCSID could compare otherwise than the decoded text does, losing a row.
import type { IbmiValue } from '../../../lib/ibmi/connection';
import type { PushdownDialect } from '../filterPushdown';
import type { FileLayout } from './layout';
import { fieldRead } from './memberReader';

/** Db2 for i's DECIMAL holds 63 digits. */
const MAX_PRECISION = 63;

/** The dialect over one statement: its values pushed to `params` in the order of the `?` places. */
export function db2Pushdown(layout: FileLayout, params: IbmiValue[]): PushdownDialect {
  const unused = (): string => {
    throw new Error('a Db2 for i filter compares numbers and nulls only');
  };
  return {
    column(name) {
      const f = layout.fields.find((x) => x.name === name);
      if (!f) return null;
      const kind = f.type.kind;
      const exact = kind === 'packed' || kind === 'zoned' || kind === 'binary';
      return { sql: fieldRead(f), kind: exact ? 'exact-number' : 'nulls-only' };
    },
    decimal(digits, precision, scale) {
      params.push(digits);
      return `CAST(? AS DECIMAL(${precision}, ${scale}))`;
    },
    text: unused,
    boolean: unused,
    maxPrecision: MAX_PRECISION,
  };
}
