// CSV files the app writes (kept-aside rows, verify's differences), as RFC 4180 writes them, and safe
// to open in a spreadsheet: a cell that a spreadsheet would run as a formula (=, +, -, @, a tab or a
// carriage return first, or their full-width forms) is written as text, behind a single quote, as
// OWASP's "CSV Injection" page recommends. Source data and names can be anyone's.

/** Characters that make a spreadsheet read a cell as a formula when they come first. */
const FORMULA_LEAD = /^[=+\-@\t\r＝＋－＠]/;
/** A plain number runs nothing, and stays as it is (a negative key must read as a number). */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** One cell: neutralised when it could run as a formula, quoted when it holds a comma, a quote or a line break. */
export function csvCell(text: string): string {
  const safe = FORMULA_LEAD.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A header line, then one line per row, each ended by CRLF. */
export function csvText(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((cells) => cells.map(csvCell).join(',') + '\r\n').join('');
}
