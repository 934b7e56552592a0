import fc from 'fast-check';
import { CELL_PROBLEMS, type CellProblem } from '@app/domain';
import { joinProblemSegments, limitRowKinds, pageRows, pageStart, ProblemSegmentsBuilder, SEGMENT_ROWS } from './problem-segments';

/**
 * The rows' kinds a count keeps let a page over every field name its own rows: they must be
 * exactly the rows a check of every row from the top finds, for any problems, offsets and kinds.
 */
const FIELDS = ['email', 'age', 'city'];
const problem = fc.option(fc.constantFrom<CellProblem>(...CELL_PROBLEMS), { nil: null, freq: 3 });
const rowsOf = (n: number) => fc.array(fc.array(problem, { minLength: 3, maxLength: 3 }), { minLength: n, maxLength: n });

function counted(rows: (CellProblem | null)[][], firstRow = 1) {
  const builder = new ProblemSegmentsBuilder(FIELDS, firstRow);
  for (const row of rows) builder.row(row);
  return builder.result();
}

/** What a page holds, found by looking at every row. */
function fromTop(rows: (CellProblem | null)[][], kind: CellProblem | null, offset: number, limit: number): number[] {
  const matching = rows.flatMap((row, i) => (row.some((p) => p !== null && (kind === null || p === kind)) ? [i + 1] : []));
  return matching.slice(offset, offset + limit);
}

describe('pages named by the rows a count kept', () => {
  it('are the rows a check of every row finds, for any kind and offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 * SEGMENT_ROWS }).chain((n) => rowsOf(n)),
        fc.option(fc.constantFrom<CellProblem>(...CELL_PROBLEMS), { nil: null }),
        fc.nat(3 * SEGMENT_ROWS),
        fc.integer({ min: 1, max: 100 }),
        (rows, kind, offset, limit) => {
          const segments = counted(rows);
          expect(pageRows(segments, { field: null, kind, offset, limit })).toEqual(fromTop(rows, kind, offset, limit));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('leave a query by field, or a count without the rows, to the segment start', () => {
    const segments = counted([['type', null, null]]);
    expect(pageRows(segments, { field: 'email', kind: null, offset: 0, limit: 20 })).toBeNull();
    expect(pageRows({ ...segments, rowKinds: null }, { field: null, kind: null, offset: 0, limit: 20 })).toBeNull();
    expect(pageStart(segments, { field: 'email', kind: null, offset: 0 })).toEqual({ row: 1, matchesBefore: 0 });
  });

  it('are the same when the count was made in ranges and joined', () => {
    fc.assert(
      fc.property(
        rowsOf(2 * SEGMENT_ROWS + 300),
        fc.integer({ min: 2, max: 2 * SEGMENT_ROWS + 300 }),
        fc.nat(2 * SEGMENT_ROWS),
        (rows, cut, offset) => {
          const whole = counted(rows);
          const joined = joinProblemSegments([
            { firstRow: 1, segments: counted(rows.slice(0, cut - 1)) },
            { firstRow: cut, segments: counted(rows.slice(cut - 1), cut) },
          ]);
          expect(joined.rowKinds).toEqual(whole.rowKinds);
          expect(pageRows(joined, { field: null, kind: null, offset, limit: 20 })).toEqual(fromTop(rows, null, offset, 20));
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('the rows kept over many counts', () => {
  const ofRows = (n: number) => counted(Array.from({ length: n }, () => [null, null, null]));

  it('are the newest counts’ within the budget; an older count keeps its segments only', () => {
    const [oldest, middle, newest] = limitRowKinds([ofRows(300), ofRows(200), ofRows(100)], 350);
    expect(newest.rowKinds).toHaveLength(100);
    expect(middle.rowKinds).toHaveLength(200);
    expect(oldest.rowKinds).toBeNull();
    expect(oldest.counts.length).toBeGreaterThan(0);
  });

  it('keep none past a count that did not fit, even a smaller older one', () => {
    const [older, big] = limitRowKinds([ofRows(10), ofRows(1000)], 500);
    expect(big.rowKinds).toBeNull();
    expect(older.rowKinds).toBeNull();
  });
});
