/**
 * How the customer's findings join our own problems: in the counts, in a row's cells and in
 * the list of rows with problems. Pure. A cell the hook named is a problem of kind `customer`
 * unless our own checks already found one there (then it keeps ours and carries the hook's
 * message too); a row counts once however many problems it has.
 */
import type { CellProblem } from '@app/domain';
import type { ProblemRow, ProblemRowsPage, ProblemRowsQuery, ReviewCell } from '@app/run-source';
import type { CustomerFinding, Findings } from './hook-answer';

/** The kind of problem the customer's hook reports (one of CELL_PROBLEMS; our own checks never give it). */
export const CUSTOMER_PROBLEM = 'customer' satisfies CellProblem;

/** A cell as the review shows it, with what the customer's hook said of it. */
export interface CheckedCell {
  value: string | null;
  problem: CellProblem | null;
  customer?: CustomerFinding & {
    /** The value as the fixes see it (after transformations and earlier fixes): a cell fix accepting the correction names it. */
    before: string;
  };
}

/** A row the hook was sent: its cells as our checks see them, and each field's text (what a cell fix must find). */
export interface CheckedRow {
  row: number;
  cells: Record<string, ReviewCell>;
  text: Record<string, string>;
}

/** The figures of a finished count that the customer's findings add to. */
export interface CountFigures {
  rows_with_problems: number;
  problems_by_field: Record<string, number>;
  rows_by_kind: Record<string, number>;
  problems_by_field_and_kind: Record<string, Record<string, number>>;
}

const hasOwnProblem = (row: CheckedRow) => Object.values(row.cells).some((c) => c.problem !== null);

/** A finished count with the customer's findings added: the kind `customer`, and rows and fields that had none of ours. */
export function addFindingsToCount<T extends CountFigures>(count: T, rows: readonly CheckedRow[], findings: Findings): T {
  const byRow = new Map(rows.map((r) => [r.row, r]));
  const byField = { ...count.problems_by_field };
  const byFieldAndKind = Object.fromEntries(
    Object.entries(count.problems_by_field_and_kind).map(([f, kinds]) => [f, { ...kinds, [CUSTOMER_PROBLEM]: 0 }]),
  );
  let rowsWithProblems = count.rows_with_problems;
  let customerRows = 0;
  for (const [rowNumber, cells] of findings) {
    const row = byRow.get(rowNumber);
    if (!row) continue;
    customerRows++;
    if (!hasOwnProblem(row)) rowsWithProblems++;
    for (const field of cells.keys()) {
      // Own keys only: a field may be named "constructor" or "toString", which every object inherits.
      if (!Object.hasOwn(byFieldAndKind, field)) continue;
      byFieldAndKind[field][CUSTOMER_PROBLEM]++;
      if (!Object.hasOwn(row.cells, field) || row.cells[field].problem == null)
        byField[field] = (Object.hasOwn(byField, field) ? byField[field] : 0) + 1;
    }
  }
  return {
    ...count,
    rows_with_problems: rowsWithProblems,
    problems_by_field: byField,
    rows_by_kind: { ...count.rows_by_kind, [CUSTOMER_PROBLEM]: customerRows },
    problems_by_field_and_kind: byFieldAndKind,
  };
}

/** A row's cells with what the hook said of them (the row's `text` gives each finding its `before`). */
export function withFindings(
  cells: Record<string, ReviewCell>,
  found: Map<string, CustomerFinding> | undefined,
  text: Record<string, string> | undefined,
): Record<string, CheckedCell> {
  if (!found || !text) return cells;
  const out: Record<string, CheckedCell> = { ...cells };
  for (const [field, finding] of found) {
    const cell = cells[field];
    if (!cell) continue;
    out[field] = { ...cell, problem: cell.problem ?? CUSTOMER_PROBLEM, customer: { ...finding, before: text[field] ?? '' } };
  }
  return out;
}

/** Whether a row can match some query of the list: it has a problem of ours or a finding (the others need not be kept). */
export const mayMatch = (row: CheckedRow, findings: Findings): boolean => findings.has(row.row) || hasOwnProblem(row);

/** Whether a row matches a query of the list: by our problems alone, and with the customer's. */
function matching(
  row: CheckedRow,
  found: Map<string, CustomerFinding> | undefined,
  query: Pick<ProblemRowsQuery, 'field'> & { kind: string | null },
) {
  const fields = query.field === null ? Object.keys(row.cells) : [query.field];
  const own = fields.some((f) => {
    const problem = row.cells[f]?.problem ?? null;
    return problem !== null && (query.kind === null || problem === query.kind);
  });
  const customer = (query.kind === null || query.kind === CUSTOMER_PROBLEM) && fields.some((f) => found?.has(f) === true);
  return { own, any: own || customer };
}

export interface PageQuery {
  field: string | null;
  kind: string | null;
  offset: number;
  limit: number;
}

/**
 * One page of the rows with problems, ours and the customer's together. The hook was sent the
 * file's first `checked` rows up front (`rows`: those of them with a problem of ours or a
 * finding, in order; a row with neither matches no query), so the union is known there in full;
 * past them the list holds our problems, and `ownPage` (the whole-file search) gives them, asked
 * to skip its matches among the first rows. The total is the search's, less its matches among
 * the first rows, plus the union's.
 */
export async function pageWithFindings(
  rows: readonly CheckedRow[],
  checked: number,
  findings: Findings,
  query: PageQuery,
  ownPage: ((query: PageQuery) => Promise<ProblemRowsPage>) | null,
): Promise<{ rows: { row: number; cells: Record<string, CheckedCell> }[]; matching: number; rows_checked: number }> {
  let ownAmongFirst = 0;
  const union: CheckedRow[] = [];
  for (const row of rows) {
    const m = matching(row, findings.get(row.row), query);
    if (m.own) ownAmongFirst++;
    if (m.any) union.push(row);
  }
  const first = union
    .slice(query.offset, query.offset + query.limit)
    .map((r) => ({ row: r.row, cells: withFindings(r.cells, findings.get(r.row), r.text) }));
  // Only the customer's kind asked: nothing past the first rows can match.
  if (!ownPage) return { rows: first, matching: union.length, rows_checked: checked };
  const room = query.limit - first.length;
  const own = await ownPage({
    ...query,
    offset: ownAmongFirst + Math.max(0, query.offset - union.length),
    // The search wants at least one row; what the page has no room for is dropped.
    limit: Math.max(1, room),
  });
  const later: ProblemRow[] = room > 0 ? own.rows.slice(0, room) : [];
  return { rows: [...first, ...later], matching: own.matching - ownAmongFirst + union.length, rows_checked: own.rows_checked };
}
