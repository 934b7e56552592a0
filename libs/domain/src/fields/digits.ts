/** Arithmetic on dates written in digits: no regular expression, substring or array per value on the hot paths. */

/** The number the ASCII digits of `text` from `from` to `to` (excluded) write, or -1 when one of them is not 0-9. */
export function digitsValue(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Days in a month (1-12) of a year of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A day of the proleptic Gregorian calendar. */
export interface CalendarDay {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

/** The day before, across months and years. */
export const dayBefore = (year: number, month: number, day: number): CalendarDay =>
  day > 1
    ? { year, month, day: day - 1 }
    : month > 1
      ? { year, month: month - 1, day: daysInMonth(year, month - 1) }
      : { year: year - 1, month: 12, day: 31 };

/** The day after, across months and years. */
export const dayAfter = (year: number, month: number, day: number): CalendarDay =>
  day < daysInMonth(year, month)
    ? { year, month, day: day + 1 }
    : month < 12
      ? { year, month: month + 1, day: 1 }
      : { year: year + 1, month: 1, day: 1 };
