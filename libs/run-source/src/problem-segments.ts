import { CELL_PROBLEMS, type CellProblem } from '@app/domain';

/** Rows per segment: a page far into a file reads at most about this many rows (and an index entry's worth) before its first match. */
export const SEGMENT_ROWS = 4096;
/** The fewest rows a segment has, however wide the rows. */
const MIN_SEGMENT_ROWS = 256;
/** Columns of a row for which SEGMENT_ROWS rows are read fast enough: the bench's wide file has 24. */
const COLUMNS_FOR_FULL_SEGMENTS = 24;
/** What one count's segments may take, however many rows and fields (the API's cache holds 32 MB of them). */
const SEGMENTS_BYTES = 8 * 1024 * 1024;

const powerOfTwoAtMost = (n: number): number => 2 ** Math.floor(Math.log2(Math.max(1, n)));
const powerOfTwoAtLeast = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/**
 * Rows per segment for a file of `columns` columns and `rows` data rows (null: not known) counted
 * over `fields` fields: fewer for wider rows, so that a page filtered by one field, which reads
 * up to a segment before its first match, reads about as many bytes as SEGMENT_ROWS rows of 24
 * columns. 4,096 rows of 600 columns were 30 MB to parse, and such a page took 450 ms. As many
 * as keep one count's segments within SEGMENTS_BYTES. A power of two from 256 to SEGMENT_ROWS;
 * the same for every thread of one count, which each work it out from the same run.
 */
export function segmentRowsFor(columns: number, fields: number, rows: number | null): number {
  const byWidth = powerOfTwoAtMost((SEGMENT_ROWS * COLUMNS_FOR_FULL_SEGMENTS) / Math.max(1, columns));
  const classes = (fields + 1) * (CELL_PROBLEMS.length + 1);
  const byMemory = !(typeof rows === 'number' && rows > 0)
    ? SEGMENT_ROWS
    : powerOfTwoAtLeast((rows * classes * Uint32Array.BYTES_PER_ELEMENT) / SEGMENTS_BYTES);
  return Math.min(SEGMENT_ROWS, Math.max(MIN_SEGMENT_ROWS, byWidth, byMemory));
}

/**
 * How many rows match each query of the rows-with-problems list, per segment of SEGMENT_ROWS
 * data rows, recorded by the whole-file count. A page at any offset then starts reading at
 * the segment that holds its first row (with the row index, at the right byte) instead of
 * at the top of the file.
 *
 * A query is a field (or any) and a kind (or any); its class is
 * `(fieldIndex + 1) * (kinds + 1) + (kindIndex + 1)`, so class 0 is "any problem".
 */
export interface ProblemSegments {
  rowsPerSegment: number;
  fields: string[];
  kinds: readonly CellProblem[];
  /** segments x classes counts, segment after segment. */
  counts: Uint32Array;
  /**
   * Each counted data row's kinds of problem as bits (bit k for `kinds[k]`), from the data row the
   * count started at (row 1 once joined): a page of a query over every field then knows its rows
   * without checking any other (pageRows). Null when they were not kept (limitSegmentsMemory).
   */
  rowKinds: Uint8Array | null;
}

// A row's kinds are a byte's bits (rowKinds): a ninth kind of problem needs a wider array.
if (CELL_PROBLEMS.length > 8) throw new Error(`${CELL_PROBLEMS.length} kinds of problem do not fit a row's byte of kinds`);

const classOf = (fieldIndex: number, kindIndex: number, kinds: number): number => (fieldIndex + 1) * (kinds + 1) + (kindIndex + 1);

/** Records the count's rows, one at a time, into segments. */
export class ProblemSegmentsBuilder {
  private readonly classes: number;
  private readonly done: Uint32Array[] = [];
  private current: Uint32Array;
  private rowsInCurrent = 0;
  private readonly kindIndex = new Map(CELL_PROBLEMS.map((k, i) => [k, i]));
  private rowKinds = new Uint8Array(SEGMENT_ROWS);
  private rows = 0;

