import { SourceProblem, type TableLimits } from './source-problem';
import { cellText, type CellContext } from './xlsx-cell-text';
import { MergeList, MergedFill, type MergedCellsFill } from './xlsx-merged-cells';
import type { XmlHandlers } from './xlsx-xml';

/** 0-based column of a cell reference ("C5" → 2, an absolute "$C$5" too); -1 when it has no column letters. */
function columnIndex(ref: string): number {
  let col = 0;
  for (let i = ref.charCodeAt(0) === 36 ? 1 : 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower-cases letters, leaves digits and '$' as they are
    if (c < 97 || c > 122) break;
    col = Math.min(col * 26 + (c - 96), 0x3fff_ffff); // a hostile reference stays a (huge) integer
  }
  return col - 1;
}

/**
 * Turns a worksheet's SAX events into rows of cell texts: each cell at the column its
 * reference names (sparse rows are filled with empty cells; a cell without a reference
 * follows the previous one), trailing empty cells trimmed, rows with nothing but
 * whitespace (or error values) skipped. Cell state lives in fields, not per-cell objects: a sheet has
 * millions of cells. Completed rows wait in `take()` for the reader's batches.
 *
 * Limits that would otherwise be checked only on a finished row are enforced while the
 * row is built: a cell past `maxColumns` is not stored (a hostile "XFD1048576" or
 * "ZZZZZZ1" would allocate a vast array), and a value stops growing past `maxFieldChars`.
 */
/**
 * Hidden rows a read lists at most (each is a number in the run's events; a reviewer leaves them out one by one). Past
 * it they are only counted (SheetRows.hiddenRowsTotal), so the review can say how many the sheet hides.
 */
export const MAX_HIDDEN_ROWS = 1000;

/**
 * Spans of consecutive hidden rows a read keeps at most (SheetRows.hiddenRowSpans). A filter or a collapsed group hides
 * rows in runs, so a few hundred spans cover a sheet filtered down from 50,000 rows to 200; 10,000 spans are some 160 KB
 * in an event. A sheet that hides its rows in more places than that (every other row) has no spans.
 */
export const MAX_HIDDEN_ROW_SPANS = 10_000;

/** Hidden rows as spans of consecutive numbers, each [first, last], in order. */
export type RowSpans = Array<[number, number]>;

export class SheetRows {
  private inSheetData = false;
  private row: string[] | null = null;
  /** Width the row would have with the cells past maxColumns that hold more than whitespace (as a delimited row's limit counts). */
  private overflowWidth = 0;
  /**
   * Columns of the row whose cell is an error value (#N/A): kept as the sheet shows it, but no
   * value of the row's own, so a row of errors alone is skipped as an empty one is (a template's
   * lookups past the data), a sheet of them holds no table, and one past maxColumns is dropped.
   */
  private readonly errorColumns = new Set<number>();
  private nextCol = 0;

  private inCell = false;
  private col = 0;
  private type = 'n';
  private style = 0;
  private value: string | null = null;
  private capturing = false;
  private inInline = false;
  private phonetic = 0;

  private done: string[][] = [];
  /** Rows handed on so far: row numbers in messages count these, as checkRow's do. */
  private emitted = 0;
  /** The merges over rows the sheet lists (after its rows): what a file's first read records for the reads after it. */
  readonly merges: MergeList;
  /** The merges a file's first read recorded, filled in; null when there are none (a row then costs nothing more). */
  private readonly fill: MergedFill | null;
  /** The sheet's number of the row in progress (its `r`, else one past the last): where the merges are. */
  private sheetRow = 0;
  /**
   * The rows handed on that the sheet hides (hidden by hand, by a filter or in a collapsed group), by their number as
   * handed on (from 1, as `emitted` counts), at most MAX_HIDDEN_ROWS: Excel does not show them, yet they are records.
   */
  readonly hiddenRows: number[] = [];
  /** Every row handed on that the sheet hides, the ones past MAX_HIDDEN_ROWS too (a count: nothing kept per row). */
  hiddenRowsTotal = 0;
  /**
   * Every row handed on that the sheet hides, as spans of consecutive numbers (as `hiddenRows` numbers them), while they
   * fit in MAX_HIDDEN_ROW_SPANS; null once they do not. What lets a reviewer leave them all out at once, past the
   * 1,000 `hiddenRows` lists.
   */
  hiddenRowSpans: RowSpans | null = [];
  private rowHidden = false;

  constructor(
    private readonly ctx: CellContext,
    private readonly limits: Pick<TableLimits, 'maxColumns' | 'maxFieldChars'>,
    mergedCells: MergedCellsFill | null = null,
  ) {
    this.merges = new MergeList(limits.maxColumns);
    this.fill = mergedCells && mergedCells.refs.length > 0 ? new MergedFill(mergedCells.refs, limits.maxColumns) : null;
    this.firstDataRow = mergedCells?.firstDataRow ?? 1;
  }
  /** The first row handed on that is data (rows above the header and the header before it): merges start only there. */
  private readonly firstDataRow: number;

