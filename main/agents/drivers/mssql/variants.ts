// sql_variant columns, read with their base type: the driver would decode a variant into a JavaScript
// value by its base type and lose what a decimal, money or datetime2 holds past a double or a Date,
// and the base type itself. So the agent reads the value as exact text, converted at SQL Server by
// its base type (float with style 3, 17 digits; money with four places; binary as 0x…), beside the
// base type's properties, and hands on one JSON text: {"baseType":"decimal(10,2)","value":"12.50"}.

const PROPERTIES = { base: 'BaseType', precision: 'Precision', scale: 'Scale', length: 'MaxLength' } as const;
type Property = keyof typeof PROPERTIES;

/** The alias a property of a variant column is read as, beside the column's own alias. */
const propertyAlias = (as: string, p: Property) => `${as}#${p}`;

/** The select-list items of a variant column `name` (already qualified and bracketed), read as `as`. */
export function variantSelect(name: string, as: string, bracket: (s: string) => string): string {
  const base = `CONVERT(sysname, SQL_VARIANT_PROPERTY(${name}, 'BaseType'))`;
  const text = (type: string, style: number) =>
    `CONVERT(nvarchar(4000), CONVERT(${type}, ${name}), ${style})`;
  const value = `CASE ${base}
      WHEN 'float' THEN ${text('float', 3)} WHEN 'real' THEN ${text('real', 3)}
      WHEN 'money' THEN ${text('money', 2)} WHEN 'smallmoney' THEN ${text('smallmoney', 2)}
      WHEN 'datetime' THEN ${text('datetime', 121)} WHEN 'smalldatetime' THEN ${text('smalldatetime', 120)}
      WHEN 'datetimeoffset' THEN ${text('datetimeoffset(7)', 127)}
      WHEN 'binary' THEN ${text('varbinary(8000)', 1)} WHEN 'varbinary' THEN ${text('varbinary(8000)', 1)}
      ELSE CONVERT(nvarchar(4000), ${name}) END`;
  const properties = (Object.keys(PROPERTIES) as Property[]).map(
    (p) =>
      `${p === 'base' ? base : `CONVERT(int, SQL_VARIANT_PROPERTY(${name}, '${PROPERTIES[p]}'))`} AS ${bracket(propertyAlias(as, p))}`,
  );
  return [`${value} AS ${bracket(as)}`, ...properties].join(', ');
}

/** The select items variantSelect gives a column: its value, then its four properties. */
export const VARIANT_WIDTH = 1 + Object.keys(PROPERTIES).length;

/** The base type as T-SQL writes it: decimal(10,2), nvarchar(20), datetime2(7), int. */
function baseTypeText(base: string, precision: number, scale: number, length: number): string {
  if (base === 'decimal' || base === 'numeric') return `${base}(${precision},${scale})`;
  if (base === 'nchar' || base === 'nvarchar') return `${base}(${length / 2})`;
  if (['char', 'varchar', 'binary', 'varbinary'].includes(base)) return `${base}(${length})`;
  if (base === 'datetime2' || base === 'time' || base === 'datetimeoffset') return `${base}(${scale})`;
  return base;
}

/**
 * One variant value as the JSON text targets keep, from a row read by position (the value at `at`,
 * then the properties in PROPERTIES' order); null for SQL's NULL.
 */
export function foldVariant(values: readonly unknown[], at: number): string | null {
  const [value, base, precision, scale, length] = values.slice(at, at + VARIANT_WIDTH);
  if (base === null || base === undefined || value === null || value === undefined) return null;
  const name = String(base).toLowerCase();
  // Style 3 shows a float in 17 digits; its shortest form reads back as the same double.
  const text = name === 'float' || name === 'real' ? String(Number(value)) : String(value);
  return JSON.stringify({
    baseType: baseTypeText(name, Number(precision ?? 0), Number(scale ?? 0), Number(length ?? 0)),
    value: text,
  });
}
