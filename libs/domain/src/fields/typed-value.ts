import isEmail from 'validator/lib/isEmail';
import isURL from 'validator/lib/isURL';
import type { FieldDefinition } from '@app/contracts';
import { parseDateWith } from './transformations';

/**
 * data_type values the service checks. Any other data_type is accepted as text
 * (the spec does not list them; docs/decisions.md).
 */
export const KNOWN_DATA_TYPES = ['string', 'text', 'email', 'date', 'datetime', 'number', 'integer', 'boolean', 'url'] as const;

export type CellProblem = 'required' | 'type';

export interface TypedValue {
  /** What goes into JSON output: numbers and booleans typed, empty values null, else the text. */
  value: string | number | boolean | null;
  problem: CellProblem | null;
}

const TRUE_WORDS = new Set(['true', 'yes', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'n']);
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The everyday shape of an address (dot-atoms before the @, hostname labels and an
 * alphabetic TLD after it), every string of which validator's isEmail accepts too
 * (property-tested). Checking it first skips isEmail's option merging and FQDN walk,
 * which took a quarter of the output time of a million-row file; anything else still
 * goes to isEmail, so the verdicts are the same.
 */
const EVERYDAY_EMAIL = /^[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const isEmailAddress = (value: string): boolean =>
  (value.length <= 254 && value.indexOf('@') <= 64 && EVERYDAY_EMAIL.test(value)) || isEmail(value);

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A calendar day written yyyy-MM-dd, checked with arithmetic: the common case of a date
 * column, without date-fns's general ISO parser. False means "not certainly", not "invalid".
 */
export function isPlainIsoDay(value: string): boolean {
  const m = ISO_DAY.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/**
 * Checks one value against its field's data_type and is_required. A value that fails
 * is kept exactly as it came (never dropped or blanked) and reported as a problem.
 */
export function typeValue(raw: string, field: FieldDefinition): TypedValue {
  if (raw.trim() === '') return { value: null, problem: field.is_required ? 'required' : null };
  const bad: TypedValue = { value: raw, problem: 'type' };
  switch (field.data_type) {
    case 'email':
      return isEmailAddress(raw.trim()) ? { value: raw, problem: null } : bad;
    case 'url':
      return isURL(raw.trim()) ? { value: raw, problem: null } : bad;
    case 'number':
    case 'integer': {
      const t = raw.trim();
      if (!NUMBER_RE.test(t)) return bad;
      const n = Number(t);
      if (!Number.isFinite(n) || (field.data_type === 'integer' && !Number.isInteger(n))) return bad;
      return { value: n, problem: null };
    }
    case 'boolean': {
      const t = raw.trim().toLowerCase();
      if (TRUE_WORDS.has(t)) return { value: true, problem: null };
      if (FALSE_WORDS.has(t)) return { value: false, problem: null };
      return bad;
    }
    case 'date':
    case 'datetime':
      return isPlainIsoDay(raw.trim()) ||
        parseDateWith(raw.trim(), field.format ?? (field.transformations?.date_format?.to as string | undefined)) ||
        parseDateWith(raw.trim(), null)
        ? { value: raw, problem: null }
        : bad;
    default:
      return { value: raw, problem: null };
  }
}
