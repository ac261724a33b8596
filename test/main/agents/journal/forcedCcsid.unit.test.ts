// The rules of forceCcsid, field by field: a table-wide CCSID covers CHAR and VARCHAR (FOR BIT DATA
// included, and CCSIDs the agent has no table for), never BINARY or GRAPHIC; a per-column one also
// takes BINARY and VARBINARY; misfits are refused naming the table, the setting, the value and the rule.
import { describe, expect, it } from 'vitest';
import type { FieldDef, FieldType } from '../../../../lib/ibmi/recordImage';
import { forcedLayout, forcedText } from '../../../../main/agents/journal/forcedCcsid';
import type { FileLayout } from '../../../../main/agents/journal/layout';

const field = (name: string, type: FieldType): FieldDef => ({ name, type, nullable: true });

function layoutOf(fields: FieldDef[]): FileLayout {
  return {
    ref: { schema: 'SALES', table: 'CUST' },
    library: 'SALES',
    file: 'CUST',
    fields,
    columns: fields.map((f) => ({ name: f.name, sourceType: 'as tagged', nullable: true })),
    primaryKey: [],
    members: ['CUST'],
  };
}

const file = layoutOf([
  field('ID', { kind: 'binary', bytes: 4 }),
  field('NAME', { kind: 'hex', length: 10, forBitData: true }),
  field('NOTE', { kind: 'varhex', length: 40, forBitData: true }),
  field('RAW', { kind: 'hex', length: 4 }),
  field('CITY', { kind: 'char', length: 20, ccsid: 37 }),
  field('KANJI', { kind: 'graphic', length: 5, ccsid: 300 }),
  field('OLD', {
    kind: 'unsupported',
    sqlType: 'CHAR(8)',
    length: 8,
    reason: 'CCSID 9999 is not one the agent has a table for',
  }),
]);
const TABLE = 'SALES.CUST';
const typeOf = (l: FileLayout, name: string) => l.fields.find((f) => f.name === name)?.type;

describe('forceCcsid for a whole table', () => {
  const forced = forcedLayout(file, 273, TABLE);

  it('reads CHAR and VARCHAR as text in the CCSID, FOR BIT DATA and untabled CCSIDs included', () => {
    expect(typeOf(forced, 'NAME')).toEqual({ kind: 'char', length: 10, ccsid: 273 });
    expect(typeOf(forced, 'NOTE')).toEqual({ kind: 'varchar', length: 40, ccsid: 273 });
    expect(typeOf(forced, 'CITY')).toEqual({ kind: 'char', length: 20, ccsid: 273 });
    expect(typeOf(forced, 'OLD')).toEqual({ kind: 'char', length: 8, ccsid: 273 });
    expect(forced.fields.find((f) => f.name === 'OLD')?.taggedCcsid).toBe(9999);
    expect(forced.columns.find((c) => c.name === 'NAME')?.sourceType).toBe('CHAR(10)');
  });

  it('leaves BINARY, GRAPHIC and numbers as the file declares them', () => {
    for (const name of ['ID', 'RAW', 'KANJI'])
      expect(forced.fields.find((f) => f.name === name)).toBe(file.fields.find((f) => f.name === name));
    expect(forced.columns.find((c) => c.name === 'RAW')?.sourceType).toBe('as tagged');
  });

  it('says what was forced, for the checks and the story', () => {
    expect(forced.fields.map(forcedText).filter(Boolean)).toEqual([
      'NAME CHAR(10) CCSID 65535, read as CCSID 273',
      'NOTE VARCHAR(40) CCSID 65535, read as CCSID 273',
      'CITY CHAR(20) CCSID 37, read as CCSID 273',
      'OLD CHAR(8) CCSID 9999, read as CCSID 273',
    ]);
  });

  it('is made once per layout and value, so decoders compiled for it are reused', () => {
    expect(forcedLayout(file, 273, TABLE)).toBe(forced);
    expect(forcedLayout(file, 500, TABLE)).not.toBe(forced);
    expect(forcedLayout(file, undefined, TABLE)).toBe(file);
  });

  it('is refused when nothing in the file would change', () => {
    const numbers = layoutOf([
      field('ID', { kind: 'binary', bytes: 4 }),
      field('RAW', { kind: 'hex', length: 4 }),
    ]);
    expect(() => forcedLayout(numbers, 273, TABLE)).toThrow(
      'SALES.CUST forceCcsid = 273: the file has no CHAR or VARCHAR column it would change (ID INTEGER, RAW BINARY(4)).',
    );
  });
});

describe('forceCcsid per column', () => {
  it('takes BINARY as text when named, and leaves the other columns alone', () => {
    const forced = forcedLayout(file, { raw: 1141 }, TABLE);
    expect(typeOf(forced, 'RAW')).toEqual({ kind: 'char', length: 4, ccsid: 1141 });
    expect(typeOf(forced, 'NAME')).toEqual(file.fields[1]?.type);
  });

  it.each([
    [
      { KANJI: 273 },
      'SALES.CUST forceCcsid.KANJI = 273: KANJI is GRAPHIC(5) CCSID 300; a CCSID is forced on CHAR, VARCHAR',
    ],
    [{ ID: 273 }, 'SALES.CUST forceCcsid.ID = 273: ID is INTEGER; a CCSID is forced on CHAR, VARCHAR'],
    [
      { CITY: 37 },
      'SALES.CUST forceCcsid.CITY = 37: CITY is already tagged CCSID 37; leave it out of forceCcsid.',
    ],
    [{ NAME: 4242 }, 'SALES.CUST forceCcsid.NAME = 4242: the agent has no table for CCSID 4242'],
    [{ NAME: 300 }, 'SALES.CUST forceCcsid.NAME = 300: CCSID 300 is a double-byte or UTF-16 CCSID'],
    [
      { NAME: 273, ZIP: 273 },
      'SALES.CUST forceCcsid names columns the file does not have: ZIP (it has ID, NAME, NOTE, RAW, CITY, KANJI, OLD).',
    ],
  ])('refuses %j', (force, message) => {
    expect(() => forcedLayout(file, force, TABLE)).toThrow(message);
  });

  it('refuses a table-wide CCSID the agent has no table for', () => {
    expect(() => forcedLayout(file, 4242, TABLE)).toThrow(
      'SALES.CUST forceCcsid = 4242: the agent has no table for CCSID 4242',
    );
  });
});
