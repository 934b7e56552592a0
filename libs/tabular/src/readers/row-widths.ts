import type { RowShape } from '@app/contracts';

/**
 * How many cells each row of a table has, tallied while ingestion reads it, so the review can say
 * when rows do not line up with the first one: a row with more cells than the header puts its
 * extra values in columns no header names (`column_N`), and a delimited row with fewer lacks
 * values; either is most often a row broken by an unquoted delimiter or line break, whose values
 * have moved to other columns. Counted by width (a typed array: one increment a row on the scan's
 * hot path), not kept per row.
 */

/** Rows of one width: `[cells, rows, first]`, `first` the number of the first such row (1 = the file's first row). */
export type RowWidthCount = [cells: number, rows: number, first: number];

export class RowWidths {
  private counts: Uint32Array;
  private firsts: Float64Array;

  /** `maxCells`: the most cells a row may have (the column limit); wider rows make the table grow. */
  constructor(maxCells: number) {
    this.counts = new Uint32Array(maxCells + 1);
    this.firsts = new Float64Array(maxCells + 1);
  }

  /** Row number `row` (1 = the first row) has `cells` cells. */
  note(cells: number, row: number): void {
    if (cells >= this.counts.length) this.grow(cells);
    if (this.counts[cells]++ === 0) this.firsts[cells] = row;
  }

  /** The widths seen, narrowest first. */
  counted(): RowWidthCount[] {
    const out: RowWidthCount[] = [];
    for (let cells = 0; cells < this.counts.length; cells++)
      if (this.counts[cells] > 0) out.push([cells, this.counts[cells], this.firsts[cells]]);
    return out;
  }

  private grow(cells: number): void {
    const counts = new Uint32Array(cells * 2 + 1);
    const firsts = new Float64Array(cells * 2 + 1);
    counts.set(this.counts);
    firsts.set(this.firsts);
    this.counts = counts;
    this.firsts = firsts;
  }
}

/** The widths of a file read in two parts: the later part's rows are numbered after the `firstRows` of the first. */
export function joinRowWidths(first: RowWidthCount[], later: RowWidthCount[], firstRows: number): RowWidthCount[] {
  const byCells = new Map<number, RowWidthCount>(first.map(([cells, rows, at]) => [cells, [cells, rows, at]]));
  for (const [cells, rows, at] of later) {
    const seen = byCells.get(cells);
    if (seen) seen[1] += rows;
    else byCells.set(cells, [cells, rows, at + firstRows]);
  }
  return [...byCells.values()].sort((a, b) => a[0] - b[0]);
}

/**
 * Rows whose cells do not line up with the first row's, as the review tells them (row numbers of the
 * file, 1 = its first row). Null when every row lines up. `shorterCounts`: whether a row with fewer
 * cells says anything; not in a workbook, whose rows end at their last cell with a value.
 */
export function rowShapeOf(widths: RowWidthCount[], firstRowCells: number, shorterCounts: boolean): RowShape | null {
  let longer = 0;
  let shorter = 0;
  let firstLonger: number | null = null;
  let firstShorter: number | null = null;
  for (const [cells, rows, at] of widths) {
    if (cells > firstRowCells) {
      longer += rows;
      firstLonger = firstLonger === null ? at : Math.min(firstLonger, at);
    } else if (cells < firstRowCells && shorterCounts) {
      shorter += rows;
      firstShorter = firstShorter === null ? at : Math.min(firstShorter, at);
    }
  }
  if (longer === 0 && shorter === 0) return null;
  return {
    first_row_cells: firstRowCells,
    longer_rows: longer,
    first_longer_row: firstLonger,
    shorter_rows: shorter,
    first_shorter_row: firstShorter,
  };
}
