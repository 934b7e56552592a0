import { format as formatDate, isValid, parse as parseDate, parseISO } from 'date-fns';
import type { FieldDefinition } from '@app/contracts';

/**
 * Field transformations, applied after mapping in a fixed order whatever the order of
 * keys in the schema: trim_whitespace, date_format, uppercase, lowercase. Patterns use
 * Unicode date tokens (date-fns): `dd/MM/yyyy`, `yyyy-MM-dd`. A date that does not
 * parse with `from` is left as it was (and then fails a `date` data_type check).
 */
export const KNOWN_TRANSFORMATIONS = ['trim_whitespace', 'date_format', 'uppercase', 'lowercase'] as const;

const REFERENCE_DATE = new Date(2000, 0, 1);

export function parseDateWith(value: string, pattern: string | null | undefined): Date | null {
  const d = pattern ? parseDate(value, pattern, REFERENCE_DATE) : parseISO(value);
  return isValid(d) ? d : null;
}

function isEnabled(field: FieldDefinition, name: string): boolean {
  return field.transformations?.[name]?.enabled === true;
}

/** Returns the value after the field's enabled transformations. Pure. */
export function applyTransformations(value: string, field: FieldDefinition): string {
  let v = value;
  if (isEnabled(field, 'trim_whitespace')) v = v.trim();
  if (isEnabled(field, 'date_format') && v !== '') {
    const opts = field.transformations!.date_format;
    const to = typeof opts.to === 'string' ? opts.to : null;
    const from = typeof opts.from === 'string' ? opts.from : null;
    const d = to ? parseDateWith(v.trim(), from) : null;
    if (d && to) v = formatDate(d, to);
  }
  if (isEnabled(field, 'uppercase')) v = v.toUpperCase();
  if (isEnabled(field, 'lowercase')) v = v.toLowerCase();
  return v;
}

/** Checks a transformations object from an admin request; returns messages, empty when valid. */
export function validateTransformations(t: unknown): string[] {
  if (t === undefined || t === null) return [];
  if (typeof t !== 'object' || Array.isArray(t)) return ['transformations must be an object.'];
  const problems: string[] = [];
  for (const [name, opts] of Object.entries(t as Record<string, unknown>)) {
    if (!(KNOWN_TRANSFORMATIONS as readonly string[]).includes(name)) {
      problems.push(`Unknown transformation "${name}"; known: ${KNOWN_TRANSFORMATIONS.join(', ')}.`);
      continue;
    }
    if (!opts || typeof opts !== 'object' || typeof (opts as { enabled?: unknown }).enabled !== 'boolean') {
      problems.push(`Transformation "${name}" needs an options object with a boolean "enabled".`);
      continue;
    }
    if (name === 'date_format') {
      const { from, to } = opts as { from?: unknown; to?: unknown };
      if (typeof to !== 'string' || !to) problems.push('date_format needs a "to" pattern.');
      if (from !== undefined && from !== null && typeof from !== 'string') problems.push('date_format "from" must be a pattern string.');
    }
  }
  return problems;
}
