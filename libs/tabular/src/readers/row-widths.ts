import type { RowShape } from '@app/contracts';

/**
 * How many cells each row of a table has, tallied while ingestion reads it, so the review can say
 * when rows do not line up with the first one: a row with values past the header's cells puts them
 * in columns no header names (`column_N`), and a delimited row lacking cells the header has lacks
 * values; either is most often a row broken by an unquoted delimiter or line break, whose values
 * have moved to other columns. Counted by width (typed arrays: two increments a row on the scan's
 * hot path), not kept per row.
 *
 * Empty cells at a row's end say nothing: many exporters end every data line with a delimiter, or
 * only the header line. So each row is tallied twice: by its cells (a row lacking some is one with
 * fewer cells than the first row has up to its last value) and by its cells up to its last value
 * (a row with more is one with a value past the first row's last cell).
 */

/** Rows of one width: `[cells, rows, first]`, `first` the number of the first such row (1 = the file's first row). */
export type RowWidthCount = [cells: number, rows: number, first: number];

/** A table's rows by width, narrowest first: by all their cells, and by their cells up to the last with a value. */
export interface RowWidthTallies {
  cells: RowWidthCount[];
  filled: RowWidthCount[];
}

/**
 * The first rows of a table, kept apart from the tallies: a title above the header (rowsAboveHeader) is found only
 * once the table is read, and the rows it takes are then left out of the widths exactly (`rowWidthsBelow`), numbers
 * of the first row of each width included. At least the most rows a title may take.
 */
export const TOP_ROWS_APART = 5;

/** The tallies of every row past the first `TOP_ROWS_APART`, and those rows' widths in order (`[cells, filled]`). */
export interface RowWidthCounts extends RowWidthTallies {
  top: [cells: number, filled: number][];
}

/** Rows counted by one width. Starts small and grows: the readers refuse rows past the column limit before they get here. */
class WidthTally {
  private counts = new Uint32Array(64);
  private firsts = new Float64Array(64);

  note(width: number, row: number): void {
    if (width >= this.counts.length) this.grow(width);
    if (this.counts[width]++ === 0) this.firsts[width] = row;
  }

  counted(): RowWidthCount[] {
    const out: RowWidthCount[] = [];
    for (let width = 0; width < this.counts.length; width++)
      if (this.counts[width] > 0) out.push([width, this.counts[width], this.firsts[width]]);
    return out;
  }

  private grow(width: number): void {
    const counts = new Uint32Array(width * 2 + 1);
    const firsts = new Float64Array(width * 2 + 1);
    counts.set(this.counts);
    firsts.set(this.firsts);
    this.counts = counts;
    this.firsts = firsts;
  }
}

export class RowWidths {
  private readonly cells = new WidthTally();
  private readonly filled = new WidthTally();
  private readonly top: [number, number][] = [];

  /** Row number `row` (1 = the first row) has `cells` cells, and its last with a value is number `filled`. */
  note(cells: number, filled: number, row: number): void {
    if (row <= TOP_ROWS_APART) {
      this.top.push([cells, filled]);
      return;
    }
    this.cells.note(cells, row);
    this.filled.note(filled, row);
  }

  counted(): RowWidthCounts {
    return { cells: this.cells.counted(), filled: this.filled.counted(), top: [...this.top] };
  }
}

/** The widths of a table's rows past its first `skip` (a title above the header), numbered as in the file. */
export function rowWidthsBelow(counts: RowWidthCounts, skip: number): RowWidthTallies {
  // The top holds every row of a shorter table: a skip past it would leave rows in the tallies.
  if (skip > counts.top.length) throw new RangeError(`Only the first ${counts.top.length} rows' widths are kept apart, not ${skip}.`);
  const cells = counts.cells.map(([width, rows, first]): RowWidthCount => [width, rows, first]);
  const filled = counts.filled.map(([width, rows, first]): RowWidthCount => [width, rows, first]);
  counts.top.forEach(([rowCells, rowFilled], i) => {
    if (i < skip) return;
    addRow(cells, rowCells, i + 1);
    addRow(filled, rowFilled, i + 1);
  });
  return { cells, filled };
}

