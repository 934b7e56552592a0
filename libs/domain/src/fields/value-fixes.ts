import type { FieldDefinition, Normaliser, RowFix, ValueFix } from '@app/contracts';
import { NORMALISERS, compileNormaliser } from './normalisers';
import { isRowFix } from './row-fix';
import { MAX_FIX_TEXT } from './fix-limits';
import { decimalMarkOf } from './number-format';
import { suitsField, normalisersFor } from './suited-normalisers';
import { compileTextRules, isDatePattern } from './transformations';

/** A reviewer's fix still in force, as the run keeps it (ValuesFixed, not undone). */
export interface AppliedFix {
  fix_id: string;
  field: string;
  fix: ValueFix;
  fixed_at: string;
}

/** The pattern a date field delivers: its date_format's `to`, else its `format`, else ISO. */
export function deliveredDatePattern(field: FieldDefinition): string {
  const to = field.transformations?.date_format?.enabled ? field.transformations.date_format.to : null;
  if (typeof to === 'string' && to) return to;
  // A datetime keeps its time (ISO 8601 without a zone); a date is a day.
  return field.format || (field.data_type === 'datetime' ? "yyyy-MM-dd'T'HH:mm:ss" : 'yyyy-MM-dd');
}

/** A step of the value's fixes; `limit` is the longest a find-and-replace may make it (fixedValueLimit). */
type ValueStep = (v: string, limit: number) => string;
type Step = { kind: 'value'; apply: ValueStep } | { kind: 'cells'; edits: Map<number, { before: string; after: string }[]> };

function valueStep(fix: Exclude<ValueFix, { kind: 'cell' } | RowFix>, field: FieldDefinition): ValueStep {
  if (fix.kind === 'picklist') {
    const values = new Map(Object.entries(fix.values));
    return (v) => values.get(v.trim()) ?? v;
  }
  if (fix.kind === 'replace') {
    const { find, replace } = fix;
    if (fix.whole_value) {
      // The page shows a value without the blanks around it (" A1 " reads "A1"): a whole value is matched as it was
      // seen, or the one with blanks would stay as it was, unsaid. Blanks alone are matched as typed.
      const seen = find.trim();
      if (seen === '') return (v) => (v === find ? replace : v);
      return (v) => (v === find || v.trim() === seen ? replace : v);
    }
    return (v, limit) => {
      if (!v.includes(find)) return v;
      const parts = v.split(find);
      // Fixes chained on one field could otherwise multiply a value's length past any memory ("a" -> 1,000 a's, twice).
      const length = v.length + (parts.length - 1) * (replace.length - find.length);
      return length > limit && length > v.length ? v : parts.join(replace);
    };
  }
  return compileNormaliser(fix.normaliser, {
    decimal_separator: fix.decimal_separator,
    output_decimal: field.number_format ? decimalMarkOf(field.number_format) : '.',
    whole_number: field.data_type === 'integer',
    date_pattern: fix.date_pattern,
    target_pattern: deliveredDatePattern(field),
  });
}

/**
 * Compiles one field's fixes, in the order they were made, into a function of a value and
 * its row number (null when the field has none, so rows without fixes cost nothing). Cell
 * edits made one after another are looked up by row in one map; each applies only while
 * the value still reads what the reviewer saw (`before`; a blank value reads ""). Each step's
 * result gets the field's text rules (trim, case), which hold for what a reviewer writes too,
 * so a later edit sees what the page showed; date_format does not apply again (it reads the
 * source's dates: a reviewer writes a date as it is delivered). Pure.
 */
export function compileFieldFixes(fixes: readonly AppliedFix[], fieldName: string, field: FieldDefinition) {
  const steps: Step[] = [];
  // A picklist's value mapping is saved whole each time: the latest one of the field replaces the earlier ones.
  const latestPicklist = [...fixes].reverse().find((f) => f.field === fieldName && f.fix.kind === 'picklist');
  for (const applied of fixes) {
    const { field: name, fix } = applied;
    // A fix of a whole row (rows-left-out.ts) changes no value.
    if (name !== fieldName || isRowFix(fix)) continue;
    if (fix.kind === 'picklist' && applied !== latestPicklist) continue;
    if (fix.kind !== 'cell') {
      steps.push({ kind: 'value', apply: valueStep(fix, field) });
      continue;
    }
    let last = steps[steps.length - 1];
    if (last?.kind !== 'cells') steps.push((last = { kind: 'cells', edits: new Map() }));
    const edits = last.edits.get(fix.row) ?? [];
    edits.push({ before: fix.before, after: fix.after });
    last.edits.set(fix.row, edits);
  }
  if (steps.length === 0) return null;
  const rules = compileTextRules(field) ?? ((v: string) => v);
  return (value: string, row: number): string => {
    let v = value;
    const limit = fixedValueLimit(value);
    for (const step of steps) {
      if (step.kind === 'value') {
        v = rules(step.apply(v, limit));
        continue;
      }
      for (const edit of step.edits.get(row) ?? []) if (cellEditApplies(v, edit.before)) v = rules(edit.after);
    }
    return v;
  };
}

/**
 * Whether a cell edit made on `before` applies to a cell that reads `value` (as the fixes see
 * it: cellOf). The page shows a blank value as empty: an edit made on "" applies to any blank
 * value. The one rule of both the fixes (compileFieldFixes) and the refusal of an edit whose
 * `before` is stale (decide, FixValues with `cell_read`).
 */
export const cellEditApplies = (value: string, before: string): boolean => value === before || (before === '' && value.trim() === '');

