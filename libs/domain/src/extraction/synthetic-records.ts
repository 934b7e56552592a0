import { UTCDate } from '@date-fns/utc';
import type { FieldDefinition } from '@app/contracts';
import { compileFieldCheck } from '../fields/field-validators';
import { decimalMarkOf } from '../fields/number-format';
// Only dry runs make synthetic records: date-fns's writer, loaded on first use.
import { compileTransformations, formatDate, isDatePattern } from '../fields/transformations';

/** How many synthetic records a dry run has. */
export const SYNTHETIC_RECORDS = 10;

const BASE_DATE = Date.UTC(2024, 0, 15, 9, 30);
const DAY_MS = 86_400_000;
/** Countries a country field's records name, one per record: alpha-2 and alpha-3, either of which the field reads. */
const COUNTRIES = [
  ['DE', 'DEU'],
  ['FR', 'FRA'],
  ['NL', 'NLD'],
  ['ES', 'ESP'],
  ['IT', 'ITA'],
  ['PL', 'POL'],
  ['SE', 'SWE'],
  ['AT', 'AUT'],
  ['BE', 'BEL'],
  ['DK', 'DNK'],
];

/** The pattern a date cell must have before the field's transformations run. */
function sourceDatePattern(field: FieldDefinition): string {
  const df = field.transformations?.date_format;
  const iso = field.data_type === 'datetime' ? "yyyy-MM-dd'T'HH:mm:ss" : 'yyyy-MM-dd';
  // A pattern stored before patterns were checked may be none: ISO then, as the field's check reads.
  const usable = (pattern: string | null | undefined): pattern is string => typeof pattern === 'string' && isDatePattern(pattern);
  if (df?.enabled && typeof df.from === 'string') return usable(df.from) ? df.from : iso;
  return usable(field.format) ? field.format : iso;
}

const boundOf = (bound: number | string | undefined): number | undefined =>
  typeof bound === 'number' && Number.isFinite(bound) ? bound : undefined;

/** Record `n`'s number, inside the field's min and max, in the forms a field may read (a percentage field writes 12 for 0.12). */
function numberCandidates(field: FieldDefinition, n: number): string[] {
  const integer = field.data_type === 'integer';
  const min = boundOf(field.min);
  const max = boundOf(field.max);
  const step = integer ? 1 : 1.25;
  // With a max alone the values climb to it (ten of them); with neither bound they start at 1 (1.25).
  const top = integer && max !== undefined ? Math.floor(max) : max;
  let lo = min ?? (top !== undefined ? Math.min(step, top - (SYNTHETIC_RECORDS - 1) * step) : step);
  let hi = max;
  if (hi !== undefined && hi < lo) lo = hi;
  let typed: number;
  if (integer) {
    lo = Math.ceil(lo);
    hi = hi === undefined ? undefined : Math.floor(hi);
    if (hi !== undefined && hi < lo) lo = hi; // no integer between a min and max closer than 1: the max's
    typed = hi === undefined ? lo + n - 1 : lo + ((n - 1) % (hi - lo + 1));
  } else {
    const spread = hi === undefined ? step : (hi - lo) / SYNTHETIC_RECORDS;
    typed = Math.round((lo + (n - 1) * spread) * 100) / 100;
    if (typed < lo || (hi !== undefined && typed > hi)) typed = lo;
  }
  // toPrecision: 0.12 * 100 is 12.000000000000002.
  const value = field.number_format?.percent === true ? Number((typed * 100).toPrecision(15)) : typed;
  const plain = String(value);
  // Written with the decimal mark the field's number_format reads (decimalMarkOf, as the check takes it).
  return field.number_format ? [plain, plain.replace('.', decimalMarkOf(field.number_format))] : [plain];
}

/**
 * An ISO date or date-time bound as its wall-clock time, read as UTC whatever the process's time zone: the
 * field's check compares the bound as written with the value as written (Date.parse would read "2030-02-01T10:00"
 * in local time).
 */
const asWritten = (bound: string): number => Date.parse(/T[\d:.]+$/.test(bound) ? `${bound}Z` : bound);