  /** The rows completed since the last call. */
  take(): string[][] {
    const rows = this.done;
    this.done = [];
    return rows;
  }

  readonly handlers: XmlHandlers = {
    open: (name, a) => {
      switch (name) {
        case 'c':
          if (!this.row) return;
          this.inCell = true;
          this.col = a.r ? columnIndex(a.r) : -1;
          if (this.col < 0) this.col = this.nextCol;
          this.type = a.t ?? 'n';
          this.style = a.s ? parseInt(a.s, 10) : 0;
          this.value = null;
          this.inInline = false;
          return;
        case 'v':
          if (this.inCell && !this.inInline) {
            this.value = '';
            this.capturing = true;
          }
          return;
        case 'is':
          if (!this.inCell) return;
          // Rich text runs of an inline string are joined into one value.
          this.inInline = true;
          this.value = '';
          return;
        case 't':
          if (this.inInline && this.phonetic === 0) this.capturing = true;
          return;
        case 'rPh':
          if (this.inInline) this.phonetic++;
          return;
        case 'row':
          if (!this.inSheetData) return;
          if (this.fill) {
            const r = a.r ? parseInt(a.r, 10) : NaN;
            this.sheetRow = Number.isFinite(r) ? r : this.sheetRow + 1;
          }
          this.row = [];
          this.rowHidden = a.hidden === '1' || a.hidden === 'true';
          this.nextCol = 0;
          this.overflowWidth = 0;
          this.errorColumns.clear();
          return;
        case 'sheetData':
          this.inSheetData = true;
          return;
        case 'mergeCell':
          this.merges.add(a.ref);
          return;
      }
    },
    text: (piece) => {
      if (!this.capturing) return;
      this.value = (this.value ?? '') + piece;
      if (this.value.length > this.limits.maxFieldChars) {
        const max = this.limits.maxFieldChars;
        throw new SourceProblem(
          'fieldTooLarge',
          `Row ${this.emitted + 1}, column ${this.col + 1} has more than ${max} characters; at most ${max} are allowed.`,
        );
      }
    },
    close: (name) => {
      // Most frequent first: a sheet is mostly </v> and </c>.
      switch (name) {
        case 'v':
          this.capturing = false;
          return;
        case 'c':
          if (!this.inCell) return;
          this.inCell = false;
          this.capturing = false;
          this.setCell(cellText(this.type, this.value, this.style, this.ctx), this.type === 'e');
          this.nextCol = this.col + 1;
          return;
        case 'row':
          if (this.row) this.endRow(this.row);
          this.row = null;
          return;
        case 't':
          this.capturing = false;
          return;
        case 'is':
          this.inInline = false;
          return;
        case 'rPh':
          if (this.phonetic > 0) this.phonetic--;
          return;
        case 'sheetData':
          this.inSheetData = false;
          return;
      }
    },
  };

  private setCell(text: string, isError: boolean) {
    const row = this.row!;
    if (this.col >= this.limits.maxColumns) {
      if (!isError && text.trim() !== '') this.overflowWidth = Math.max(this.overflowWidth, this.col + 1);
      return;
    }
    // Empty cells are not stored unless they overwrite an earlier cell of the same column: holes are filled at the end.
    if (text !== '' || this.col < row.length) row[this.col] = text;
    // Rarely any: a set that is empty costs endRow one look.
    if (isError) this.errorColumns.add(this.col);
    else if (this.errorColumns.size > 0) this.errorColumns.delete(this.col);
  }

  private endRow(row: string[]) {
    let blank = this.overflowWidth === 0;
    for (let i = 0; i < row.length; i++) {
      const text = row[i];
      if (text === undefined) row[i] = '';
      else if (blank && text.trim() !== '' && (this.errorColumns.size === 0 || !this.errorColumns.has(i))) blank = false;
    }
    this.fill?.row(this.sheetRow, row, !blank, this.emitted + 1 >= this.firstDataRow);
    if (blank) return;
    while (row.length > 0 && row[row.length - 1] === '') row.pop();
    if (this.overflowWidth > 0) {
      throw new SourceProblem(
        'tooManyColumns',
        `Row ${this.emitted + 1} has ${this.overflowWidth} columns; at most ${this.limits.maxColumns} are allowed.`,
      );
    }
    this.emitted++;
    if (this.rowHidden) {
      this.hiddenRowsTotal++;
      if (this.hiddenRows.length < MAX_HIDDEN_ROWS) this.hiddenRows.push(this.emitted);
      this.addHiddenToSpans(this.emitted);
    }
    this.done.push(row);
  }

  private addHiddenToSpans(rowNumber: number): void {
    const spans = this.hiddenRowSpans;
    if (spans === null) return;
    const last = spans.at(-1);
    if (last !== undefined && last[1] === rowNumber - 1) last[1] = rowNumber;
    else if (spans.length < MAX_HIDDEN_ROW_SPANS) spans.push([rowNumber, rowNumber]);
    else this.hiddenRowSpans = null;
  }
}