/** How many fixes a run keeps in force: each is folded into the run's document. */
export const MAX_VALUE_FIXES = 1000;
/**
 * The longest a find-and-replace may make a value: ten times the value as read, or
 * MAX_FIX_TEXT when that is more. A step that would grow it past that leaves it as the step
 * found it (a shorter result always applies). Chained replaces are what could grow a value
 * without bound; a cell edit, a whole-value replace or a picklist gives one of at most
 * MAX_FIX_TEXT, so no fix makes a value longer than either bound.
 */
export const fixedValueLimit = (original: string): number => Math.max(MAX_FIX_TEXT, 10 * original.length);
/** All fixes in force of a run, written as JSON, at most (the run's document stays far below MongoDB's 16 MB). */
export const MAX_FIXES_BYTES = 1_000_000;

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_FIX_TEXT;

/**
 * Reads a fix as a reviewer's request gives it; the messages say what is wrong. `totalRows`
 * bounds a cell edit's row when the run knows it. Pure.
 */
export function readValueFix(
  input: unknown,
  totalRows: number | null,
  field?: FieldDefinition,
): { fix: ValueFix } | { problems: string[] } {
  const o = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const textProblem = (name: string) => `${name} must be text of at most ${MAX_FIX_TEXT} characters.`;
  switch (o.kind) {
    case 'cell': {
      const row = o.row;
      if (!Number.isInteger(row) || (row as number) < 1 || (totalRows !== null && (row as number) > totalRows))
        problems.push(`row must be a data row's number, from 1${totalRows !== null ? ` to ${totalRows}` : ''}.`);
      if (!isText(o.before)) problems.push(textProblem('before'));
      if (!isText(o.after)) problems.push(textProblem('after'));
      return problems.length
        ? { problems }
        : { fix: { kind: 'cell', row: row as number, before: o.before as string, after: o.after as string } };
    }
    case 'replace':
      if (!isText(o.find) || o.find === '') problems.push(`find must be text of 1 to ${MAX_FIX_TEXT} characters.`);
      if (!isText(o.replace)) problems.push(textProblem('replace'));
      if (o.whole_value !== undefined && typeof o.whole_value !== 'boolean') problems.push('whole_value must be true or false.');
      return problems.length
        ? { problems }
        : { fix: { kind: 'replace', find: o.find as string, replace: o.replace as string, whole_value: o.whole_value === true } };
    case 'normalise': {
      const normaliser = o.normaliser as Normaliser;
      if (!(NORMALISERS as readonly unknown[]).includes(normaliser)) problems.push(`normaliser must be one of ${NORMALISERS.join(', ')}.`);
      const decimal = o.decimal_separator;
      if (decimal !== undefined && decimal !== ',' && decimal !== '.') problems.push('decimal_separator must be "," or ".".');
      const pattern = o.date_pattern;
      if (normaliser === 'date' && (!isText(pattern) || pattern.trim() === '' || !isDatePattern(pattern)))
        problems.push('date_pattern must be a date pattern such as dd.MM.yyyy.');
      if (field && problems.length === 0 && !suitsField(normaliser, field.data_type))
        problems.push(
          `The ${normaliser} normaliser does not suit a field of data_type "${field.data_type}"; it offers ${normalisersFor(field.data_type).join(', ')}.`,
        );
      if (problems.length) return { problems };
      return {
        fix: {
          kind: 'normalise',
          normaliser,
          ...(normaliser === 'amount' && decimal ? { decimal_separator: decimal as ',' | '.' } : {}),
          ...(normaliser === 'date' ? { date_pattern: pattern as string } : {}),
        },
      };
    }
    case 'picklist': {
      const allowed = new Set((field?.data_type === 'enum' ? (field.allowed_values ?? []) : []).map((a) => a.value));
      if (allowed.size === 0) return { problems: ['A picklist mapping is only for fields of data_type "enum".'] };
      const values = o.values;
      if (!values || typeof values !== 'object' || Array.isArray(values))
        return { problems: ['values must be an object of value to allowed value.'] };
      const entries = Object.entries(values as Record<string, unknown>);
      if (entries.length > MAX_FIX_TEXT / 10) problems.push(`values may name at most ${MAX_FIX_TEXT / 10} values.`);
      for (const [from, to] of entries) {
        if (from.length > MAX_FIX_TEXT) problems.push(textProblem('Each value'));
        if (typeof to !== 'string' || !allowed.has(to)) problems.push(`"${from}" must map to one of the allowed values.`);
      }
      return problems.length ? { problems } : { fix: { kind: 'picklist', values: Object.fromEntries(entries) as Record<string, string> } };
    }
    default:
      return {
        problems: [
          'kind must be "cell", "replace", "normalise" or "picklist" (or, without a field, "leave_out", "put_back", "leave_out_hidden" or "put_back_hidden").',
        ],
      };
  }
}

/**
 * Names the fixes in force: fixes are only added at the end and undone from the end, and
 * every fix has its own id, so their number and the last id name the whole list.
 */
export const fixesKey = (fixes: readonly AppliedFix[]): string => `${fixes.length}:${fixes.at(-1)?.fix_id ?? ''}`;

/**
 * Names the fixes in force that one cell's value depends on besides the mapping: its field's
 * fixes (compileFieldFixes reads no other), but for cell edits of its other rows. They too are
 * only added and undone at the end, so their number and the last id name them.
 */
export const cellFixesKey = (fixes: readonly AppliedFix[], field: string, row: number): string =>
  fixesKey(fixes.filter((f) => f.field === field && (f.fix.kind !== 'cell' || f.fix.row === row)));
