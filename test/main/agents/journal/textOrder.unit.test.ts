// Which fields the journal agent reads into logical order: CHAR and VARCHAR in 420 and 424, by the
// source's textOrder and an entity's over it; a column the entity names that cannot hold such text is
// refused before anything is read.
import { describe, expect, it } from 'vitest';
import type { FieldDef } from '../../../../lib/ibmi/recordImage';
import type { FileLayout } from '../../../../main/agents/journal/layout';
import { orderedLayout } from '../../../../main/agents/journal/textOrder';

const field = (name: string, type: FieldDef['type']): FieldDef => ({ name, type });
const layout = {
  ref: { schema: 'SHOP', table: 'NOTES' },
  library: 'SHOP',
  file: 'NOTES',
  fields: [
    field('ID', { kind: 'binary', bytes: 4, scale: 0 }),
    field('HE', { kind: 'varchar', length: 30, ccsid: 424 }),
    field('AR', { kind: 'char', length: 20, ccsid: 420 }),
    field('EN', { kind: 'char', length: 20, ccsid: 37 }),
  ],
  columns: [],
} as unknown as FileLayout;
const logical = (l: FileLayout) => l.fields.filter((f) => f.logicalOrder).map((f) => f.name);

describe('text order', () => {
  it('reads 420 and 424 text in logical order by default, nothing else', () => {
    expect(logical(orderedLayout(layout, 'logical', undefined, 'SHOP.NOTES'))).toEqual(['HE', 'AR']);
  });

  it('keeps the stored order by the setting, the entity, or per column over either', () => {
    expect(logical(orderedLayout(layout, 'stored', undefined, 'SHOP.NOTES'))).toEqual([]);
    expect(logical(orderedLayout(layout, 'logical', 'stored', 'SHOP.NOTES'))).toEqual([]);
    expect(logical(orderedLayout(layout, 'logical', { ar: 'stored' }, 'SHOP.NOTES'))).toEqual(['HE']);
    expect(logical(orderedLayout(layout, 'stored', { HE: 'logical' }, 'SHOP.NOTES'))).toEqual(['HE']);
  });

  it('leaves a layout without such text as it is', () => {
    const plain = { ...layout, fields: layout.fields.filter((f) => f.name === 'EN') };
    expect(orderedLayout(plain, 'logical', undefined, 'SHOP.NOTES')).toBe(plain);
  });

  it('refuses a column the file lacks or that holds no 420 or 424 text, naming it', () => {
    expect(() => orderedLayout(layout, 'logical', { EN: 'stored', NOPE: 'stored' }, 'SHOP.NOTES')).toThrow(
      'SHOP.NOTES textOrder: EN holds no CCSID 420 or 424 text; NOPE is not a column of the file. Name the CHAR and VARCHAR columns tagged (or forced) 420 or 424.',
    );
  });
});
