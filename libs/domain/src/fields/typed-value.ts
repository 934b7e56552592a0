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
 * Checks one value against its field's data_type and is_required. A value that fails
 * is kept exactly as it came (never dropped or blanked) and reported as a problem.
 */
export function typeValue(raw: string, field: FieldDefinition): TypedValue {
  if (raw.trim() === '') return { value: null, problem: field.is_required ? 'required' : null };
  const bad: TypedValue = { value: raw, problem: 'type' };
  switch (field.data_type) {
    case 'email':
      return isEmail(raw.trim()) ? { value: raw, problem: null } : bad;
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
      return parseDateWith(raw.trim(), field.format ?? field.transformations?.date_format?.to as string | undefined) ||
        parseDateWith(raw.trim(), null)
        ? { value: raw, problem: null }
        : bad;
    default:
      return { value: raw, problem: null };
  }
}
