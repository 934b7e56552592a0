/** Why a cell has its problem, in words a reviewer reads beside the value (docs/review-page.md, "Problems"). */
import { isolate, numbers, t, typeName } from './i18n';
import type { CellProblem, Field } from './types';

/** Digits every integer of which a double holds: a longer number may not be carried exactly. */
const SAFE_DIGITS = 15;
/**
 * Significant digits of a value written in digits alone (an id, an order number), else 0. Such a
 * value fails a number field's check only for its size; any other text may fail for its shape
 * (a fraction in an integer field, separators the field does not read), which the general words say.
 */
const longNumberDigits = (value: string | null): number => {
  const text = (value ?? '').trim();
  return /^[+-]?\d+$/.test(text) ? text.replace(/^[+-]?0*/, '').length : 0;
};

/** Characters as the service counts them: code points. */
const lengthOf = (text: string): number => Array.from(text).length;

/** A bound as written for the reader: numbers in the page's language, dates as the schema writes them. */
const bound = (v: number | string): string => (typeof v === 'number' ? numbers.format(v) : isolate(v));

function rangeWords(field: Field, value: string | null): string {
  const { min, max } = field;
  const n = value === null ? NaN : Number(value.trim());
  // A number says on which side it fell; a date is compared as the service reads it, so both bounds are named.
  if (typeof min === 'number' && !Number.isNaN(n) && n < min) return t('problem_range_below', { min: bound(min) });
  if (typeof max === 'number' && !Number.isNaN(n) && n > max) return t('problem_range_above', { max: bound(max) });
  if (min !== undefined && max !== undefined) return t('problem_range_between', { min: bound(min), max: bound(max) });
  if (min !== undefined) return t('problem_range_below', { min: bound(min) });
  return t('problem_range_above', { max: bound(max ?? '') });
}

/**
 * The allowed value a cell names by its label or by the value written in another case ("Gold" where the value is
 * gold): a picklist shows labels, so a reviewer who wrote one is told which value to write. Null for anything else.
 */
function allowedValueNamed(field: Field, value: string | null): string | null {
  const wanted = (value ?? '').trim().toLocaleLowerCase();
  if (!wanted) return null;
  const named = field.allowed_values?.find((a) => a.value.toLocaleLowerCase() === wanted || a.label.toLocaleLowerCase() === wanted);
  return named?.value ?? null;
}

function lengthWords(field: Field, value: string | null): string {
  const length = lengthOf((value ?? '').trim());
  if (field.min_length !== undefined && length < field.min_length) return t('problem_length_short', { count: field.min_length });
  return t('problem_length_long', { count: field.max_length ?? 0 });
}

export function problemWords(problem: CellProblem, field: Field, value: string | null): string {
  switch (problem) {
    case 'required':
      return t('problem_required');
    case 'pattern':
      return t('problem_pattern', { pattern: isolate(field.pattern ?? '') });
    case 'range':
      return rangeWords(field, value);
    case 'length':
      return lengthWords(field, value);
    case 'unique':
      // Repeated alone, or as a combination of unique_with: the first set it belongs to is named.
      return !field.unique && field.unique_with?.length
        ? t('problem_unique_with', { fields: isolate(field.unique_with[0].join(' + ')) })
        : t('problem_unique');
    case 'customer':
      return t('problem_kind_customer');
    default:
      if (field.allowed_values) {
        const named = allowedValueNamed(field, value);
        return named === null ? t('problem_enum') : t('problem_enum_use', { value: isolate(named) });
      }
      // A number of more digits than a double carries (the service's exact-number.ts): it is no typo, so say what it is.
      if ((field.data_type === 'integer' || field.data_type === 'number') && longNumberDigits(value) > SAFE_DIGITS)
        return t('problem_number_digits');
      // A date written otherwise than the field reads them: the pattern to write it in (besides yyyy-MM-dd).
      if (field.date_pattern) return t('problem_date_pattern', { type: typeName(field.data_type), pattern: isolate(field.date_pattern) });
      return t('problem_type', { type: typeName(field.data_type) });
  }
}
