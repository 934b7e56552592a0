import type { FieldDefinition, MappingRule } from '@app/contracts';
import { compileTransformations } from './transformations';
import type { CellProblem } from './cell-problems';
import { compileFieldCheck } from './field-validators';
import { RememberedResults, rememberedShare } from './remembered-results';
import { compileTypeCheck, type TypeCheckOptions, type TypedValue, writesCheckedText } from './typed-value';
import { compileFieldFixes, type AppliedFix } from './value-fixes';
import { plainNumberText } from './exact-number';

export interface FieldPlan {
  name: string;
  field: FieldDefinition;
  /** Column index in the source row; -1 when the field is not mapped. */
  column: number;
  /** The field's transformations, compiled once for the whole run. */
  transform: (value: string) => string;
  /** The reviewer's fixes of the field's values (after the transformations); null when none. */
  fix: ((value: string, row: number) => string) | null;
  /** The field's checks (required, data_type, pattern, range, length), compiled once for the whole run. */
  check: (value: string) => TypedValue;
  /** Only required and data_type: the typed value without the pattern, range and length checks (what uniqueness compares). */
  typeCheck: (value: string) => TypedValue;
  /** Text output (CSV) writes the checked value of a valid cell, not the text as read (writesCheckedText). */
  checkedText: boolean;
  /** Whether the field's value in a data row (by its number) repeats where it must be unique; null when the field need not be. */
  duplicate: ((rowNumber: number) => boolean) | null;
}

/**
 * Per field, the data rows (bit n for row n, from 1) whose value of the field, alone or
 * together with the others of a unique_with set, appears more than once in the file:
 * found by a whole-file pass before the rows are checked (run-source's duplicate-values.ts),
 * so a row's verdict does not depend on the rows read before it.
 */
export type DuplicateRows = Record<string, Uint8Array>;

const isMarked = (bits: Uint8Array, row: number): boolean => (bits[row >> 3] & (1 << (row & 7))) !== 0;

/**
 * Resolves a mapping to column indexes once, so each row is mapped by index; the run's fixes
 * and the fields' checks are compiled per field. `duplicates` is the duplicates pass's answer
 * for the same run, mapping and fixes (null: uniqueness is not checked). `options`: where the values come from
 * (a workbook's number cells read as numbers).
 */
export function planFields(
  fields: Record<string, FieldDefinition>,
  mapping: MappingRule,
  headers: string[],
  fixes: readonly AppliedFix[] = [],
  duplicates: DuplicateRows | null = null,
  options: TypeCheckOptions = {},
): FieldPlan[] {
  const index = new Map(headers.map((h, i) => [h, i]));
  const remembered = rememberedShare(Object.keys(fields).length);
  return Object.entries(fields).map(([name, field]) => {
    const header = mapping[name];
    const typeCheck = compileTypeCheck(field, options);
    return {
      name,
      field,
      column: header == null ? -1 : (index.get(header) ?? -1),
      transform: compileTransformations(field),
      fix: compileFieldFixes(fixes, name, field),
      check: compileFieldCheck(field, typeCheck, remembered),
      typeCheck,
      checkedText: writesCheckedText(field),
      duplicate: duplicates && Object.hasOwn(duplicates, name) ? (row: number) => isMarked(duplicates[name], row) : null,
    };
  });
}

/**
 * A field's cell of a source row, after the field's transformations and the reviewer's
 * fixes (empty when the field is not mapped). `rowNumber` counts data rows from 1.
 */
export function cellOf(p: FieldPlan, row: string[], rowNumber: number): string {
  const value = p.transform(p.column >= 0 ? (row[p.column] ?? '') : '');
  return p.fix === null ? value : p.fix(value, rowNumber);
}

/** The problem of a field's cell in a source row: its own checks first, then whether its value repeats where it must be unique. */
export function cellProblem(p: FieldPlan, row: string[], rowNumber: number): CellProblem | null {
  const problem = p.check(cellOf(p, row, rowNumber)).problem;
  if (problem !== null) return problem;
  return p.duplicate !== null && p.duplicate(rowNumber) ? 'unique' : null;
}

/**
 * cellProblem for every row of a read, compiled once per field (`remembered`: the field's
 * rememberedShare of the plan). Without a reviewer's fixes a
 * cell's own problem depends on its text alone, so a repeated value's is remembered
 * (RememberedResults: categories, cities and dates cost a look-up, a column of new values turns
 * the memory off); whether the value repeats where it must be unique is per row, as before.
 */
export function compileCellProblem(p: FieldPlan, remembered: number): (row: string[], rowNumber: number) => CellProblem | null {
  if (p.fix !== null) return (row, rowNumber) => cellProblem(p, row, rowNumber);
  const memory = new RememberedResults<CellProblem | null>((problem) => problem, remembered);
  const own = (raw: string): CellProblem | null => {
    const known = memory.recall(raw);
    if (known !== undefined) return known;
    const problem = p.check(p.transform(raw)).problem;
    return memory.on ? memory.remember(raw, problem) : problem;
  };
  return (row, rowNumber) =>
    own(p.column >= 0 ? (row[p.column] ?? '') : '') ?? (p.duplicate !== null && p.duplicate(rowNumber) ? 'unique' : null);
}

export interface MappedRow {
  record: Record<string, string | number | boolean | null>;
  problems: { field: string; problem: CellProblem }[];
}

/**
 * One source row in target shape: the mapped cell, transformed, then typed and checked.
 * `typed` false keeps every value as text (CSV output): as read, or normalised for the fields
 * whose check normalises (numbers in a number_format with a `.` decimal point, E.164, countries,
 * a picklist's allowed value without the blanks around it). Pure.
 */
export function mapRow(row: string[], rowNumber: number, plan: FieldPlan[], typed: boolean): MappedRow {
  const record: MappedRow['record'] = {};
  const problems: MappedRow['problems'] = [];
  for (const p of plan) {
    const value = cellOf(p, row, rowNumber);
    const checked = p.check(value);
    const problem = checked.problem ?? (p.duplicate !== null && p.duplicate(rowNumber) ? 'unique' : null);
    if (problem) problems.push({ field: p.name, problem });
    // What the check reads as empty (blanks alone too) is empty in both outputs: null in JSON, an empty cell in CSV.
    record[p.name] =
      typed || checked.value === null
        ? checked.value
        : p.checkedText && checked.problem === null
          ? typeof checked.value === 'number'
            ? plainNumberText(checked.value)
            : String(checked.value)
          : value;
  }
  return { record, problems };
}
