import { fileExtension } from '@app/domain';
import type { RowIndex } from './row-index';

/** A table read as batches of rows; every cell is text (XLSX values are rendered to text). */
export type RowBatches = AsyncIterable<string[][]>;

export type SourceFormat = 'delimited' | 'xlsx';

/** Whether a workbook's sheet tab shows: `hidden` ones can be unhidden in Excel, `veryHidden` ones only by code. */
export type SheetState = 'visible' | 'hidden' | 'veryHidden';

/** A workbook's worksheet: its name and state, and whether it has a row with text. */
export interface SheetInfo {
  name: string;
  state: SheetState;
  has_data: boolean;
}

export interface OpenedTable {
  format: SourceFormat;
  /** Delimiter used (detected or given); null for XLSX. */
  delimiter: string | null;
  encoding: string;
  batches: RowBatches;
  /** XLSX: the worksheet read, when it is chosen before reading (by name, or by listing the sheets). */
  sheet?: string;
  /** XLSX opened with `sheet: {choose: true}`: every worksheet, in tab order. */
  sheets?: SheetInfo[];
  /**
   * Where the rows start (docs/files.md, "Row index"), once `batches` was read to its end on
   * the file's first read; null for workbooks, for encodings whose byte offsets the text
   * cannot tell, and for later reads.
   */
  rowIndex: () => RowIndex | null;
  /**
   * XLSX: the merges over rows the sheet lists (docs/decisions.md, "Merged cells"), as references ("A5:A9"), once
   * `batches` was read to its end; what a later read is given to fill in (OpenOptions.mergedCells).
   */
  mergedCells?: () => readonly string[];
  /**
   * XLSX: the rows the sheet hides (by hand, a filter, a collapsed group), by their number as `batches` yields them
   * (from 1: rows above the header and the header counted), at most 1,000, once `batches` was read to its end.
   */
  hiddenRows?: () => readonly number[];
  /** XLSX: how many rows the sheet hides in all (`hiddenRows` lists the first 1,000), once `batches` was read to its end. */
  hiddenRowsTotal?: () => number;
  /**
   * XLSX: every row the sheet hides, as spans of consecutive numbers ([first, last], numbered as `hiddenRows`), once
   * `batches` was read to its end; null when they make more than MAX_HIDDEN_ROW_SPANS spans.
   */
  hiddenRowSpans?: () => ReadonlyArray<readonly [number, number]> | null;
}

/** Which reader a filename needs; null for extensions that are not tabular. */
export function tableFormatOf(filename: string): { format: SourceFormat; delimiter: string | null } | null {
  switch (fileExtension(filename)) {
    case 'csv':
    case 'txt':
      return { format: 'delimited', delimiter: null };
    case 'tsv':
      return { format: 'delimited', delimiter: '\t' };
    case 'xlsx':
      return { format: 'xlsx', delimiter: null };
    default:
      return null;
  }
}

/**
 * Rows a reader hands on at a time, at most. A batch and everything made from it (cells, checks,
 * output text) is alive until the next, so each young-generation collection of a worker thread
 * copies it: with 2,000 rows, 16 MB young generations spent 620-740 ms a thread on the 1M-row
 * output's collections, with 500 rows 350-620 ms (bench/README.md, "Two threads by default").
 */
export const BATCH_ROWS = 500;
