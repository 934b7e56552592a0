import type { ProblemRowsPage, ReviewCell } from '@app/run-source';
import type { CustomerFinding, Findings } from './hook-answer';
import { addFindingsToCount, mayMatch, pageWithFindings, type CheckedRow, type PageQuery } from './merge-findings';

type Own = 'required' | 'type' | null;
const FIELDS = ['a', 'b'];

/** A file of `total` rows: our problems by row and field from `own`, the hook's findings on the first `sentRows`. */
function file(total: number, own: (row: number, field: string) => Own, found: (row: number, field: string) => boolean, sentRows: number) {
  const cellsOf = (row: number): Record<string, ReviewCell> =>
    Object.fromEntries(FIELDS.map((f) => [f, { value: `${f}${row}`, problem: own(row, f) }]));
  const rows: CheckedRow[] = [];
  const findings: Findings = new Map();
  for (let row = 1; row <= sentRows; row++) {
    rows.push({ row, cells: cellsOf(row), text: Object.fromEntries(FIELDS.map((f) => [f, `${f}${row}`])) });
    const cells = new Map<string, CustomerFinding>();
    for (const f of FIELDS) if (found(row, f)) cells.set(f, { message: `bad ${f}`, corrected_value: null });
    if (cells.size) findings.set(row, cells);
  }
  /** The whole-file search over our problems alone, as libs/run-source does it. */
  const ownPage = async (q: PageQuery): Promise<ProblemRowsPage> => {
    const matching: number[] = [];
    for (let row = 1; row <= total; row++) {
      const fields = q.field === null ? FIELDS : [q.field];
      if (fields.some((f) => own(row, f) !== null && (q.kind === null || own(row, f) === q.kind))) matching.push(row);
    }
    return {
      rows: matching.slice(q.offset, q.offset + q.limit).map((row) => ({ row, cells: cellsOf(row) })),
      matching: matching.length,
      rows_checked: total,
    };
  };
  /** The answer by brute force: every row matching by our problems or the hook's. */
  const expected = (q: PageQuery) => {
    const matching: number[] = [];
    for (let row = 1; row <= total; row++) {
      const fields = q.field === null ? FIELDS : [q.field];
      const ours = fields.some((f) => own(row, f) !== null && (q.kind === null || own(row, f) === q.kind));
      const theirs = (q.kind === null || q.kind === 'customer') && row <= sentRows && fields.some((f) => found(row, f));
      if (ours || theirs) matching.push(row);
    }
    return { rows: matching.slice(q.offset, q.offset + q.limit), matching: matching.length };
  };
  return { rows, findings, ownPage, expected };
}

describe('pageWithFindings', () => {
  it('pages through our problems and the customer’s together exactly as one list would, for every filter', async () => {
    const own = (row: number, f: string): Own => (row % 3 === 0 && f === 'a' ? 'type' : row % 7 === 0 && f === 'b' ? 'required' : null);
    const found = (row: number, f: string) => (row % 4 === 0 && f === 'b') || (row % 5 === 0 && f === 'a');
    const { rows, findings, ownPage, expected } = file(60, own, found, 25);
    // Kept as the service keeps them: only the rows that may match a query.
    const kept = rows.filter((r) => mayMatch(r, findings));
    expect(kept.length).toBeLessThan(rows.length);
    for (const field of [null, 'a', 'b'])
      for (const kind of [null, 'type', 'required', 'customer'])
        for (const limit of [1, 4, 7])
          for (let offset = 0; offset < 40; offset += limit) {
            const q = { field, kind, offset, limit };
            const page = await pageWithFindings(kept, 25, findings, q, kind === 'customer' ? null : ownPage);
            const want = expected(q);
            expect({ q, rows: page.rows.map((r) => r.row), matching: page.matching }).toEqual({ q, ...want });
            if (kind === 'customer') expect(page.rows_checked).toBe(25);
          }
  });

  it('a cell the hook named is of kind customer unless ours found one, and carries the message and what a fix must find', async () => {
    const { rows, findings, ownPage } = file(
      3,
      (row, f) => (row === 1 && f === 'a' ? 'type' : null),
      (row) => row === 1,
      3,
    );
    const page = await pageWithFindings(rows, 3, findings, { field: null, kind: null, offset: 0, limit: 10 }, ownPage);
    expect(page.rows[0].cells).toEqual({
      a: { value: 'a1', problem: 'type', customer: { message: 'bad a', corrected_value: null, before: 'a1' } },
      b: { value: 'b1', problem: 'customer', customer: { message: 'bad b', corrected_value: null, before: 'b1' } },
    });
  });
});

describe('addFindingsToCount', () => {
  it('adds the customer kind, and rows and fields only where ours found nothing', () => {
    const { rows, findings } = file(
      4,
      (row, f) => (row === 1 && f === 'a' ? 'required' : null),
      (row, f) => (row === 1 && f === 'a') || (row === 2 && f === 'b'),
      4,
    );
    const count = {
      status: 'counted',
      rows_checked: 4,
      rows_with_problems: 1,
      problems_by_field: { a: 1, b: 0 },
      rows_by_kind: { required: 1, type: 0 },
      problems_by_field_and_kind: { a: { required: 1, type: 0 }, b: { required: 0, type: 0 } },
    };
    expect(addFindingsToCount(count, rows, findings)).toEqual({
      status: 'counted',
      rows_checked: 4,
      rows_with_problems: 2,
      problems_by_field: { a: 1, b: 1 },
      rows_by_kind: { required: 1, type: 0, customer: 2 },
      problems_by_field_and_kind: { a: { required: 1, type: 0, customer: 1 }, b: { required: 0, type: 0, customer: 1 } },
    });
  });
});
