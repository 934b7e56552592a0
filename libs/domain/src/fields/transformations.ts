// Each function from its own module: date-fns's index loads all 300 of them, in the API's process and in every worker thread.
import type { format as FormatDate } from 'date-fns/format';
import { isValid } from 'date-fns/isValid';
import type { parse as ParseDate } from 'date-fns/parse';
import { parseISO } from 'date-fns/parseISO';
import { UTCDate, utc } from '@date-fns/utc';
import type { FieldDefinition } from '@app/contracts';
import { compileDatePattern, partsOfDate, type CompiledDatePattern, type DateParts } from './date-pattern';
import { ISO_DATE_TIME, readIsoDate } from './iso-date';
import { onFirstUse } from './on-first-use';

/*
 * date-fns's general parser and writer serve only patterns outside the compiled set
 * (date-pattern.ts): loaded on first use, since `parse` alone (all its token parsers) was the
 * largest part of a file-work thread's start, 50-90 ms (bench/README.md, "A file-work thread's start").
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
const parseDate = onFirstUse(() => (require('date-fns/parse') as { parse: typeof ParseDate }).parse);
/** date-fns's `format`, loaded on first use (also the synthetic records' writer). */
export const formatDate = onFirstUse(() => (require('date-fns/format') as { format: typeof FormatDate }).format);
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Field transformations, applied after mapping in a fixed order whatever the order of
 * keys in the schema: trim_whitespace, date_format, uppercase, lowercase. Patterns use
 * Unicode date tokens (date-fns): `dd/MM/yyyy`, `yyyy-MM-dd`. A date that does not
 * parse with `from` is left as it was (and then fails a `date` data_type check).
 */
export const KNOWN_TRANSFORMATIONS = ['trim_whitespace', 'date_format', 'uppercase', 'lowercase'] as const;

const REFERENCE_DATE = new UTCDate(2000, 0, 1);

/**
 * date-fns's general parser: the reference for patterns outside the compiled set. It reads in UTC:
 * a text without a zone as written, one with a zone (`Z`, `+02:00`, a pattern's `XXX`) at its UTC
 * time, and writes back the same way (a UTCDate). Read in the process's time zone, as before
 * 2026-11-30, "2024-01-31T23:30:00-05:00" was a different day in Tokyo and in Los Angeles, so a
 * range check or a date_format gave answers that depended on the host.
 */
function parseDateSlowly(value: string, pattern: string | null | undefined): Date | null {
  if (!pattern && !ISO_DATE_TIME.test(value)) return null;
  if (pattern && hasZoneToken(pattern) && FAR_ZONE.test(value)) return null;
  const d = pattern ? parseDate()(value, pattern, REFERENCE_DATE, { in: utc }) : parseISO(value, { in: utc });
  if (!isValid(d)) return null;
  return pattern && asksFullYear(pattern) && d.getUTCFullYear() < FULL_YEARS_FROM ? null : d;
}

