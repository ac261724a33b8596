// Assembly of journal entries read in chunks: a commit cycle spanning two chunks is released whole once
// its C CM arrives, and the record images decoded for the first assembly are not decoded again.
import { describe, expect, it } from 'vitest';
import type { Change } from '../../../../main/agents/source';
import { assemble, type JournalEntryRow, type TableReading } from '../../../../main/agents/journal/assemble';
import { encodeRecord } from '../../../../lib/ibmi/recordEncode';
import type { FieldDef } from '../../../../lib/ibmi/recordImage';

const FIELDS: FieldDef[] = [
  { name: 'ID', type: { kind: 'binary', bytes: 4 } },
  { name: 'NAME', type: { kind: 'char', length: 6, ccsid: 37 } },
];
const reading: TableReading = {
  key: 'SHOP.T',
  library: 'SHOP',
  file: 'T',
  members: ['T'],
  memberKey: false,
  fields: FIELDS,
  identify: ['ID'],
  appliedThrough: null,
};
const form = { dateFormat: 'iso' as const, timeFormat: 'iso' as const, utcOffsetMinutes: null };
const order = (a: { sequence: number }, b: { sequence: number }) => a.sequence - b.sequence;

function entry(sequence: number, code: string, type: string, id?: number): JournalEntryRow {
  const image = id === undefined ? undefined : encodeRecord(FIELDS, { ID: BigInt(id), NAME: `n${id}` });
  return {
    sequence,
    code,
    type,
    timestamp: '2026-11-22 10:00:00.000000',
    library: code === 'R' ? 'SHOP' : '',
    file: code === 'R' ? 'T' : '',
    member: code === 'R' ? 'T' : '',
    rrn: id ?? 0,
    cycle: 1,
    receiverLibrary: 'SHOP',
    receiver: 'QSQJRN0001',
    nullIndicators: image?.nullIndicators ?? '',
    data: image?.image ?? new Uint8Array(0),
  };
}

describe('assemble over growing chunks', () => {
  it('holds an open cycle, releases it whole at C CM, and decodes each image once', () => {
    const decoded = new WeakMap<JournalEntryRow, Change[]>();
    const first = [entry(1, 'C', 'SC'), entry(2, 'R', 'PT', 7)];
    const open = assemble(first, [reading], 10, form, order, decoded);
    expect(open.changes).toEqual([]);
    expect(open.restart?.sequence).toBe(1);

    const all = [...first, entry(3, 'R', 'PT', 8), entry(4, 'C', 'CM')];
    const whole = assemble(all, [reading], 10, form, order, decoded);
    expect(whole.changes.map((c) => [c.op, c.key.ID])).toEqual([
      ['insert', 7],
      ['insert', 8],
    ]);
    // Assembled once more (the next chunk came), the same decoded changes are reused.
    const again = assemble(all, [reading], 10, form, order, decoded);
    expect(again.changes[0]).toBe(whole.changes[0]);
    expect(assemble(all, [reading], 10, form, order).changes[0]).not.toBe(whole.changes[0]);
  });
});
