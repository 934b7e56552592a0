import { digitTemplateText } from './xlsx-digit-template';
import { SHOWN_AS_DATE, SHOWN_AS_NUMBER, SHOWN_AS_TIME_OF_DAY, type CellStyles } from './xlsx-styles';
const pad = (n: number) => String(n).padStart(2, '0');

/** Serial of 1970-01-01 in the 1900 date system; the 1904 system is 1462 days later. */
const UNIX_EPOCH_SERIAL = 25569;
const DAYS_1900_TO_1904 = 1462;
const SECONDS_PER_DAY = 24 * 3600;

/**
 * Excel dates carry no zone: they are read as UTC instants. Midnight is a plain date. `digits` of the second are
 * written (a format's `ss.000`: secondFractionDigits), from the instant's milliseconds.
 */
export function dateText(d: Date, digits = 0): string {
  if (Number.isNaN(d.getTime())) return '';
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const ms = d.getUTCMilliseconds();
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && ms === 0) return date;
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fractionText(ms, digits)}`;
}

/** `.5`, `.50`, `.500` for 500 ms at 1, 2 or 3 digits; nothing at 0. */
const fractionText = (ms: number, digits: number): string => (digits > 0 ? '.' + String(ms).padStart(3, '0').slice(0, digits) : '');

/** The digits of a second a cell's format shows (most formats: none, and no lookup). */
const fractionDigitsOf = (style: number, styles: CellStyles): number =>
  styles.secondFractions.size > 0 ? (styles.secondFractions.get(style) ?? 0) : 0;

/** The units a serial is rounded to, per second: 1 for whole seconds, 10 for tenths, … 1000 for milliseconds. */
const unitsPerSecond = (digits: number): number => 10 ** digits;

/** The first serial past 9999-12-31, the last day Excel shows (in the 1900 system; the 1904 one stops 1,462 days sooner). */
const PAST_LAST_DAY = 2958466;

/** Serial of the 1900-02-29 the 1900 date system counts (Lotus 1-2-3 took 1900 for a leap year, and Excel kept it). */
const FICTITIOUS_LEAP_DAY = 60;

/**
 * A date cell's serial number as text, rounded to the second as Excel shows it (12:00:00.7 is
 * 12:00:01, and 23:59:59.6 the next day; exceljs rounded to the millisecond, and the text cut
 * the rest off). In the 1900 system a serial before March 1900 is a day later than its count
 * from 1899-12-30, as Excel shows it (serial 1 is 1900-01-01: exceljs read it a day early), and
 * serial 60 is the 1900-02-29 Excel shows, which a date check then finds is no day. A serial
 * Excel shows as no date (`####`: below 0, past 9999-12-31) is its number, which a date field's
 * check meets as a problem (it was a date before 1900, or empty past JavaScript's last day). A format that shows
 * parts of a second (`digits`) is rounded to them instead, and they are written.
 */
export function serialDateText(serial: number, date1904: boolean, digits = 0): string {
  // The day and the time of day from one rounding, so that they agree at a day's last half unit.
  const perSecond = unitsPerSecond(digits);
  const unitsPerDay = SECONDS_PER_DAY * perSecond;
  const serialUnits = Math.round(serial * unitsPerDay);
  const day = Math.floor(serialUnits / unitsPerDay);
  if (day < 0 || day >= PAST_LAST_DAY - (date1904 ? DAYS_1900_TO_1904 : 0)) return String(serial);
  const units = serialUnits - (UNIX_EPOCH_SERIAL - (date1904 ? DAYS_1900_TO_1904 : 0)) * unitsPerDay;
  // Multiplied by a whole 1000 / perSecond: a product past 2^53 divided again lost a millisecond past year 4250.
  const at = (shiftDays: number) => dateText(new Date((units + shiftDays * unitsPerDay) * (1000 / perSecond)), digits);
  if (date1904 || day > FICTITIOUS_LEAP_DAY) return at(0);
  // Day 0 is the 1900-01-00 Excel shows (a lookup's 0 in a date column, a time alone in a date format): no day either.
  if (day === 0) return '1900-01-00' + at(0).slice(10);
  if (day < FICTITIOUS_LEAP_DAY) return at(1);
  return '1900-02-29' + at(0).slice(10);
}

/**
 * A time-of-day cell's serial number (a format of hours, minutes and seconds alone) as ISO 8601
 * time, `HH:mm:ss`, when it has no date part; one with a date part (a whole day or more) is
 * written as a date and time, so nothing of it is lost. Rounded to the second, as Excel shows
 * it: a serial of 12:30 is stored a hair under it.
 */
export function serialTimeText(serial: number, date1904: boolean, digits = 0): string {
  if (serial < 0 || serial >= 1) return serialDateText(serial, date1904, digits);
  // Under a day, rounded up to one: the clock shows midnight, as Excel's does (not 1899-12-30 at 23:59:59).
  const unitsPerDay = SECONDS_PER_DAY * unitsPerSecond(digits);
  return clockText(Math.round(serial * unitsPerDay) % unitsPerDay, digits);
}

/**
 * An elapsed-time cell's serial number (`[h]:mm:ss`: a duration in days) as hours, minutes and
 * seconds with the hours in full, `37:30:00` (whatever its bracket: `[mm]:ss` too), rounded to the
 * second; a minus sign before a negative one. Past the serials Excel holds (fewer in the 1904 system), its number.
 */
export function serialElapsedText(serial: number, date1904: boolean, digits = 0): string {
  // The 1904 system's days end 1,462 serials sooner, for elapsed time as for dates.
  if (Math.abs(serial) >= PAST_LAST_DAY - (date1904 ? DAYS_1900_TO_1904 : 0)) return String(serial);
  const units = Math.round(Math.abs(serial) * SECONDS_PER_DAY * unitsPerSecond(digits));
  return (serial < 0 && units > 0 ? '-' : '') + clockText(units, digits);
}

/** `HH:mm:ss` (hours in full), and `digits` of the second, from a count of units of 1/10^digits second. */
function clockText(units: number, digits = 0): string {
  const perSecond = unitsPerSecond(digits);
  const seconds = Math.floor(units / perSecond);
  const fraction = digits > 0 ? '.' + String(units % perSecond).padStart(digits, '0') : '';
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}${fraction}`;
}

/**
 * Whether `value` is already what `String(parseFloat(value))` gives, so that a million
 * number cells are not each parsed and printed again. True for plain decimals with at
 * most 15 digits, no sign but "-", no leading or trailing zeros (and not "-0", and not
 * so small JavaScript would print an exponent): a double holds 15 significant decimal
 * digits exactly, so the shortest text that reads back as the same number is this one.
 * Anything else (exponents, 17-digit values Excel writes, "1.50") takes the slow path.
 */
export function isPrintedNumber(value: string): boolean {
  const length = value.length;
  let i = value.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const intStart = i;
  while (i < length && value.charCodeAt(i) >= 48 && value.charCodeAt(i) <= 57) i++;
  const intDigits = i - intStart;
  if (intDigits === 0 || (intDigits > 1 && value.charCodeAt(intStart) === 48)) return false;
  if (i === length) return intDigits <= 15 && value !== '-0';
  if (value.charCodeAt(i) !== 46) return false; // '.'
  const fracStart = ++i;
  while (i < length && value.charCodeAt(i) >= 48 && value.charCodeAt(i) <= 57) i++;
  if (i !== length || i === fracStart || value.charCodeAt(length - 1) === 48) return false;
  if (intDigits + (length - fracStart) > 15) return false;
  if (value.charCodeAt(intStart) !== 48) return true;
  // 0.000000x and smaller print as 1e-7
  let zeros = 0;
  while (value.charCodeAt(fracStart + zeros) === 48) zeros++;
  return zeros < 6;
}

/** How far, in units of a double's last place, a fraction may lie from its 15-digit rounding and still be noise. */
const NOISE_ULPS = 4;

/**
 * A number cell's number without a formula's floating-point noise: a fraction within a few last places of its
 * rounding to the 15 significant digits Excel shows and copies is that rounding (0.1+0.2 is 0.3, not
 * 0.30000000000000004, and 7.000000000000001 is 7, which an integer field takes). Anything farther is the number's
 * own (1/3 keeps its 16 digits, 12345678901234.56 its cents), and a whole number is exact (an identifier a program
 * wrote as a number keeps its 16th and 17th digits).
 */
function withoutNoise(n: number): number {
  if (Number.isInteger(n)) return n;
  const rounded = Number(n.toPrecision(15));
  return Math.abs(rounded - n) <= NOISE_ULPS * Number.EPSILON * Math.abs(n) ? rounded : n;
}

/** A `t="d"` cell's value: a date, or a date and time (group 1) with a zone or not (group 2). */
const ISO_CELL_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A decimal number as a cell's `<v>` holds one; without an ambiguous split of digits, so it never backtracks. */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** What the reader needs to turn a cell's stored value into its text. */
export interface CellContext {
  sharedString(index: number): string;
  /** The longest shared string's characters (0: none): how much text one cell may stand for. */
  longestSharedString?: number;
  /** Per cell format (the cell's `s`): how it shows a number (xlsx-styles.ts). */
  styles: CellStyles;
  date1904: boolean;
}

/**
 * A spreadsheet's text as its author sees it. OOXML writes a character XML cannot carry, and one that
 * could be mistaken for such an escape, as `_xHHHH_` (ECMA-376 Part 1, 22.9.2.19 ST_Xstring): Excel
 * writes the CR of every CRLF in a cell as `_x000D_`, and an author's own `_x0041_` as `_x005F_x0041_`
 * (the underscore escaped). Read left to right, so the escaped underscore leaves the rest as written.
 * Until 2026-12-01 they reached the output as written (a probe: `caf_x00E9_` for café). Pure.
 */
export function unescapeXstring(text: string): string {
  return text.includes('_x') ? text.replace(XSTRING_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
}
const XSTRING_ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/**
 * The text of one cell from its type (`t`), its stored value (`<v>`, or the inline
 * string's text for t="inlineStr"), whether it has a formula (then `<v>` is the cached
 * result) and its format. Numbers as JavaScript writes them; dates as dateText; booleans
 * TRUE/FALSE; error values as the spreadsheet shows them (#N/A, #DIV/0!), so a field's check
 * meets them in the review rather than a blank; formulas never calculated are empty.
 */
export function cellText(type: string, value: string | null, style: number, ctx: CellContext): string {
  if (value === null) return '';
  switch (type) {
    case 's':
      // No index at all (`<v></v>`) is an empty cell; an index the table lacks is a damaged workbook (xlsx-shared-strings.ts).
      return value.trim() === '' ? '' : ctx.sharedString(parseInt(value, 10));
    case 'str':
    case 'inlineStr':
      return unescapeXstring(value);
    case 'b':
      // 1 or 0; anything else (no spreadsheet writes it) as written, for the field's check to meet.
      return value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : value;
    case 'e':
      return value;
    case 'd': {
      // An ISO 8601 date (only: JavaScript's Date reads `1` as 2001 and `2024-03-04 10:00` in the machine's zone);
      // without a zone a wall-clock time, read as UTC like serial dates; rounded to the second (or the parts of one
      // the format shows) as they are. Anything else is kept as written.
      const iso = ISO_CELL_DATE.exec(value);
      const at = iso ? new Date(iso[2] ? value : `${value}${iso[1] ? 'Z' : ''}`).getTime() : NaN;
      if (Number.isNaN(at)) return value;
      const digits = fractionDigitsOf(style, ctx.styles);
      const msPerUnit = 1000 / unitsPerSecond(digits);
      return dateText(new Date(Math.round(at / msPerUnit) * msPerUnit), digits);
    }
    default: {
      const shown = ctx.styles.shownAs[style] ?? SHOWN_AS_NUMBER;
      const template = shown === SHOWN_AS_NUMBER && ctx.styles.digitTemplates.size > 0 ? ctx.styles.digitTemplates.get(style) : undefined;
      if (shown === SHOWN_AS_NUMBER && !template && isPrintedNumber(value)) return value;
      // A value that is no finite decimal number (no spreadsheet writes one) is kept as written: parseFloat read
      // `12abc` as 12 and `0x1A` as 0, and `1E+309` was empty.
      const n = DECIMAL.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return value;
      if (shown !== SHOWN_AS_NUMBER) {
        const digits = fractionDigitsOf(style, ctx.styles);
        if (shown === SHOWN_AS_DATE) return serialDateText(n, ctx.date1904, digits);
        if (shown === SHOWN_AS_TIME_OF_DAY) return serialTimeText(n, ctx.date1904, digits);
        return serialElapsedText(n, ctx.date1904, digits);
      }
      const number = withoutNoise(n);
      return (template && digitTemplateText(number, template)) ?? String(number);
    }
  }
}