  /**
   * `firstRow`: the data row the count starts at (from 1), for a count of a range of the file (joinProblemSegments).
   * `rowsPerSegment`: segmentRowsFor the file, the same for every range of one count.
   */
  constructor(
    private readonly fields: string[],
    firstRow = 1,
    private readonly rowsPerSegment = SEGMENT_ROWS,
  ) {
    this.classes = (fields.length + 1) * (CELL_PROBLEMS.length + 1);
    this.current = new Uint32Array(this.classes);
    this.rowsInCurrent = (firstRow - 1) % rowsPerSegment;
  }

  /**
   * One data row, with the kind of problem of each field (in `fields` order; null for none).
   * Rows come in order from the first row.
   */
  row(problems: readonly (CellProblem | null)[]): void {
    const kinds = CELL_PROBLEMS.length;
    let seen = 0; // the row's kinds, as bits
    for (let f = 0; f < problems.length; f++) {
      const problem = problems[f];
      if (problem === null) continue;
      const k = this.kindIndex.get(problem)!;
      seen |= 1 << k;
      this.current[classOf(f, -1, kinds)]++;
      this.current[classOf(f, k, kinds)]++;
    }
    if (seen !== 0) {
      this.current[0]++;
      for (let k = 0; k < kinds; k++) if (seen & (1 << k)) this.current[classOf(-1, k, kinds)]++;
    }
    if (this.rows === this.rowKinds.length) {
      const more = new Uint8Array(this.rowKinds.length * 2);
      more.set(this.rowKinds);
      this.rowKinds = more;
    }
    this.rowKinds[this.rows++] = seen;
    if (++this.rowsInCurrent === this.rowsPerSegment) {
      this.done.push(this.current);
      this.current = new Uint32Array(this.classes);
      this.rowsInCurrent = 0;
    }
  }

  /** The segments from the one that holds the first row; a range's first and last may hold rows of other ranges too. */
  result(): ProblemSegments {
    const all = this.rowsInCurrent > 0 ? [...this.done, this.current] : this.done;
    const counts = new Uint32Array(all.length * this.classes);
    all.forEach((segment, i) => counts.set(segment, i * this.classes));
    return {
      rowsPerSegment: this.rowsPerSegment,
      fields: this.fields,
      kinds: CELL_PROBLEMS,
      counts,
      rowKinds: this.rowKinds.slice(0, this.rows),
    };
  }
}

/**
 * The segments of counts of consecutive ranges of a file (each with the data row it starts at),
 * as one count of the whole file: a segment cut between two ranges holds the sum of both.
 */
export function joinProblemSegments(parts: { firstRow: number; segments: ProblemSegments }[]): ProblemSegments {
  const { rowsPerSegment, fields, kinds } = parts[0].segments;
  if (parts.some((p) => p.segments.rowsPerSegment !== rowsPerSegment))
    throw new Error(
      `the ranges of one count were cut into segments of different sizes: ${parts.map((p) => p.segments.rowsPerSegment).join(', ')}`,
    );
  const classes = (fields.length + 1) * (kinds.length + 1);
  const startOf = (firstRow: number): number => Math.floor((firstRow - 1) / rowsPerSegment) * classes;
  const length = Math.max(...parts.map((p) => startOf(p.firstRow) + p.segments.counts.length));
  const counts = new Uint32Array(length);
  for (const { firstRow, segments } of parts) {
    const at = startOf(firstRow);
    for (let i = 0; i < segments.counts.length; i++) counts[at + i] += segments.counts[i];
  }
  // The ranges do not overlap: each part's rows go where its first row is.
  let rowKinds: Uint8Array | null = null;
  if (parts.every((p) => p.segments.rowKinds !== null)) {
    rowKinds = new Uint8Array(Math.max(...parts.map((p) => p.firstRow - 1 + p.segments.rowKinds!.length)));
    for (const { firstRow, segments } of parts) rowKinds.set(segments.rowKinds!, firstRow - 1);
  }
  return { rowsPerSegment, fields, kinds, counts, rowKinds };
}

