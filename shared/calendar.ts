// The proleptic Gregorian calendar, as Db2 for i and SQL Server count dates.

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in month `month` (1–12) of `year`; 0 for a month that is none. */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : (MONTH_DAYS[month - 1] ?? 0);
