import type { FieldDefinition, MappingRule } from '@app/contracts';
import { compileTransformations } from './transformations';
import type { CellProblem } from './cell-problems';
import { compileTypeCheck, type TypedValue, writesCheckedText } from './typed-value';
import { compileFieldFixes, type AppliedFix } from './value-fixes';

export interface FieldPlan {
  name: string;
  field: FieldDefinition;
  /** Column index in the source row; -1 when the field is not mapped. */
  column: number;
  /** The field's transformations, compiled once for the whole run. */
  transform: (value: string) => string;
  /** The reviewer's fixes of the field's values (after the transformations); null when none. */
  fix: ((value: string, row: number) => string) | null;
  /** The field's type check, compiled once for the whole run. */
  check: (value: string) => TypedValue;
  /** Text output (CSV) writes the checked value of a valid cell, not the text as read (writesCheckedText). */
  checkedText: boolean;
}

/** Resolves a mapping to column indexes once, so each row is mapped by index; the run's fixes are compiled per field. */
export function planFields(
  fields: Record<string, FieldDefinition>,
  mapping: MappingRule,
  headers: string[],
  fixes: readonly AppliedFix[] = [],
): FieldPlan[] {
  const index = new Map(headers.map((h, i) => [h, i]));
  return Object.entries(fields).map(([name, field]) => {
    const header = mapping[name];
    return {
      name,
      field,
      column: header == null ? -1 : (index.get(header) ?? -1),
      transform: compileTransformations(field),
      fix: compileFieldFixes(fixes, name, field),
      check: compileTypeCheck(field),
      checkedText: writesCheckedText(field),
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

export interface MappedRow {
  record: Record<string, string | number | boolean | null>;
  problems: { field: string; problem: CellProblem }[];
}

/**
 * One source row in target shape: the mapped cell, transformed, then typed and checked.
 * `typed` false keeps every value as text (CSV output): as read, or normalised for the fields
 * whose check normalises (numbers in a number_format with a `.` decimal point, E.164, countries). Pure.
 */
export function mapRow(row: string[], rowNumber: number, plan: FieldPlan[], typed: boolean): MappedRow {
  const record: MappedRow['record'] = {};
  const problems: MappedRow['problems'] = [];
  for (const p of plan) {
    const value = cellOf(p, row, rowNumber);
    const checked = p.check(value);
    if (checked.problem) problems.push({ field: p.name, problem: checked.problem });
    record[p.name] = typed
      ? checked.value
      : p.checkedText && checked.problem === null && checked.value !== null
        ? String(checked.value)
        : value === ''
          ? null
          : value;
  }
  return { record, problems };
}
