/**
 * ISO 8601 dates and date-times read without date-fns's `parseISO`, as a field without a pattern
 * reads them. `parseISO` cost about 3 µs a value (it builds a regular expression for the year on
 * every call and answers a UTCDate, a Date subclass); a column of date-times such as
 * `2024-03-04T10:00:00Z` paid that on every check, count, validator and rewrite. This reads the
 * same parts in a fraction of it: one regular expression, arithmetic on whole seconds, and a Date
 * only for a fraction of a second, where parseISO's sum in milliseconds decides the second.
 *
 * Every rule mirrors date-fns 4's `parseISO(text, { in: utc })` on the texts `ISO_DATE_TIME`
 * lets through (its validations, its arithmetic in milliseconds, the truncation of a fraction of
 * a millisecond); iso-date.property.spec.ts checks the two agree.
 */

import { daysInMonth } from './digits';
import { inUtc, partsOfDate, type DateParts } from './date-pattern';

/**
 * What "ISO 8601" means for a field without a pattern: a calendar date in full (`2024-03-04`, or `20240304`), with a
 * time and a zone if any (`2024-03-04T10:00`, `…:00.5Z`, `… 10:00+02:00`). date-fns's parseISO reads the standard's
 * reduced and other forms too, so a column of ages or years passed as dates and was rewritten as invented days (a
 * probe: `12` became 1200-01-01, `2024` 2024-01-01, `2024-03` the 1st of March, `2024-W10` a Monday, `07` passed the
 * check). A zone is at most 14 hours from UTC (`+25:00` was read as a day earlier; `+14:01` passed until 2026-12-03).
 *
 * Groups: 1 year; 2, 3 month and day with hyphens, or 4, 5 without; 6 hours, 7 minutes, 8 seconds (with a fraction);
 * 9 the zone.
 */
export const ISO_DATE_TIME =
  /^(\d{4})(?:-(\d{2})-(\d{2})|(\d{2})(\d{2}))(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2}(?:[.,]\d+)?))?)?(Z|[+-](?:(?:0\d|1[0-3])(?::?[0-5]\d)?|14(?::?00)?))?)?$/;

const MS_IN_HOUR = 3_600_000;
const MS_IN_MINUTE = 60_000;

/** The zone's offset from UTC in milliseconds (`+02:00` is 2 hours), 0 for `Z`. */
function zoneOffset(zone: string): number {
  if (zone === 'Z') return 0;
  const sign = zone[0] === '+' ? 1 : -1;
  const hours = +zone.slice(1, 3);
  const rest = zone.slice(3).replace(':', '');
  const minutes = rest === '' ? 0 : +rest;
  return sign * (hours * MS_IN_HOUR + minutes * MS_IN_MINUTE);
}

/** The calendar parts of an ISO 8601 date or date-time at its UTC time, or null when it is none (or no real date). */
export function readIsoDate(text: string): DateParts | null {
  const m = ISO_DATE_TIME.exec(text);
  if (m === null) return null;
  const year = +m[1];
  const month = +(m[2] ?? m[4]);
  const day = +(m[3] ?? m[5]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (m[6] === undefined) return { year, month, day, hour: 0, minute: 0, second: 0 };

  const hour = +m[6];
  const minute = m[7] === undefined ? 0 : +m[7];
  // parseFloat as parseISO reads it: a fraction's float decides the second when it is within a millisecond of the next.
  const second = m[8] === undefined ? 0 : parseFloat(m[8].replace(',', '.'));
  if (hour === 24 ? minute !== 0 || second !== 0 : hour > 24 || minute >= 60 || second >= 60) return null;
  const zone = m[9];
  const offset = zone === undefined ? 0 : zoneOffset(zone);
  if (Number.isInteger(second)) {
    // Whole seconds: 24:00 and a zone move the time as a compiled pattern's zone does, the day by one at most.
    const parts = { year, month, day, hour, minute, second };
    return hour === 24 || offset !== 0 ? inUtc(parts, offset) : parts;
  }

  // A fraction of a second: the instant in milliseconds, summed in parseISO's order (which adds the negated offset:
  // the same float), and its UTC parts. A Date truncates the fraction of a millisecond toward zero, which before 1970
  // is toward the next second.
  const midnight = new Date(0);
  midnight.setUTCFullYear(year, month - 1, day);
  const time = hour * MS_IN_HOUR + minute * MS_IN_MINUTE + second * 1000;
  return partsOfDate(new Date(midnight.getTime() + time - offset));
}
