// The largest value of some columns now, as Db2 for i stores it: MAX(LENGTH(column)) over every member
// read, in bytes (LENGTH counts a graphic string's double-byte characters: twice that many bytes). An
// XML column has no LENGTH (Db2 refuses it): it is left unmeasured.
import { sqlIdentifier as qi } from '../../../lib/ibmi/connection';
import type { LargestValue } from '../spi';
import type { FileLayout } from './layout';
import type { MemberReader } from './memberReader';

export async function largestMemberValues(
  members: MemberReader,
  layout: FileLayout,
  read: readonly string[],
  columns: readonly string[],
): Promise<LargestValue[]> {
  const fields = columns.flatMap((name) => {
    const field = layout.fields.find((f) => f.name === name);
    return field && !(field.type.kind === 'lob' && field.type.lob === 'XML') ? [field] : [];
  });
  if (fields.length === 0) return [];
  const largest: (number | null)[] = fields.map(() => null);
  const list = fields.map((f, i) => `MAX(LENGTH(T.${qi(f.name)})) AS ${qi(`V${i}`)}`).join(', ');
  for (const from of await members.tables(layout, read)) {
    const [row] = await members.c.query(`SELECT ${list} FROM ${from} T`);
    fields.forEach((_, i) => {
      const value = row?.[`V${i}`];
      if (value === null || value === undefined) return;
      largest[i] = Math.max(largest[i] ?? 0, Number(value));
    });
  }
  return fields.map((f, i) => {
    const units = largest[i] ?? null;
    const graphic = f.type.kind === 'lob' ? f.type.lob === 'DBCLOB' : /graphic/.test(f.type.kind);
    return { ref: layout.ref, column: f.name, bytes: units === null ? null : graphic ? units * 2 : units };
  });
}