/**
 * Where a page of the rows with problems starts: the first data row of the segment that
 * holds the query's match number `offset + 1`, and how many matches come before that row.
 * Null when the segments do not know the query (another field list) or the offset is past
 * the last match.
 */
export function pageStart(
  segments: ProblemSegments,
  query: { field: string | null; kind: CellProblem | null; offset: number },
): { row: number; matchesBefore: number } | null {
  const fieldIndex = query.field === null ? -1 : segments.fields.indexOf(query.field);
  const kindIndex = query.kind === null ? -1 : segments.kinds.indexOf(query.kind);
  if ((query.field !== null && fieldIndex < 0) || (query.kind !== null && kindIndex < 0)) return null;
  const classes = (segments.fields.length + 1) * (segments.kinds.length + 1);
  const c = classOf(fieldIndex, kindIndex, segments.kinds.length);
  let before = 0;
  for (let s = 0; s * classes < segments.counts.length; s++) {
    const here = segments.counts[s * classes + c];
    if (before + here > query.offset) return { row: s * segments.rowsPerSegment + 1, matchesBefore: before };
    before += here;
  }
  return null;
}

/**
 * The data rows of a page of a query over every field (any problem, or one kind), its matches
 * `offset + 1` to `offset + limit`, from the count's rows' kinds: the page then reads up to its last
 * row and checks only its own rows, where a start at the segment checks every row from there (with
 * 120 fields, a few hundred microseconds a row: 0.3-1 s for a page). Empty past the last match; null
 * for a query by field (the plan is then one field, cheap to check: pageStart) or without the rows' kinds.
 */
export function pageRows(
  segments: ProblemSegments,
  query: { field: string | null; kind: CellProblem | null; offset: number; limit: number },
): number[] | null {
  const { rowKinds } = segments;
  if (query.field !== null || rowKinds === null) return null;
  const kindIndex = query.kind === null ? -1 : segments.kinds.indexOf(query.kind);
  if (query.kind !== null && kindIndex < 0) return null;
  const bits = kindIndex < 0 ? 0xff : 1 << kindIndex;
  const start = pageStart(segments, query);
  if (start === null) return [];
  const rows: number[] = [];
  let matches = start.matchesBefore;
  for (let i = start.row - 1; i < rowKinds.length && rows.length < query.limit; i++) {
    if ((rowKinds[i] & bits) !== 0 && ++matches > query.offset) rows.push(i + 1);
  }
  return rows;
}

/** Bytes a count's segments hold: their counts and, when kept, the rows' kinds. */
const bytesOf = (segments: ProblemSegments): number => segments.counts.byteLength + (segments.rowKinds?.byteLength ?? 0);

/**
 * What to keep of the segments of several counts (given newest last, answered in the same order)
 * within `budgetBytes` together, giving the newer counts priority: a count's whole segments when
 * they fit, else its counts without the rows' kinds (its pages over every field start at their
 * segment again), else none (its pages read from the top, as without a count). The newest keeps
 * its counts whatever their size, as every count did before there was a budget. The API's process
 * keeps up to 200 counts, one per mapping and set of fixes, and a million rows of 120 fields hold
 * about 1 MB of counts and 1 MB of rows' kinds.
 */
export function limitSegmentsMemory(newestLast: ProblemSegments[], budgetBytes: number): (ProblemSegments | null)[] {
  let left = budgetBytes;
  const kept = newestLast
    .slice()
    .reverse()
    .map((segments, i) => {
      const whole = bytesOf(segments);
      if (whole <= left) {
        left -= whole;
        return segments;
      }
      if (segments.counts.byteLength <= left || i === 0) {
        left = Math.max(0, left - segments.counts.byteLength);
        return { ...segments, rowKinds: null };
      }
      return null;
    });
  return kept.reverse();
}
