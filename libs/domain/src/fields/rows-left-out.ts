import { rowsAboveHeaderOf, type RunState } from '../run/run-state';
import { isRowFix } from './row-fix';
import type { AppliedFix } from './value-fixes';

export { isRowFix };

/** The `field` a fix of a whole row is recorded with: no schema field is named "". */
export const ROW_FIX_FIELD = '';

/**
 * Which rows the data rows' numbers name: the sheet, whether the first row is the header, and the rows above it. A row
 * left out is left out while its number names the same row; another header row or sheet makes another row carry that
 * number, and leaving that one out would drop a record nobody chose. An encoding chosen keeps the rows where they are
 * (the review offers only encodings whose rows start where they start in every other), so it keeps the rows left out.
 */
export const rowNumberingOf = (run: Pick<RunState, 'sheet' | 'input_has_header' | 'rows_above_header'>): string =>
  JSON.stringify([run.sheet ?? null, run.input_has_header === true, rowsAboveHeaderOf(run)]);

/** The data rows the fixes in force leave out under a numbering (rowNumberingOf), in order; the latest fix of a row decides. Pure. */
export function rowsLeftOut(fixes: readonly AppliedFix[], numbering: string): number[] {
  const left = new Set<number>();
  for (const { fix } of fixes) {
    if (!isRowFix(fix) || fix.numbering !== numbering) continue;
    if (fix.kind === 'leave_out') left.add(fix.row);
    else left.delete(fix.row);
  }
  return [...left].sort((a, b) => a - b);
}

/** Whether data row `rowNumber` is left out; null when no row is, so reads pay nothing. */
export type LeftOutCheck = ((rowNumber: number) => boolean) | null;

/** The check every read of a run's rows makes (libs/run-source readPlannedRows), compiled once per read. */
export function compileRowsLeftOut(run: Pick<RunState, 'value_fixes' | 'sheet' | 'input_has_header' | 'rows_above_header'>): LeftOutCheck {
  const left = new Set(rowsLeftOut(run.value_fixes ?? [], rowNumberingOf(run)));
  return left.size === 0 ? null : (rowNumber) => left.has(rowNumber);
}

/** The reading of a row fix from a reviewer's request; `totalRows` bounds the row when the run knows it. Pure. */
export function readRowFix(
  o: Record<string, unknown>,
  totalRows: number | null,
): { fix: { kind: 'leave_out' | 'put_back'; row: number } } | { problems: string[] } {
  const row = o.row;
  if (!Number.isInteger(row) || (row as number) < 1 || (totalRows !== null && (row as number) > totalRows))
    return { problems: [`row must be a data row's number, from 1${totalRows !== null ? ` to ${totalRows}` : ''}.`] };
  return { fix: { kind: o.kind as 'leave_out' | 'put_back', row: row as number } };
}
