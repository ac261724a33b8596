// A CCSID override as a DBA types it in the picker: one CCSID, or COLUMN=CCSID pairs; anything else
// refused with the text and the rule, and shown back as it was typed once saved.
import { describe, expect, it } from 'vitest';
import { forceCcsidInput, forcedCcsidText, parseForceCcsid, textOrderText } from '../../shared/ccsidOverride';

describe('a typed CCSID override', () => {
  it.each([
    ['', undefined],
    ['  273 ', 273],
    ['NAME=273', { NAME: 273 }],
    ['NAME = 273, RAW=1141', { NAME: 273, RAW: 1141 }],
  ])('%j reads as %j', (typed, value) => {
    expect(parseForceCcsid(typed)).toEqual({ value });
  });

  it.each([
    ['65535', '"65535" is not a CCSID from 1 to 65534'],
    ['0', '"0" is not a CCSID from 1 to 65534'],
    ['273x', '"273x" is not a CCSID from 1 to 65534'],
    ['NAME=273, RAW', '"RAW" is not COLUMN=CCSID; the override takes a CCSID from 1 to 65534'],
    ['NAME=2.5', '"NAME=2.5" is not COLUMN=CCSID'],
    ['=273', '"=273" is not COLUMN=CCSID'],
    ['NAME=273, name=37', 'name is named twice'],
  ])('%j is refused', (typed, problem) => {
    const parsed = parseForceCcsid(typed);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });

  it('is shown back as typed, and in words for the story', () => {
    expect(forceCcsidInput({ NAME: 273, RAW: 1141 })).toBe('NAME=273, RAW=1141');
    expect(forceCcsidInput(500)).toBe('500');
    expect(forcedCcsidText(273)).toBe(
      "Text: every CHAR and VARCHAR column (FOR BIT DATA included) is read as CCSID 273, over the file's tags.",
    );
    expect(forcedCcsidText({ NAME: 273 })).toBe("Text: read over the file's tags, NAME as CCSID 273.");
    expect(forcedCcsidText(null)).toBeNull();
  });
});

describe('a text order in words', () => {
  it('says the order per file or per column, and nothing where the source decides', () => {
    expect(textOrderText('stored')).toBe(
      'Arabic and Hebrew text (CCSID 420, 424): in the order the bytes hold them (visual).',
    );
    expect(textOrderText({ NOTE: 'stored', NAME: 'logical' })).toBe(
      'Arabic and Hebrew text (CCSID 420, 424): NOTE in the order the bytes hold them (visual), NAME in logical order; other columns as the source says.',
    );
    expect(textOrderText(null)).toBeNull();
  });
});
