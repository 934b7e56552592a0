/**
 * Merged cells of a worksheet. Excel keeps a merged range's value in its top-left cell alone and shows it across the
 * range; a grouped report merges a region, a date or a customer down the rows it covers, and every one of those rows
 * shows it. A read gives those rows the value too, in the range's first column (docs/decisions.md, "Merged cells").
 * A worksheet lists its merges after its rows (`<mergeCells>` follows `<sheetData>`), so the first read of a file
 * finds them (MergeList) and the reads after it fill them in (MergedFill).
 */

/** A merge over rows, as a read fills it: the column (from 0) and the sheet's rows (from 1) it spans. */
export interface MergedColumn {
  col: number;
  top: number;
  bottom: number;
}

/** The most merges over rows a sheet's reads fill in; past them (a sheet merged cell by cell) the rest stay as stored. */
export const MAX_MERGED_RANGES = 10_000;

const CELL_REF = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/;

function cellOf(ref: string): { col: number; row: number } | null {
  const m = CELL_REF.exec(ref);
  if (!m) return null;
  let col = 0;
  for (const c of m[1].toUpperCase()) col = col * 26 + (c.charCodeAt(0) - 64);
  return { col: col - 1, row: parseInt(m[2], 10) };
}

/**
 * The merge a range reference names ("A5:B9", absolute "$A$5:$B$9" too) when it spans rows and starts within
 * `maxColumns`; null for a merge along one row (a title across columns: the row shows it once) and for what is no
 * range.
 */
export function mergedColumnOf(ref: string, maxColumns: number): MergedColumn | null {
  const parts = ref.split(':');
  if (parts.length !== 2) return null;
  const [from, to] = parts;
  const top = cellOf(from);
  const bottom = cellOf(to);
  if (!top || !bottom || bottom.row <= top.row || top.col >= maxColumns) return null;
  return { col: top.col, top: top.row, bottom: bottom.row };
}

/** The merges over rows a worksheet lists, as their references, each once, up to MAX_MERGED_RANGES. */
export class MergeList {
  private readonly seen = new Set<string>();
  constructor(private readonly maxColumns: number) {}
  get refs(): string[] {
    return [...this.seen];
  }
  add(ref: string | undefined): void {
    if (ref && this.seen.size < MAX_MERGED_RANGES && mergedColumnOf(ref, this.maxColumns)) this.seen.add(ref);
  }
}

/** The merges to fill in, and the first data row (the rows a read hands on, from 1): those above it are not data. */
export interface MergedCellsFill {
  refs: readonly string[];
  firstDataRow: number;
}

/**
 * Gives each data row inside a merge over rows the text of the merge's top cell, where the row's own cell is empty
 * (or blank). Rows are handed in sheet order with their sheet row numbers. Only a merge whose top cell is in a data
 * row gives its value: a title or a header merged down the side is no value of the records under it. Only rows with
 * values of their own take it: a read skips a blank row, and the rows a file's first read counted are the rows every
 * later read delivers. One merge per column at a time: merges do not overlap in a sheet Excel wrote, and a sheet that
 * lists one range thousands of times costs a row no more than one.
 */
export class MergedFill {
  private readonly waiting: MergedColumn[];
  private next = 0;
  /** The merges under way, by column: how far down, and the text they give. */
  private readonly active = new Map<number, { bottom: number; text: string }>();

  constructor(refs: readonly string[], maxColumns: number) {
    this.waiting = refs
      .map((ref) => mergedColumnOf(ref, maxColumns))
      .filter((m): m is MergedColumn => m !== null)
      .sort((a, b) => a.top - b.top);
  }

  /** The row `sheetRow` as read, filled in place; `hasValues`: not blank; `isData`: a data row (below the header). */
  row(sheetRow: number, cells: string[], hasValues: boolean, isData: boolean): void {
    if (this.active.size > 0) {
      for (const [col, merge] of this.active) {
        if (merge.bottom < sheetRow) {
          this.active.delete(col);
          continue;
        }
        if (!hasValues || (cells[col] ?? '').trim() !== '') continue;
        while (cells.length < col) cells.push('');
        cells[col] = merge.text;
      }
    }
    // Merges that start here (or at a row the sheet does not list, or out of order: nothing to give) wait for the rows
    // under it.
    while (this.next < this.waiting.length && this.waiting[this.next].top <= sheetRow) {
      const merge = this.waiting[this.next++];
      const text = merge.top === sheetRow && hasValues && isData ? (cells[merge.col] ?? '') : '';
      if (merge.bottom > sheetRow && text.trim() !== '') this.active.set(merge.col, { bottom: merge.bottom, text });
    }
  }
}