/** Record `n`'s day (at 09:30 UTC), inside the field's min and max (ISO dates or date-times), written as its source is. */
function dateCandidates(field: FieldDefinition, n: number): string[] {
  const min = typeof field.min === 'string' ? asWritten(field.min) : NaN;
  const max = typeof field.max === 'string' ? asWritten(field.max.length === 10 ? `${field.max}T23:59:59` : field.max) : NaN;
  let first = Number.isNaN(min) ? BASE_DATE : Math.max(BASE_DATE, Math.ceil((min - BASE_DATE) / DAY_MS) * DAY_MS + BASE_DATE);
  if (!Number.isNaN(max) && first > max) first = Number.isNaN(min) ? max - SYNTHETIC_RECORDS * DAY_MS : min;
  const days = Number.isNaN(max) ? SYNTHETIC_RECORDS : Math.max(1, Math.min(SYNTHETIC_RECORDS, Math.floor((max - first) / DAY_MS) + 1));
  // A UTCDate: date-fns writes its UTC calendar day, whatever the process's time zone.
  const at = (ms: number) => formatDate()(new UTCDate(ms), sourceDatePattern(field));
  return [at(first + ((n - 1) % days) * DAY_MS), at(Number.isNaN(min) ? first : min), at(Number.isNaN(max) ? first : max)];
}

/** A text for record `n` within the field's min_length and max_length, still told apart by its number. */
function textOfLength(base: string, n: number, field: FieldDefinition): string {
  const min = typeof field.min_length === 'number' ? field.min_length : 0;
  const max = typeof field.max_length === 'number' ? field.max_length : Infinity;
  let text = `${base} ${n}`;
  if ([...text].length < min) text = `${base}${'x'.repeat(min - [...text].length)} ${n}`;
  if ([...text].length > max) {
    const number = String(n);
    text = number.length >= max ? number.slice(-max) : [...base].slice(0, max - number.length).join('') + number;
  }
  return text;
}

/** The cells record `n` (1-based) may have for the field, the most natural first. */
function candidates(name: string, field: FieldDefinition, n: number): string[] {
  const label = field.label ?? name;
  switch (field.data_type) {
    case 'email':
      return [`${name.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'user'}${n}@example.com`, `u${n}@example.com`];
    case 'url':
      return [`https://example.com/${encodeURIComponent(name)}/${n}`, `https://example.com/${n}`];
    case 'integer':
    case 'number':
      return numberCandidates(field, n);
    case 'boolean':
      return n % 2 === 1 ? ['true', 'false'] : ['false', 'true'];
    case 'date':
    case 'datetime':
      return dateCandidates(field, n);
    case 'phone':
      // Written with their country code, so any default_region reads them.
      return [`+49 30 ${1234560 + n}`, `+1 212 555 ${1000 + n}`, `+4930${1234560 + n}`, `+1212555${1000 + n}`];
    case 'country': {
      const [alpha2, alpha3] = COUNTRIES[(n - 1) % COUNTRIES.length];
      return [alpha2, alpha3];
    }
    case 'enum': {
      const allowed = (field.allowed_values ?? []).map((a) => a.value);
      const start = allowed.length === 0 ? 0 : (n - 1) % allowed.length;
      return [...allowed.slice(start), ...allowed.slice(0, start), textOfLength(label, n, field)];
    }
    default:
      return [textOfLength(label, n, field), `${label} ${n}`];
  }
}

/**
 * The records of a dry run: a fixed number, derived only from the schema's field names,
 * labels, formats, data types and checks, so the same schema always gives the same records.
 * Each cell is the first of its field's candidates that passes the field's checks after its
 * transformations (type, allowed values, number format, range, length); a field whose pattern
 * none of them matches gets the first, and shows as a problem in the review. No provider and
 * no uploaded content is used. Pure.
 */
export function syntheticRows(fields: Record<string, FieldDefinition>, count = SYNTHETIC_RECORDS): string[][] {
  const entries = Object.entries(fields).map(([name, field]) => {
    const transform = compileTransformations(field);
    const check = compileFieldCheck(field);
    const passes = (cell: string) => check(transform(cell)).problem === null;
    return (n: number) => {
      const cells = candidates(name, field, n);
      return cells.find(passes) ?? cells[0];
    };
  });
  return Array.from({ length: count }, (_, i) => entries.map((cellOf) => cellOf(i + 1)));
}
