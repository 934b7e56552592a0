import isEmail from 'validator/lib/isEmail';
import isURL from 'validator/lib/isURL';
import type { FieldDefinition } from '@app/contracts';
import type { CellProblem } from './cell-problems';
import { daysInMonth, digitsValue } from './digits';
import { carriesExactly } from './exact-number';
import { compileNumberReader } from './number-format';
import { compileCountryReader, compilePhoneReader } from './phone-country';
import { compileDateCheck, dateFormatWrittenTo } from './transformations';

/**
 * data_type values the service checks. Any other data_type is accepted as text
 * (the spec does not list them; docs/decisions.md).
 */
export const KNOWN_DATA_TYPES = [
  'string',
  'text',
  'email',
  'date',
  'datetime',
  'number',
  'integer',
  'boolean',
  'url',
  'enum',
  'phone',
  'country',
] as const;

export interface TypedValue {
  /** What goes into JSON output: numbers and booleans typed, empty values null, else the text. */
  value: string | number | boolean | null;
  problem: CellProblem | null;
}

const TRUE_WORDS = new Set(['true', 'yes', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'n']);

/**
 * The everyday shape of an address (dot-atoms before the @, hostname labels and an
 * alphabetic TLD after it), every string of which validator's isEmail accepts too
 * (property-tested). Checking it first skips isEmail's option merging and FQDN walk,
 * which took a quarter of the output time of a million-row file; anything else still
 * goes to isEmail, so the verdicts are the same.
 */
