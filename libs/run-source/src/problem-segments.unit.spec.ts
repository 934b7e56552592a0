import fc from 'fast-check';
import { CELL_PROBLEMS, type CellProblem } from '@app/domain';
import {
  joinProblemSegments,
  limitSegmentsMemory,
  pageRows,
  pageStart,
  ProblemSegmentsBuilder,
  SEGMENT_ROWS,
  segmentRowsFor,
} from './problem-segments';

/**
 * The rows' kinds a count keeps let a page over every field name its own rows: they must be
 * exactly the rows a check of every row from the top finds, for any problems, offsets and kinds.
 */
const FIELDS = ['email', 'age', 'city'];
const problem = fc.option(fc.constantFrom<CellProblem>(...CELL_PROBLEMS), { nil: null, freq: 3 });
const rowsOf = (n: number) => fc.array(fc.array(problem, { minLength: 3, maxLength: 3 }), { minLength: n, maxLength: n });

function counted(rows: (CellProblem | null)[][], firstRow = 1, rowsPerSegment = SEGMENT_ROWS) {
  const builder = new ProblemSegmentsBuilder(FIELDS, firstRow, rowsPerSegment);
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

describe('segments of fewer rows for wide files', () => {
  it('have fewer rows the wider the row, within 256 to 4,096, and as many as keep one count within 8 MB', () => {
    expect(segmentRowsFor(6, 4, 1_000_000)).toBe(SEGMENT_ROWS);
    expect(segmentRowsFor(24, 20, 1_000_000)).toBe(SEGMENT_ROWS);
    expect(segmentRowsFor(124, 120, 80_000)).toBe(512);
    expect(segmentRowsFor(604, 600, 16_000)).toBe(256);
    expect(segmentRowsFor(1000, 1000, 10_000)).toBe(256);
    // 175,000 rows of 1,000 fields in segments of 256 rows would take 22 MB.
    expect(segmentRowsFor(1000, 1000, 175_000)).toBe(1024);
    expect(segmentRowsFor(1000, 1000, null)).toBe(SEGMENT_ROWS);
    for (const [columns, fields, rows] of [
      [1000, 1000, 175_000],
      [124, 120, 700_000],
      [24, 20, 5_000_000],
    ]) {
      const perSegment = segmentRowsFor(columns, fields, rows);
      expect(Math.ceil(rows / perSegment) * (fields + 1) * (CELL_PROBLEMS.length + 1) * 4).toBeLessThanOrEqual(8 * 1024 * 1024 * 1.01);
    }
  });

  it("name a page's start and its rows as the whole count does, cut anywhere into ranges and joined", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(256, 512, 1024),
        fc.integer({ min: 1, max: 2000 }).chain((n) => fc.tuple(rowsOf(n), fc.integer({ min: 1, max: n }))),
        fc.option(fc.constantFrom<CellProblem>(...CELL_PROBLEMS), { nil: null }),
        fc.nat(1500),
        (perSegment, [rows, cut], kind, offset) => {
          const joined = joinProblemSegments([
            { firstRow: 1, segments: counted(rows.slice(0, cut - 1), 1, perSegment) },
            { firstRow: cut, segments: counted(rows.slice(cut - 1), cut, perSegment) },
          ]);
          expect(pageRows(joined, { field: null, kind, offset, limit: 20 })).toEqual(fromTop(rows, kind, offset, 20));
          // A page by field starts at a segment at or before its first match, at most one segment before it.
          const inEmail = rows.flatMap((row, i) => (row[0] !== null ? [i + 1] : []));
          const start = pageStart(joined, { field: 'email', kind: null, offset });
          if (offset >= inEmail.length) expect(start).toBeNull();
          else {
            expect(start!.row).toBeLessThanOrEqual(inEmail[offset]);
            expect(inEmail[offset] - start!.row).toBeLessThan(perSegment);
            expect(start!.matchesBefore).toBe(inEmail.filter((r) => r < start!.row).length);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuse to join ranges cut into segments of different sizes', () => {
    expect(() =>
      joinProblemSegments([
        { firstRow: 1, segments: counted([[null, null, null]], 1, 256) },
        { firstRow: 2, segments: counted([[null, null, null]], 2, 512) },
      ]),
    ).toThrow(/different sizes/);
  });
});

describe('the segments kept over many counts', () => {
  // Three fields: 32 classes of 4 bytes a segment.
  const ofRows = (n: number) => counted(Array.from({ length: n }, () => [null, null, null]));
  const bytes = (n: number) => Math.ceil(n / SEGMENT_ROWS) * 32 * 4 + n;

  it('are the newest counts’ whole within the budget, then counts without their rows, then none', () => {
    const counts = [ofRows(5000), ofRows(300), ofRows(200), ofRows(100)];
    const budget = bytes(100) + bytes(200) + 128 + 10;
    const [oldest, older, middle, newest] = limitSegmentsMemory(counts, budget);
    expect(newest!.rowKinds).toHaveLength(100);
    expect(middle!.rowKinds).toHaveLength(200);
    // 138 bytes left: the counts of one segment (128) fit, its 300 rows' kinds do not.
    expect(older!.rowKinds).toBeNull();
    expect(older!.counts).toEqual(counts[1].counts);
    expect(oldest).toBeNull();
  });

  it('keep the newest count’s counts even past the budget', () => {
    const [older, newest] = limitSegmentsMemory([ofRows(10), ofRows(5000)], 100);
    expect(newest!.counts.length).toBeGreaterThan(0);
    expect(newest!.rowKinds).toBeNull();
    expect(older).toBeNull();
  });

  it('keep a newer count whole before an older one, whatever their sizes', () => {
    const [older, newer] = limitSegmentsMemory([ofRows(10), ofRows(1000)], bytes(1000));
    expect(newer!.rowKinds).toHaveLength(1000);
    expect(older).toBeNull();
  });
});
