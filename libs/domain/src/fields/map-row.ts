import type { FieldDefinition, MappingRule } from '@app/contracts';
import { applyTransformations } from './transformations';
import { type CellProblem, typeValue } from './typed-value';

export interface FieldPlan {
  name: string;
  field: FieldDefinition;
  /** Column index in the source row; -1 when the field is not mapped. */
  column: number;
}

/** Resolves a mapping to column indexes once, so each row is mapped by index. */
export function planFields(fields: Record<string, FieldDefinition>, mapping: MappingRule, headers: string[]): FieldPlan[] {
  const index = new Map(headers.map((h, i) => [h, i]));
  return Object.entries(fields).map(([name, field]) => {
    const header = mapping[name];
    return { name, field, column: header == null ? -1 : (index.get(header) ?? -1) };
  });
}

export interface MappedRow {
  record: Record<string, string | number | boolean | null>;
  problems: { field: string; problem: CellProblem }[];
}

/**
 * One source row in target shape: the mapped cell, transformed, then typed and checked.
 * `typed` false keeps every value as text (CSV output). Pure.
 */
export function mapRow(row: string[], plan: FieldPlan[], typed: boolean): MappedRow {
  const record: MappedRow['record'] = {};
  const problems: MappedRow['problems'] = [];
  for (const p of plan) {
    const raw = p.column >= 0 ? (row[p.column] ?? '') : '';
    const value = applyTransformations(raw, p.field);
    const checked = typeValue(value, p.field);
    if (checked.problem) problems.push({ field: p.name, problem: checked.problem });
    record[p.name] = typed ? checked.value : value === '' ? null : value;
  }
  return { record, problems };
}