/** One more row of `width` in a tally (kept narrowest first): the top rows come before every row tallied. */
function addRow(tally: RowWidthCount[], width: number, row: number): void {
  const at = tally.findIndex(([w]) => w >= width);
  if (at >= 0 && tally[at][0] === width) {
    tally[at][1]++;
    tally[at][2] = Math.min(tally[at][2], row);
  } else tally.splice(at < 0 ? tally.length : at, 0, [width, 1, row]);
}

/**
 * A table's width up to the farthest value in any row (the first's included). Cells past it are empty in every row:
 * a delimiter at the end of every line, a used range wider than the data; a workbook's rows leave them out already.
 */
export const valuesWidthOf = (widths: RowWidthTallies): number => widths.filled.at(-1)?.[0] ?? 0;

/** How many of a row's cells come up to its last with more than blanks (what String.prototype.trim removes). */
export function filledWidth(row: readonly string[]): number {
  for (let i = row.length; i > 0; i--) if (row[i - 1].trim() !== '') return i;
  return 0;
}

/**
 * The widths of a file read in two parts: the later part's rows are numbered after the `firstRows` of the first. The
 * later part's top rows are kept apart as far as the file's first TOP_ROWS_APART rows reach (a first part shorter
 * than that), and tallied with the rest past them: as one read of the whole file keeps them.
 */
export function joinRowWidths(first: RowWidthCounts, later: RowWidthCounts, firstRows: number): RowWidthCounts {
  const room = Math.max(0, TOP_ROWS_APART - firstRows);
  const laterBelow = rowWidthsBelow(later, Math.min(room, later.top.length));
  return {
    cells: joinTallies(first.cells, laterBelow.cells, firstRows),
    filled: joinTallies(first.filled, laterBelow.filled, firstRows),
    top: [...first.top, ...later.top.slice(0, room)],
  };
}

function joinTallies(first: RowWidthCount[], later: RowWidthCount[], firstRows: number): RowWidthCount[] {
  const byWidth = new Map<number, RowWidthCount>(first.map(([width, rows, at]) => [width, [width, rows, at]]));
  for (const [width, rows, at] of later) {
    const seen = byWidth.get(width);
    if (seen) seen[1] += rows;
    else byWidth.set(width, [width, rows, at + firstRows]);
  }
  return [...byWidth.values()].sort((a, b) => a[0] - b[0]);
}

/** The first row as the others are compared with: all its cells, and its cells up to its last with a value. */
export interface FirstRowWidth {
  cells: number;
  filled: number;
}

/**
 * Rows whose cells do not line up with the first row's, as the review tells them (row numbers of the
 * file, 1 = its first row). Null when every row lines up. A row is longer when it has a value past
 * the first row's cells, shorter when it lacks a cell up to the first row's last value. When the first
 * row ends with empty cells, read as a header it names no column there, so rows with a value past its
 * last value are counted too (`past_header_values`); read as data those cells are its missing values.
 * `shorterCounts`: whether a row with fewer cells says anything; not in a workbook, whose rows end at
 * their last cell with a value.
 */
export function rowShapeOf(widths: RowWidthTallies, first: FirstRowWidth, shorterCounts: boolean): RowShape | null {
  const longer = rowsWhere(widths.filled, (filled) => filled > first.cells);
  const shorter = shorterCounts ? rowsWhere(widths.cells, (cells) => cells < first.filled) : { rows: 0, first: null };
  const pastValues = first.filled < first.cells ? rowsWhere(widths.filled, (filled) => filled > first.filled) : longer;
  if (pastValues.rows === 0 && shorter.rows === 0) return null;
  return {
    first_row_cells: first.cells,
    longer_rows: longer.rows,
    first_longer_row: longer.first,
    shorter_rows: shorter.rows,
    first_shorter_row: shorter.first,
    values_width: valuesWidthOf(widths),
    // Also when those rows are the longer ones: read under the header, their extra columns start at its first empty cell.
    ...(first.filled < first.cells && pastValues.rows > 0
      ? { past_header_values: { first_row_values: first.filled, longer_rows: pastValues.rows, first_longer_row: pastValues.first } }
      : {}),
  };
}

function rowsWhere(tally: RowWidthCount[], counts: (width: number) => boolean): { rows: number; first: number | null } {
  let rows = 0;
  let first: number | null = null;
  for (const [width, n, at] of tally) {
    if (!counts(width)) continue;
    rows += n;
    first = first === null ? at : Math.min(first, at);
  }
  return { rows, first };
}