const EVERYDAY_EMAIL = /^[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/**
 * What isEmail lets through or cannot take, refused first: a lone surrogate (half a character: isEmail's
 * byte count throws on it, and a JSON body can carry one), and invisible format characters such as a zero-width
 * space or a byte order mark pasted along with an address, which make it another address that reads the same
 * (the joiners U+200C and U+200D aside: some scripts need them).
 */
const UNSEEN_IN_ADDRESS = /[\p{Cs}\p{Cf}]/u;
const JOINERS = /[‌‍]/g;

export const isEmailAddress = (value: string): boolean =>
  (value.length <= 254 && value.indexOf('@') <= 64 && EVERYDAY_EMAIL.test(value)) ||
  (!UNSEEN_IN_ADDRESS.test(value.replace(JOINERS, '')) && isEmail(value));

/**
 * The everyday shape of a web address: an http, https or ftp scheme (or none), hostname labels
 * and an alphabetic top-level domain, no port or credentials, then nothing or a path, query or
 * fragment without blanks or angle brackets. Every such string of at most 2,084 characters is
 * one validator's isURL accepts (property-tested), and checking it first skips isURL's option
 * merging, splitting and FQDN walk: a column of distinct addresses spent a tenth of a wide
 * file's output there. Anything else still goes to isURL, so the verdicts are the same.
 */
const EVERYDAY_URL = /^(?:(?:https?|ftp):\/\/)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?:[/?#][^\s<>]*)?$/i;

export const isWebAddress = (value: string): boolean => (value.length <= 2084 && EVERYDAY_URL.test(value)) || isURL(value);

/**
 * A calendar day written yyyy-MM-dd (`^\d{4}-\d{2}-\d{2}$` and a day the month has), checked with
 * arithmetic: the common case of a date column, without date-fns's general ISO parser. False
 * means "not certainly", not "invalid".
 */
export function isPlainIsoDay(value: string): boolean {
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return false;
  const year = digitsValue(value, 0, 4);
  const month = digitsValue(value, 5, 7);
  const day = digitsValue(value, 8, 10);
  // A character that is not a digit makes its part -1.
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/**
 * A decimal number as `^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$` describes it, checked in
 * one pass: that regular expression backtracks quadratically on a long run of digits
 * followed by a stray character (60,000 digits cost seconds).
 */
export function isDecimalNumber(t: string): boolean {
  let i = 0;
  const n = t.length;
  const digitsFrom = (from: number): number => {
    let j = from;
    while (j < n && t.charCodeAt(j) >= 48 && t.charCodeAt(j) <= 57) j++;
    return j;
  };
  if (t[i] === '+' || t[i] === '-') i++;
  const intEnd = digitsFrom(i);
  let mantissaDigits = intEnd - i;
  i = intEnd;
  if (t[i] === '.') {
    const fracEnd = digitsFrom(i + 1);
    mantissaDigits += fracEnd - (i + 1);
    i = fracEnd;
  }
  if (mantissaDigits === 0) return false;
  if (t[i] === 'e' || t[i] === 'E') {
    i++;
    if (t[i] === '+' || t[i] === '-') i++;
    const expEnd = digitsFrom(i);
    if (expEnd === i) return false;
    i = expEnd;
  }
  return i === n;
}

type Check = (raw: string) => TypedValue;

/**
 * The pattern a date or datetime field's values are checked in besides yyyy-MM-dd and ISO 8601: its `format`, else
 * the `to` of its `date_format` (what that transformation writes); null for none. The review names it in the words
 * of a value's problem.
 */
export function datePatternChecked(field: FieldDefinition): string | null {
  const to = field.transformations?.date_format?.to;
  return field.format ?? (typeof to === 'string' ? to : null);
}

function compileDateTypeCheck(field: FieldDefinition): Check {
  // An enabled date_format writes every date it reads in its `to`: a value in another form (an ISO date its `from` did not
  // read) is one it could not rewrite, and passed, the output would mix forms without a word. A field's `format` says which
  // values it takes, and keeps the check below.
  const writtenTo = field.format ? null : dateFormatWrittenTo(field);
  if (writtenTo) {
    const inTo = compileDateCheck(writtenTo);
    return (raw) => (inTo(raw.trim()) ? { value: raw, problem: null } : { value: raw, problem: 'type' });
  }
  const inPattern = compileDateCheck(datePatternChecked(field));
  const inIso = compileDateCheck(null);
  return (raw) => {
    const t = raw.trim();
    return isPlainIsoDay(t) || inPattern(t) || inIso(t) ? { value: raw, problem: null } : { value: raw, problem: 'type' };
  };
}

function compileNumberCheck(integer: boolean, field: FieldDefinition, options: TypeCheckOptions): Check {
  if (field.number_format) {
    const read = compileNumberReader(field.number_format, integer);
    const formatted: Check = (raw) => {
      const n = read(raw);
      return n === null || (integer && !Number.isInteger(n)) ? { value: raw, problem: 'type' } : { value: n, problem: null };
    };
    if (!options.workbookNumbers) return formatted;
    // A workbook's number cell reads as a plain number (1.234, 0.12 under a 12% format): the number itself, not
    // text in the field's locale (read de-DE, 1.234 was 1234; read as a percent, 0.12 was 0.0012). Its verdict is
    // the plain check's: 1.234 in an integer field is no whole number, not 1234 in the locale. Text cells that are
    // no plain number (1.234,5; 12 %) are read in the number_format, as in a text file.
    const plain = compilePlainNumberCheck(integer);
    // A number cell never reads "1.000" (it is written as the number, 1): such a value is a text cell, in the locale.
    return (raw) => {
      const t = raw.trim();
      return isDecimalNumber(t) && !(integer && isThousandOrThousandths(t)) ? plain(raw) : formatted(raw);
    };
  }
  return compilePlainNumberCheck(integer);
}

/**
 * A whole number written with `.000` after one to three digits: a thousand ("1.000", de-DE, es, it, ...) or one to the
 * thousandth ("1.000", en, a quantity to three places). Read plainly it is 1, and a file that groups thousands so
 * lost three zeros without a word: a whole-number field takes it as a problem, which the review's amount fix
 * resolves with the decimal mark the reviewer names.
 */
const THOUSAND_OR_THOUSANDTHS = /^[+-]?[1-9]\d{0,2}\.000$/;

/** Whether a trimmed plain number is a whole-number field's "1.000" (its end checked first: the path of every cell). */
const isThousandOrThousandths = (t: string): boolean => t.endsWith('.000') && THOUSAND_OR_THOUSANDTHS.test(t);

/** A plain number with a `.` decimal point (an exponent too), exact as written. */
function compilePlainNumberCheck(integer: boolean): Check {
  return (raw) => {
    const t = raw.trim();
    if (!isDecimalNumber(t) || (integer && isThousandOrThousandths(t))) return { value: raw, problem: 'type' };
    const n = Number(t);
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || !carriesExactly(t, n, integer)) return { value: raw, problem: 'type' };
    return { value: n, problem: null };
  };
}

/** Where a run's values come from, as far as reading them is concerned. */
export interface TypeCheckOptions {
  /** From a workbook: a number cell reads as a plain number whatever the field's number_format (compileNumberCheck). */
  workbookNumbers?: boolean;
}

/** The check of a field's data_type for a non-empty value, compiled once per field. */
function compileDataTypeCheck(field: FieldDefinition, options: TypeCheckOptions): Check {
  const verdict =
    (ok: (t: string) => boolean): Check =>
    (raw) =>
      ok(raw.trim()) ? { value: raw, problem: null } : { value: raw, problem: 'type' };
  switch (field.data_type) {
    case 'email':
      return verdict(isEmailAddress);
    case 'url':
      return verdict(isWebAddress);
    case 'number':
    case 'integer':
      return compileNumberCheck(field.data_type === 'integer', field, options);
    case 'boolean':
      return (raw) => {
        const t = raw.trim().toLowerCase();
        if (TRUE_WORDS.has(t)) return { value: true, problem: null };
        if (FALSE_WORDS.has(t)) return { value: false, problem: null };
        return { value: raw, problem: 'type' };
      };
    case 'date':
    case 'datetime':
      return compileDateTypeCheck(field);
    case 'enum': {
      // A picklist: one of its allowed values, exactly (a reviewer maps the others to them). Schemas
      // stored before picklists existed may say enum without allowed values: text, as then.
      if (!field.allowed_values?.length) return (raw) => ({ value: raw, problem: null });
      const allowed = new Set(field.allowed_values.map((a) => a.value));
      return (raw) => (allowed.has(raw.trim()) ? { value: raw.trim(), problem: null } : { value: raw, problem: 'type' });
    }
    case 'phone':
      return normalisedTo(compilePhoneReader(field.default_region));
    case 'country':
      return normalisedTo(compileCountryReader(field.country_format));
    default:
      return (raw) => ({ value: raw, problem: null });
  }
}

/** A check whose valid values are written normalised (E.164, a country code); others stay as read. */
const normalisedTo =
  (read: (raw: string) => string | null): Check =>
  (raw) => {
    const v = read(raw);
    return v === null ? { value: raw, problem: 'type' } : { value: v, problem: null };
  };

/**
 * Whether CSV output writes a field's checked value rather than its text as read: numbers read
 * in a number_format (with a `.` decimal point), phone numbers (E.164), countries (the
 * country_format) and a picklist's values (the allowed value, without the blanks around it, as
 * JSON writes it). Other fields' CSV cells stay the text as read, which is JSON's string too.
 */
export const writesCheckedText = (field: FieldDefinition): boolean =>
  field.data_type === 'phone' ||
  field.data_type === 'country' ||
  field.data_type === 'enum' ||
  ((field.data_type === 'number' || field.data_type === 'integer') && !!field.number_format);

/**
 * Compiles the check of one field (data_type and is_required), once per run. A value that
 * fails is kept exactly as it came (never dropped or blanked) and reported as a problem.
 */
export function compileTypeCheck(field: FieldDefinition, options: TypeCheckOptions = {}): Check {
  const check = compileDataTypeCheck(field, options);
  const empty: TypedValue = { value: null, problem: field.is_required ? 'required' : null };
  return (raw) => (raw.trim() === '' ? { ...empty } : check(raw));
}

/** Checks one value against its field's data_type and is_required (compiles per call: use compileTypeCheck for many values). */
export function typeValue(raw: string, field: FieldDefinition): TypedValue {
  return compileTypeCheck(field)(raw);
}
