import { hiddenDataRowSpansOf, rowsAboveHeaderOf, type RunState } from '../run/run-state';
import { ROW_FIX_KINDS, isRowFix } from './row-fix';

export { ROW_FIX_KINDS, isRowFix };

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

/** What decides the rows left out (rowDecisions): the run's fixes, its rows' numbering and the rows its sheet hides. */
export type RowsLeftOutSource = Pick<
  RunState,
  'value_fixes' | 'sheet' | 'input_has_header' | 'rows_above_header' | 'hidden_rows' | 'hidden_rows_total' | 'hidden_row_spans'
>;

/**
 * How the row fixes in force under the rows' numbering now decide each data row. Of a row's own fixes (leave_out,
 * put_back) and those of every hidden row (leave_out_hidden, put_back_hidden), the latest decides: a hidden row put back
 * after its sheet's hidden rows were left out is delivered, and leaving them out again takes it too.
 * - `own`: the rows their own latest fix decides, and whether it leaves them out;
 * - `hiddenLeftOut`: whether the latest fix of the hidden rows leaves them out (false when none was made);
 * - `hidden`: the hidden data rows as spans (hiddenDataRowSpansOf; empty when not all are known: then no fix of the
 *   hidden rows is taken, and none leaves out more than the rows named one by one).
 * Pure.
 */
export interface RowDecisions {
  own: ReadonlyMap<number, boolean>;
  hiddenLeftOut: boolean;
  hidden: ReadonlyArray<readonly [number, number]>;
}

export function rowDecisions(run: RowsLeftOutSource): RowDecisions {
  const numbering = rowNumberingOf(run);
  const hidden = hiddenDataRowSpansOf(run) ?? [];
  const own = new Map<number, boolean>();
  let hiddenLeftOut = false;
  for (const { fix } of run.value_fixes ?? []) {
    if (!isRowFix(fix) || fix.numbering !== numbering) continue;
    if (fix.kind === 'leave_out' || fix.kind === 'put_back') {
      own.set(fix.row, fix.kind === 'leave_out');
      continue;
    }
    hiddenLeftOut = fix.kind === 'leave_out_hidden';
    // The hidden rows' decision is now the latest for each of them: their own earlier fixes no longer decide.
    for (const row of [...own.keys()]) if (inSpans(hidden, row)) own.delete(row);
  }
  return { own, hiddenLeftOut, hidden };
}

/** Whether `row` is in one of `spans` (in order, not overlapping): a binary search. */
export function inSpans(spans: ReadonlyArray<readonly [number, number]>, row: number): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (row < spans[mid][0]) hi = mid - 1;
    else if (row > spans[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** How many rows `spans` hold. */
export const rowsInSpans = (spans: ReadonlyArray<readonly [number, number]>): number =>
  spans.reduce((n, [first, last]) => n + last - first + 1, 0);

/**
 * The rows left out by their own fix, in order. The hidden rows left out together are not listed (rowDecisions), nor is
 * a hidden row left out on its own while they are: it is one of them again (putting them back together delivers it), and
 * listing it too would count it twice wherever a page cannot tell it is hidden (past the 1,000 hidden rows listed).
 */
export const rowsLeftOutOneByOne = (decisions: RowDecisions): number[] =>
  [...decisions.own]
    .filter(([row, out]) => out && !(decisions.hiddenLeftOut && inSpans(decisions.hidden, row)))
    .map(([row]) => row)
    .sort((a, b) => a - b);

/** The hidden rows delivered though the hidden rows were left out: each put back after that, in order. */
export const hiddenRowsPutBack = (decisions: RowDecisions): number[] =>
  decisions.hiddenLeftOut
    ? [...decisions.own]
        .filter(([row, out]) => !out && inSpans(decisions.hidden, row))
        .map(([row]) => row)
        .sort((a, b) => a - b)
    : [];

/** Whether data row `row` is left out under `decisions`. */
export const isLeftOut = (decisions: RowDecisions, row: number): boolean =>
  decisions.own.get(row) ?? (decisions.hiddenLeftOut && inSpans(decisions.hidden, row));

/** Whether data row `rowNumber` is left out; null when no row is, so reads pay nothing. */
export type LeftOutCheck = ((rowNumber: number) => boolean) | null;

/** The check every read of a run's rows makes (libs/run-source readPlannedRows), compiled once per read. */
export function compileRowsLeftOut(run: RowsLeftOutSource): LeftOutCheck {
  const decisions = rowDecisions(run);
  const hiddenOut = decisions.hiddenLeftOut && decisions.hidden.length > 0;
  if (!hiddenOut) {
    const left = new Set(rowsLeftOutOneByOne(decisions));
    return left.size === 0 ? null : (rowNumber) => left.has(rowNumber);
  }
  return (rowNumber) => isLeftOut(decisions, rowNumber);
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
