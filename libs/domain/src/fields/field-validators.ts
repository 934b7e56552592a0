import type { RE2JS as RE2JSClass } from 're2js';
import type { FieldDefinition } from '@app/contracts';
import type { CellProblem } from './cell-problems';
import type { DateParts } from './date-pattern';
import { rememberResults } from './remembered-results';
import { compileDateReader } from './transformations';
import { digitsValue } from './digits';
import { compileTypeCheck, datePatternChecked, isPlainIsoDay, type TypedValue } from './typed-value';
import { onFirstUse } from './on-first-use';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (on-first-use.ts): a schema without a pattern never needs them */
const RE2 = onFirstUse(() => (require('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS);
const safeRegex = onFirstUse(() => require('safe-regex2') as (pattern: string) => boolean);
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The validators a field definition may carry beside its data_type (docs/api.md, "Validators"):
 * `pattern`, `min`/`max`, `min_length`/`max_length` and `unique`, and the schema's `unique_with`.
 * Here: their checks when a schema is saved, and the per-value checks compiled once per run
 * (uniqueness needs the whole file: run-source's duplicate-values.ts).
 */

/** The longest pattern a schema may hold. */
const MAX_PATTERN_LENGTH = 1000;

const RANGE_TYPES = new Set(['number', 'integer', 'date', 'datetime']);
const DATE_TYPES = new Set(['date', 'datetime']);

interface Problem {
  at: string;
  problem: string;
}

const isPresent = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * Why a pattern cannot be used, or null when it can. It must be read the same way by RE2 (which
 * runs it: linear time, so no backreferences or lookaround) and by JavaScript, and be free of
 * nested repetition such as `(a+)+`, which backtracking engines (the customer's own, where the
 * pattern is reused) take exponential time on: safe-regex2 judges that.
 */
export function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== 'string' || pattern === '') return 'The pattern must be a non-empty string.';
  if (pattern.length > MAX_PATTERN_LENGTH) return `The pattern must not be longer than ${MAX_PATTERN_LENGTH} characters.`;
  try {
    RE2().compile(pattern);
  } catch (err) {
    return `The pattern is not a regular expression RE2 accepts (backreferences and lookaround are not supported): ${(err as Error).message}.`;
  }
  try {
    new RegExp(pattern);
  } catch {
    return 'The pattern must be written in the syntax RE2 and JavaScript share (no inline flags such as (?i)).';
  }
  if (!safeRegex()(pattern))
    return 'The pattern can backtrack catastrophically (a repeated group inside a repetition, such as (a+)+): write it without nested repetition.';
  return null;
}

/** A date bound of min/max as a comparable number, or null when it is not an ISO 8601 date or date-time. */
const readIsoBound = compileDateReader(null);
const ISO_DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Calendar parts as one number that sorts as the dates do (no time zone: as written). */
const dateKey = (p: DateParts): number => ((((p.year * 100 + p.month) * 100 + p.day) * 100 + p.hour) * 100 + p.minute) * 100 + p.second;

/** dateKey of a day written yyyy-MM-dd (isPlainIsoDay said so) at midnight, by arithmetic: no parts object per cell. */
const isoDayKey = (text: string): number =>
  (digitsValue(text, 0, 4) * 10_000 + digitsValue(text, 5, 7) * 100 + digitsValue(text, 8, 10)) * 1_000_000;

/** A bound as a number: the number itself, or a date's key (a date-only max takes its whole day). */
function boundOf(value: unknown, dataType: string, which: 'min' | 'max'): number | null {
  if (!DATE_TYPES.has(dataType)) return typeof value === 'number' && Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const parts = readIsoBound(value.trim());
  if (!parts) return null;
  const wholeDay = which === 'max' && ISO_DATE_ONLY.test(value.trim());
  return dateKey(wholeDay ? { ...parts, hour: 23, minute: 59, second: 59 } : parts);
}

const isLength = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1_000_000;

/** The problems of a field definition's validators (paths relative to the field). */
export function validateFieldValidators(def: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const dataType = typeof def.data_type === 'string' ? def.data_type : '';
  if (isPresent(def.pattern)) {
    const problem = patternProblem(def.pattern);
    if (problem) problems.push({ at: 'pattern', problem });
  }
  const bounds: Partial<Record<'min' | 'max', number>> = {};
  for (const which of ['min', 'max'] as const) {
    if (!isPresent(def[which])) continue;
    if (!RANGE_TYPES.has(dataType)) {
      problems.push({
        at: which,
        problem: `${which} applies to number, integer, date and datetime fields only (for the length of text, use min_length and max_length).`,
      });
      continue;
    }
    const bound = boundOf(def[which], dataType, which);
    if (bound === null) {
      problems.push({
        at: which,
        problem: DATE_TYPES.has(dataType)
          ? `${which} must be an ISO 8601 date or date-time string (2024-01-31 or 2024-01-31T08:00:00).`
          : `${which} must be a finite number.`,
      });
    } else bounds[which] = bound;
  }
  if (bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max)
    problems.push({ at: 'min', problem: 'min must not be greater than max.' });
  for (const which of ['min_length', 'max_length'] as const) {
    if (isPresent(def[which]) && !isLength(def[which]))
      problems.push({ at: which, problem: `${which} must be an integer from 0 to 1000000.` });
  }
  if (isLength(def.min_length) && isLength(def.max_length) && def.min_length > def.max_length)
    problems.push({ at: 'min_length', problem: 'min_length must not be greater than max_length.' });
  if (def.unique !== undefined && typeof def.unique !== 'boolean')
    problems.push({ at: 'unique', problem: 'unique must be true or false.' });
  return problems;
}

/** The problems of a schema's `unique_with`: a list of sets (lists) of two or more of its field names, each named once. */
export function validateUniqueWith(value: unknown, fieldNames: readonly string[]): Problem[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [{ at: 'unique_with', problem: 'unique_with must be a list of lists of field names.' }];
  const known = new Set(fieldNames);
  const problems: Problem[] = [];
  value.forEach((set: unknown, i) => {
    const at = `unique_with.${i}`;
    if (!Array.isArray(set) || set.length < 2 || !set.every((f) => typeof f === 'string')) {
      problems.push({ at, problem: 'Each entry of unique_with must be a list of two or more field names.' });
      return;
    }
    const unknown = set.filter((f) => !known.has(f));
    if (unknown.length > 0) problems.push({ at, problem: `The schema has no field named ${unknown.map((f) => `"${f}"`).join(', ')}.` });
    if (new Set(set).size !== set.length) problems.push({ at, problem: 'A field may be named only once in a set of unique_with.' });
  });
  return problems;
}

/** The groups of fields whose values must be unique (alone or together), in the schema's order: what the duplicates pass looks for. */
export function uniquenessGroups(schema: { fields: Record<string, FieldDefinition>; unique_with?: string[][] }): string[][] {
  const alone = Object.entries(schema.fields)
    .filter(([, f]) => f.unique === true)
    .map(([name]) => [name]);
  return [...alone, ...(schema.unique_with ?? []).filter((set) => set.every((f) => Object.hasOwn(schema.fields, f)))];
}

/** Characters of a text as people count them: Unicode code points (an emoji is one, not two UTF-16 units). */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * A pattern's test, compiled once per run. It runs on RE2 (re2js), whose time is linear in the
 * value's length, about 1-3 µs a value. V8's own RegExp would be several times quicker but
 * backtracks: patterns a schema may hold (safe-regex2 lets `(a|a)*$` and `\d*\d*\d*x` through)
 * take it exponential or polynomial time, and its `\s` and `.` do not mean what RE2's do, so it
 * is never used. Instead the verdict of each short value is remembered, as columns with a
 * pattern often repeat a few values (codes, categories); when a round of look-ups finds mostly
 * new values (e-mail addresses, ids) the memory is turned off and every value goes to RE2.
 */
function compilePatternTest(pattern: string, remembered: number | undefined): (text: string) => boolean {
  const re = RE2().compile(pattern);
  return rememberResults(
    (text) => re.test(text),
    (verdict) => verdict,
    remembered,
  );
}

/** The check of a value already of the field's type: its text (trimmed) and typed value; the kind of its problem or null. */
export type ValueCheck = (text: string, typed: string | number | boolean | null) => CellProblem | null;

/**
 * Compiles a field's pattern, range and length checks once per run (null when it has none).
 * Each runs on a non-empty value that passed the type check, in that order: a cell has one
 * problem, the first found. Patterns run on RE2 (re2js), in time linear in the value's length.
 * `remembered`: how many pattern verdicts to remember (rememberedShare of the read's fields).
 */
export function compileValueCheck(field: FieldDefinition, remembered?: number): ValueCheck | null {
  const checks: ValueCheck[] = [];
  if (typeof field.pattern === 'string' && field.pattern !== '') {
    const matches = compilePatternTest(field.pattern, remembered);
    checks.push((text) => (matches(text) ? null : 'pattern'));
  }
  const range = compileRangeCheck(field);
  if (range) checks.push(range);
  const min = typeof field.min_length === 'number' ? field.min_length : null;
  const max = typeof field.max_length === 'number' ? field.max_length : null;
  if (min !== null || max !== null) {
    checks.push((text) => {
      const n = codePointLength(text);
      return (min !== null && n < min) || (max !== null && n > max) ? 'length' : null;
    });
  }
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0];
  return (text, typed) => {
    for (const check of checks) {
      const problem = check(text, typed);
      if (problem) return problem;
    }
    return null;
  };
}

function compileRangeCheck(field: FieldDefinition): ValueCheck | null {
  if (!RANGE_TYPES.has(field.data_type)) return null;
  const min = isPresent(field.min) ? boundOf(field.min, field.data_type, 'min') : null;
  const max = isPresent(field.max) ? boundOf(field.max, field.data_type, 'max') : null;
  if (min === null && max === null) return null;
  const outside = (n: number): boolean => (min !== null && n < min) || (max !== null && n > max);
  if (!DATE_TYPES.has(field.data_type)) return (_text, typed) => (typeof typed === 'number' && outside(typed) ? 'range' : null);
  const pattern = datePatternChecked(field);
  const read = compileDateReader(pattern);
  // The field's own pattern reads a value first: under `yyyy-dd-MM`, 2024-01-05 is the 1st of May, not the 5th of January.
  const isoDayFirst = pattern === null || pattern === 'yyyy-MM-dd';
  return (text) => {
    // The common yyyy-MM-dd by arithmetic, as the type check reads it; other forms through the field's format, then ISO.
    if (isoDayFirst && isPlainIsoDay(text)) return outside(isoDayKey(text)) ? 'range' : null;
    const parts = read(text);
    return parts && outside(dateKey(parts)) ? 'range' : null;
  };
}

/**
 * A field's whole check, compiled once per run: is_required and data_type first, then the
 * pattern, range and length of a value of the right type. A value that fails them is kept
 * (typed, as it passed the type check) and reported with the kind of its problem. `typeCheck`:
 * the field's compileTypeCheck, when the caller has compiled it already. `remembered`: how many pattern
 * verdicts to remember (planFields gives each field its rememberedShare).
 */
export function compileFieldCheck(
  field: FieldDefinition,
  typeCheck = compileTypeCheck(field),
  remembered?: number,
): (raw: string) => TypedValue {
  const valueCheck = compileValueCheck(field, remembered);
  if (valueCheck === null) return typeCheck;
  return (raw) => {
    const typed = typeCheck(raw);
    if (typed.problem !== null || typed.value === null) return typed;
    const problem = valueCheck(raw.trim(), typed.value);
    // Of the right type, so written typed (a number stays a number): the problem is reported beside it.
    return problem === null ? typed : { value: typed.value, problem };
  };
}
