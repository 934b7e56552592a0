import type { FieldDefinition } from '@app/contracts';
// Only dry runs make synthetic records: date-fns's writer, loaded on first use.
import { formatDate, isDatePattern } from '../fields/transformations';

/** How many synthetic records a dry run has. */
export const SYNTHETIC_RECORDS = 10;

const BASE_DATE = Date.UTC(2024, 0, 15, 9, 30);

/** The pattern a date cell must have before the field's transformations run. */
function sourceDatePattern(field: FieldDefinition): string {
  const df = field.transformations?.date_format;
  const iso = field.data_type === 'datetime' ? "yyyy-MM-dd'T'HH:mm:ss" : 'yyyy-MM-dd';
  // A pattern stored before patterns were checked may be none: ISO then, as the field's check reads.
  const usable = (pattern: string | null | undefined): pattern is string => typeof pattern === 'string' && isDatePattern(pattern);
  if (df?.enabled && typeof df.from === 'string') return usable(df.from) ? df.from : iso;
  return usable(field.format) ? field.format : iso;
}

/** One synthetic cell for record `n` (1-based): valid for the field's data_type. */
function syntheticValue(name: string, field: FieldDefinition, n: number): string {
  switch (field.data_type) {
    case 'email':
      return `${name.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'user'}${n}@example.com`;
    case 'url':
      return `https://example.com/${encodeURIComponent(name)}/${n}`;
    case 'integer':
      return String(n);
    case 'number':
      return (n * 1.25).toFixed(2);
    case 'boolean':
      return n % 2 === 1 ? 'true' : 'false';
    case 'date':
    case 'datetime': {
      const d = new Date(BASE_DATE + (n - 1) * 86_400_000);
      // date-fns formats in local time; shift so the UTC calendar day is the one written.
      return formatDate()(new Date(d.getTime() + d.getTimezoneOffset() * 60_000), sourceDatePattern(field));
    }
    default:
      return `${field.label ?? name} ${n}`;
  }
}

/**
 * The records of a dry run: a fixed number, derived only from the schema's field names,
 * labels, formats and data types, so the same schema always gives the same records and
 * every value passes its field's checks. No provider and no uploaded content is used. Pure.
 */
export function syntheticRows(fields: Record<string, FieldDefinition>, count = SYNTHETIC_RECORDS): string[][] {
  const entries = Object.entries(fields);
  return Array.from({ length: count }, (_, i) => entries.map(([name, field]) => syntheticValue(name, field, i + 1)));
}