/** A zone offset no place has (more than 14 hours from UTC) at the end of a text, and a pattern's zone tokens. */
const FAR_ZONE = /[+-](?:(?:1[5-9]|[2-9]\d)(?::?\d{2})?|14:?(?:0[1-9]|[1-5]\d))$/;
const hasZoneToken = (pattern: string): boolean => /[Xx]/.test(pattern.replace(/'[^']*'?/g, ''));

/**
 * A pattern whose year has four letters or more (`yyyy`) asks for the year in full. date-fns
 * reads up to that many digits, so `20-1-5` in `yyyy-MM-dd` is the year 20 and `1/2/24` in
 * `dd/MM/yyyy` the year 24, where the writer almost surely meant 2020 and 2024: such a value is
 * no date (a type problem the reviewer sees), as it was before only for `0000`. Once read, a short
 * year cannot be told from one written with leading zeros, so a year before 1000 goes with it.
 */
const asksFullYear = (pattern: string): boolean => /y{4,}|u{4,}|Y{4,}|R{4,}/.test(pattern.replace(/'[^']*'?/g, ''));
const FULL_YEARS_FROM = 1000;

/**
 * The compiled reader of a pattern (date-pattern.ts, date-fns's reading), with a full year where it asks for one and
 * no zone more than 14 hours from UTC at the end of the text (as parseDateSlowly).
 */
function compiledReader(pattern: string): CompiledDatePattern | null {
  const compiled = compileDatePattern(pattern);
  const fullYear = asksFullYear(pattern);
  const zoned = hasZoneToken(pattern);
  if (!compiled || (!fullYear && !zoned)) return compiled;
  return {
    ...compiled,
    parse: (text) => {
      if (zoned && FAR_ZONE.test(text)) return null;
      const parts = compiled.parse(text);
      return parts !== null && (!fullYear || parts.year >= FULL_YEARS_FROM) ? parts : null;
    },
  };
}

/**
 * A pattern date-fns can both write and read a date in: unknown letters are refused, as date-fns
 * refuses them, and so are tokens it writes but cannot read ("zzz", "O"), since a field's pattern
 * is read with as well as written in. date-fns throws for such a pattern on every value, which
 * a run met as a file that could not be read.
 */
export function isDatePattern(pattern: string): boolean {
  if (compileDatePattern(pattern)) return true;
  try {
    // Read back what it wrote: date-fns stops reading at the first token the text does not match, so
    // only a text written in the pattern takes the read through every token, an unreadable one too.
    parseDate()(formatDate()(REFERENCE_DATE, pattern), pattern, REFERENCE_DATE);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a pattern was given and is none (isDatePattern): one stored before patterns were checked.
 * It reads and writes no date. No pattern at all is not this: it means ISO 8601.
 */
const unusable = (pattern: string | null | undefined): boolean => !!pattern && !isDatePattern(pattern);

/** Compiles a date check: true when `value` is a date written in `pattern` (ISO 8601 when none). */
export function compileDateCheck(pattern: string | null | undefined): (value: string) => boolean {
  if (unusable(pattern)) return () => false;
  if (!pattern) return (value) => readIsoDate(value) !== null;
  const compiled = compiledReader(pattern);
  if (compiled) return (value) => compiled.parse(value) !== null;
  return (value) => parseDateSlowly(value, pattern) !== null;
}

/**
 * Compiles a date reader: the calendar parts of a date written in `pattern`, or in ISO 8601
 * (a date or a date-time, as the data_type check accepts it); null for anything else.
 */
export function compileDateReader(given: string | null | undefined): (value: string) => DateParts | null {
  const pattern = unusable(given) ? null : given;
  const compiled = pattern ? compiledReader(pattern) : null;
  const inPattern = (value: string): DateParts | null => {
    if (compiled) return compiled.parse(value);
    const d = pattern ? parseDateSlowly(value, pattern) : null;
    return d ? partsOfDate(d) : null;
  };
  return (value) => inPattern(value) ?? readIsoDate(value);
}

/** Compiles a date_format transformation: rewrites a date from `from` (ISO when absent) to `to`; anything else is kept. */
export function compileDateRewrite(from: string | null, to: string): (value: string) => string {
  if (unusable(from) || unusable(to)) return (value) => value;
  const writer = compileDatePattern(to)?.format ?? null;
  const reader: Pick<CompiledDatePattern, 'parse'> | null = from ? compiledReader(from) : { parse: readIsoDate };
  // A year the field's own check would refuse is not written: `0999-12-31` (ISO) into `dd.MM.yyyy` stays as it was.
  // Nor is a year before 1 (ISO's 0000, or a zone's move from it): date-fns writes the year of its era (0 as 1, -1 as
  // 2) with no era to tell, which read back as a year after Christ (a probe: 0000-01-01 into y-MM-dd was 1-01-01).
  const writable = asksFullYear(to) ? (year: number) => year >= FULL_YEARS_FROM : (year: number) => year >= 1;
  // A UTCDate (parseDateSlowly): date-fns writes its UTC time, and a zone token in `to` writes `Z`.
  const write = (d: Date): string => (writer ? writer(partsOfDate(d)) : formatDate()(d, to));
  if (reader && writer) {
    return (value) => {
      const parts = reader.parse(value.trim());
      return parts && writable(parts.year) ? writer(parts) : value;
    };
  }
  return (value) => {
    const d = parseDateSlowly(value.trim(), from);
    return d && writable(d.getUTCFullYear()) ? write(d) : value;
  };
}

function isEnabled(field: FieldDefinition, name: string): boolean {
  return field.transformations?.[name]?.enabled === true;
}

/** The `to` of a field's enabled date_format when it is a date pattern: the form every date the field writes is in. */
export function dateFormatWrittenTo(field: FieldDefinition): string | null {
  if (!isEnabled(field, 'date_format')) return null;
  const to: unknown = field.transformations!.date_format.to;
  return typeof to === 'string' && to !== '' && isDatePattern(to) ? to : null;
}

/**
 * Compiles a field's enabled transformations, once per run, into one function applied to
 * every value: patterns are parsed here, not per row.
 */
export function compileTransformations(field: FieldDefinition): (value: string) => string {
  const steps: ((v: string) => string)[] = [];
  if (isEnabled(field, 'trim_whitespace')) steps.push((v) => v.trim());
  if (isEnabled(field, 'date_format')) {
    const opts = field.transformations!.date_format;
    const to = typeof opts.to === 'string' && opts.to ? opts.to : null;
    const from = typeof opts.from === 'string' && opts.from ? opts.from : null;
    if (to) {
      const reformat = compileDateRewrite(from, to);
      steps.push((v) => (v === '' ? v : reformat(v)));
    }
  }
  if (isEnabled(field, 'uppercase')) steps.push((v) => v.toUpperCase());
  if (isEnabled(field, 'lowercase')) steps.push((v) => v.toLowerCase());
  if (steps.length === 0) return (v) => v;
  return (value) => {
    let v = value;
    for (const step of steps) v = step(v);
    return v;
  };
}

/**
 * The field's text rules alone (trim_whitespace, uppercase, lowercase, in that order): they
 * hold for values a reviewer writes too. Unlike date_format, applying them twice changes nothing.
 */
export function compileTextRules(field: FieldDefinition): ((value: string) => string) | null {
  const trim = isEnabled(field, 'trim_whitespace');
  const upper = isEnabled(field, 'uppercase');
  const lower = isEnabled(field, 'lowercase');
  if (!trim && !upper && !lower) return null;
  return (value) => {
    let v = trim ? value.trim() : value;
    if (upper) v = v.toUpperCase();
    if (lower) v = v.toLowerCase();
    return v;
  };
}

/** Returns the value after the field's enabled transformations. Pure; compiles per call (use compileTransformations for many values). */
export function applyTransformations(value: string, field: FieldDefinition): string {
  return compileTransformations(field)(value);
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
      else if (!isDatePattern(to)) problems.push(`date_format "to" must be a date pattern such as yyyy-MM-dd; "${to}" is not one.`);
      if (from !== undefined && from !== null && typeof from !== 'string') problems.push('date_format "from" must be a pattern string.');
      else if (typeof from === 'string' && from && !isDatePattern(from))
        problems.push(`date_format "from" must be a date pattern such as dd/MM/yyyy; "${from}" is not one.`);
    }
  }
  return problems;
}
