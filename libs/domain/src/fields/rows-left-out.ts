import { createHash } from 'node:crypto';
import type { RowFix, ValueFix } from '@app/contracts';
import type { AppliedFix } from './value-fixes';

/** A fix of a whole row rather than of a field's values (recorded with `field` ""). */
export const isRowFix = (fix: ValueFix): fix is RowFix => fix.kind === 'leave_out' || fix.kind === 'put_back';

/** The `field` a fix of a whole row is recorded with: no schema field is named "". */
export const ROW_FIX_FIELD = '';

/**
 * What a data row reads, as a short digest: its cells in the run's columns (past them a row holds
 * nothing the records take). A row is left out only while it still reads so: a header row, sheet or
 * encoding chosen since makes another row carry that number, and that row is not the one the
 * reviewer left out. A digest, not the cells, so a row of long text costs the fix list little.
 */
export function rowDigest(row: readonly string[], columns: number): string {
  const cells = row.length > columns ? row.slice(0, columns) : row;
  return createHash('sha256').update(JSON.stringify(cells)).digest('base64url');
}

/** The rows the fixes in force leave out (the latest fix of each row decides), each with its digest when left out. Pure. */
export function rowsLeftOut(fixes: readonly AppliedFix[]): ReadonlyMap<number, string> {
  const left = new Map<number, string>();
  for (const { fix } of fixes) {
    if (fix.kind === 'leave_out') left.set(fix.row, fix.row_digest);
    else if (fix.kind === 'put_back') left.delete(fix.row);
  }
  return left;
}

/** Whether a row read (`row`, data row `rowNumber`) is left out; null when the fixes leave none out, so reads pay nothing. */
export type LeftOutCheck = ((row: readonly string[], rowNumber: number) => boolean) | null;

/** The check every read of a run's rows makes (libs/run-source readPlannedRows), compiled once per read. */
export function compileRowsLeftOut(fixes: readonly AppliedFix[], columns: number): LeftOutCheck {
  const left = rowsLeftOut(fixes);
  if (left.size === 0) return null;
  return (row, rowNumber) => {
    const digest = left.get(rowNumber);
    return digest !== undefined && digest === rowDigest(row, columns);
  };
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
