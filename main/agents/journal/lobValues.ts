// LOB values of journaled changes. A journal entry's record image holds only a placeholder for a CLOB,
// BLOB, DBCLOB or XML column (`*POINTER`: DSPJRN never gives the value; only RCVJRNE *TYPEPTR or
// QjoRetrieveJournalEntries give a pointer to it, and neither runs over SQL). So an insert's or update's
// LOB columns are read from the file by the row's key when the batch is applied: the target gets the
// value the row holds then. A row no longer there (deleted, or its key changed, since) is left out —
// its later delete or key change is in the journal and comes after. So the target passes through the
// row's newer LOB value early, never a wrong one at the end (docs/journal-agent.md, "LOB columns").
import { sqlIdentifier as qi, type IbmiValue } from '../../../lib/ibmi/connection';
import { keyCursor, tableKey, type Change, type RowValue } from '../source';
import { MEMBER_COLUMN, RRN_COLUMN } from './assemble';
import type { FileLayout } from './layout';
import { keyParam, keySql, type MemberReader } from './memberReader';
import { formValue, type ValueForm } from './values';

/** Keys per statement: one parameter per key column each, well inside a statement's limits. */
const KEYS_PER_READ = 200;

export async function withLobValues(
  members: MemberReader,
  layout: FileLayout,
  identify: string[] | 'rrn',
  form: ValueForm,
  changes: readonly Change[],
): Promise<Change[]> {
  const lobs = layout.fields.filter((f) => f.type.kind === 'lob');
  if (lobs.length === 0 || changes.length === 0) return [...changes];
  const keyNames = identify === 'rrn' ? [RRN_COLUMN] : identify;
  const keyFields = identify === 'rrn' ? [] : identify.map((k) => layout.fields.find((f) => f.name === k));
  const several = layout.members.length > 1;
  const found = new Map<string, Record<string, RowValue>>();
  const keyText = (member: RowValue, values: readonly RowValue[]) =>
    keyCursor(several ? [member, ...values] : values);
  const wanted = changes.filter((c) => c.row !== null);
  const byMember = new Map<string, Change[]>();
  for (const c of wanted) {
    const member = several ? String(c.key[MEMBER_COLUMN]) : (layout.members[0] ?? '');
    byMember.set(member, [...(byMember.get(member) ?? []), c]);
  }
  for (const [member, list] of byMember) {
    const [from] = await members.tables(layout, [member]);
    // Every item named by position (K0…, L0…): no field's name can shadow another's value.
    // A key column the copy reads as bytes (a forced CCSID, visual-order text) is matched as its bytes.
    const keyExpr = identify === 'rrn' ? ['RRN(T)'] : identify.map((k, i) => keySql(keyFields[i], k));
    const select = `SELECT ${keyExpr.map((e, i) => `${e} AS ${qi(`K${i}`)}`).join(', ')}, ${lobs.map((f, i) => `T.${qi(f.name)} AS ${qi(`L${i}`)}`).join(', ')} FROM ${from} T WHERE `;
    for (let at = 0; at < list.length; at += KEYS_PER_READ) {
      const chunk = list.slice(at, at + KEYS_PER_READ);
      const where =
        keyExpr.length === 1
          ? `${keyExpr[0]} IN (${chunk.map(() => '?').join(', ')})`
          : chunk.map(() => `(${keyExpr.map((e) => `${e} = ?`).join(' AND ')})`).join(' OR ');
      const params = chunk.flatMap((c) =>
        keyNames.map((k, i) =>
          identify === 'rrn' ? bindable(c.key[k] ?? null) : keyParam(keyFields[i], c.key[k] ?? null),
        ),
      );
      for (const r of await members.c.query(`${select}${where} WITH CS`, params)) {
        const key = keyNames.map((k, i) => {
          const f = keyFields[i];
          const v = r[`K${i}`] ?? null;
          return f ? formValue(f, v, form) : Number(v);
        });
        found.set(
          keyText(member, key),
          Object.fromEntries(lobs.map((f, i) => [f.name, formValue(f, r[`L${i}`] ?? null, form)])),
        );
      }
    }
  }
  return changes.flatMap((c) => {
    if (c.row === null) return [c];
    const member = several ? (c.key[MEMBER_COLUMN] ?? null) : null;
    const values = found.get(
      keyText(
        member,
        keyNames.map((k) => c.key[k] ?? null),
      ),
    );
    if (!values) return [];
    Object.assign(c.row, values);
    return [c];
  });
}

function bindable(v: RowValue): IbmiValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof Uint8Array) return v;
  if (v instanceof Date) return v.toISOString();
  return v ? 1 : 0;
}

/** The changes with the LOB columns of each file read from it; rows gone since left out. */
export async function withLobs(
  members: MemberReader,
  layouts: readonly FileLayout[],
  identify: (layout: FileLayout) => string[] | 'rrn',
  form: ValueForm,
  changes: Change[],
): Promise<Change[]> {
  const withLob = layouts.filter((l) => l.fields.some((f) => f.type.kind === 'lob'));
  if (withLob.length === 0) return changes;
  const kept = new Set(changes);
  for (const l of withLob) {
    const mine = changes.filter((c) => c.table === tableKey(l.ref));
    const filled = new Set(await withLobValues(members, l, identify(l), form, mine));
    for (const c of mine) if (!filled.has(c)) kept.delete(c);
  }
  return changes.filter((c) => kept.has(c));
}
