import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { RunError, SourceParsed } from '@app/contracts';
import {
  RUN_ERRORS,
  STAGES,
  detectHeader,
  headerNames,
  rowsAboveHeader,
  isChoosableEncoding,
  rowIndexKeyOf,
  runError,
  type RunState,
} from '@app/domain';
import {
  NotPlainDelimited,
  SourceProblem,
  encodingPastAscii,
  isEastAsianCodePage,
  openTable,
  filledWidth,
  rowShapeOf,
  RowWidths,
  rowWidthsBelow,
  scanDelimited,
  tableFormatOf,
  valuesWidthOf,
  type OpenedTable,
  type DelimitedScan,
  type RowIndex,
  type RowWidthCounts,
  type SourceFormat,
  type TableLimits,
} from '@app/tabular';
import { recordedReadLimits } from './read-limits';

/** What reading a run's source ended with: the parsed source, or why the run fails. */
export type IngestionOutcome = { parsed: SourceParsed } | { failed: RunError };

/** The first rows the header is detected on (and a two-part scan needs in its first part). */
export const HEADER_SAMPLE_ROWS = 20;

/** A reviewer's choice of how the file is read: a workbook's sheet, or a text file's encoding (CHOOSABLE_ENCODINGS). */
export interface SourceChoice {
  sheet?: string;
  encoding?: string;
}

/**
 * Reads an uploaded CSV/TSV/TXT/XLSX once, as a stream: its headers, row count, format,
 * delimiter and encoding; every hostile-file limit is checked on the way. A workbook's
 * sheets are listed and the first visible one with data is read, unless `choice.sheet` names the
 * one to read (a reviewer's choice: the package was checked at ingestion); a text file is
 * decoded in `choice.encoding` when the reviewer chose one, else in the one detected. Where the rows of a delimited
 * file start is stored beside it (a row index). `onProgress`
 * hears the rows read so far after each batch. Storage errors throw (they are not the
 * file's fault); problems of the file itself are returned as the run's failure.
 */
export async function inspectStructuredFile(
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
  choice: SourceChoice = {},
): Promise<IngestionOutcome> {
  const format = tableFormatOf(run.filename ?? '');
  if (!format) return { failed: runError('unreadableFile', STAGES.ingestion, { message: 'The file type is not a structured file.' }) };
  // A delimited file's first read is a scan (no rows built but the first ones); papaparse reads whatever the scan leaves to it.
  const read =
    (format.format === 'delimited' && (await scanned(blobs, run, format.delimiter, limits, onProgress, choice.encoding))) ||
    (await readWhole(blobs, run, format, limits, onProgress, choice));
  if ('failed' in read) return read;
  return parsedSource(blobs, run, read, limits);
}

/** A read that failed as text not valid in the encoding detected: the failure an ASCII head may have caused (sourceEncodingPastAscii). */
export const failedAsInvalidText = (outcome: IngestionOutcome): boolean =>
  'failed' in outcome && outcome.failed.code === RUN_ERRORS.encodingInvalid.code;

/**
 * inspectStructuredFile, and for a text file that failed as not UTF-8 past an ASCII head, the read again in the code
 * page its later bytes say (sourceEncodingPastAscii). For reads in one process (the console's "try it"); ingestion's
 * SourceInspector does the same around its reads in worker threads.
 */
export async function inspectSourceFile(
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
): Promise<IngestionOutcome> {
  const outcome = await inspectStructuredFile(blobs, run, limits, onProgress);
  if (!failedAsInvalidText(outcome)) return outcome;
  const encoding = await sourceEncodingPastAscii(blobs, run);
  return encoding ? inspectStructuredFile(blobs, run, limits, onProgress, { encoding }) : outcome;
}

/**
 * The code page to read a run's text file in when its first 64 KiB are ASCII and the bytes past them are not UTF-8
 * (libs/tabular's encodingPastAscii: a windows-1252 list whose first accented name comes late, a Shift_JIS one whose
 * first Japanese name does); null for any other file. Ingestion reads such a file again in it instead of failing it as
 * text that is not UTF-8. A code page of one byte a character is one a reviewer may choose; an East Asian one is read
 * as a file detected in it from its top is (no choice of encoding offered, no row index).
 */
export async function sourceEncodingPastAscii(blobs: BlobStore, run: RunState): Promise<string | null> {
  if (tableFormatOf(run.filename ?? '')?.format !== 'delimited') return null;
  const input = await blobs.openRead(run.source_key);
  try {
    const encoding = await encodingPastAscii(input);
    return encoding !== null && (isChoosableEncoding(encoding) || isEastAsianCodePage(encoding)) ? encoding : null;
  } finally {
    input.destroy();
  }
}

/** What a delimited file's scan under `limits` learned, as ingestion's outcome (the row index stored beside the file). */
export function parsedFromScan(blobs: BlobStore, run: RunState, scan: DelimitedScan, limits: TableLimits): Promise<IngestionOutcome> {
  return parsedSource(blobs, run, sourceRowsOf(scan), limits);
}

const sourceRowsOf = (scan: DelimitedScan): SourceRows => ({
  table: { format: 'delimited', delimiter: scan.delimiter, encoding: scan.encoding },
  firstRow: scan.head[0] ?? null,
  sample: scan.head,
  rows: scan.rows,
  widths: scan.widths,
  index: scan.rowIndex,
});

async function parsedSource(blobs: BlobStore, run: RunState, read: SourceRows, limits: TableLimits): Promise<IngestionOutcome> {
  const { table, firstRow, sample, rows, widths, index, mergedCells, hiddenRows, hiddenRowsTotal, hiddenRowSpans } = read;
  if (!firstRow) return { failed: runError('emptyFile', STAGES.ingestion) };
  // Kept beside the file, so the review's pages and the output's halves can start reading anywhere in it.
  if (index && index.entries.length > 0)
    await blobs.put(rowIndexKeyOf(run.source_key), Readable.from([JSON.stringify(index)]), { contentType: 'application/json' });
  const above = rowsAboveHeaderIn(run, sample);
  const headerRow = sample[above.length] ?? firstRow;
  const hasHeader = above.length > 0 || (run.input_has_header_override ?? detectHeader(sample));
  // Declared to have a header (input_has_header: true) and nothing under it: nothing to review. A header only
  // guessed may be a file's one record ("ann@x.org,Ann,Berlin" reads like names): the review opens, says it has no
  // rows, and the reviewer can say the first row is data.
  if (rows === 1 && hasHeader && run.input_has_header_override === true)
    return { failed: runError('emptyFile', STAGES.ingestion, { message: 'The uploaded file has a header row but no rows of data.' }) };
  // The rows above the header are no part of the table: neither its width nor its rows out of line.
  const tableWidths = rowWidthsBelow(widths, above.length);
  // A workbook's row ends at its last cell with a value: only a delimited row with fewer cells lacks some.
  const rowShape = rowShapeOf(tableWidths, { cells: headerRow.length, filled: filledWidth(headerRow) }, table.format === 'delimited');
  const readLimits = recordedReadLimits(limits);
  return {
    parsed: {
      // Up to the farthest value: the columns past it would be `column_N` of nothing to map.
      source_headers: headerNames(headerRow, hasHeader, valuesWidthOf(tableWidths)),
      input_has_header: hasHeader,
      ...(above.length > 0 ? { rows_above_header: above } : {}),
      total_rows: rows - above.length - (hasHeader ? 1 : 0),
      source_format: table.format,
      delimiter: table.delimiter,
      encoding: table.encoding,
      rows_origin: 'file',
      ...(table.sheets ? { sheets: table.sheets } : {}),
      ...(table.sheet !== undefined ? { sheet: table.sheet } : {}),
      ...(rowShape ? { row_shape: rowShape } : {}),
      ...(mergedCells?.length ? { merged_cells: [...mergedCells] } : {}),
      ...(hiddenRows?.length ? { hidden_rows: [...hiddenRows] } : {}),
      // Past the rows listed, how many in all (the list stops at 1,000; the count does not).
      ...(hiddenRowsTotal !== undefined && hiddenRowsTotal > (hiddenRows?.length ?? 0)
        ? {
            hidden_rows_total: hiddenRowsTotal,
            // And then all of them as spans, while they fit: what leaves them all out at once (the list names 1,000).
            ...(hiddenRowSpans ? { hidden_row_spans: hiddenRowSpans.map(([first, last]): [number, number] => [first, last]) } : {}),
          }
        : {}),
      // Every later read of the rows applies these limits again (absent: the defaults), whatever the configuration is by then.
      ...(readLimits ? { read_limits: readLimits } : {}),
    },
  };
}

/** The longest text kept of a row left out above the header (a title is short; a cell may hold 32,767 characters). */
const ROW_ABOVE_HEADER_CHARS = 200;

/**
 * The rows above the header a read leaves out, each as its values (a title has one): the run's, when it has some in
 * force (the same file read again in another encoding keeps the reviewer's answer), else those found in the first
 * rows (rowsAboveHeader). None when the caller said the file has no header.
 */
function rowsAboveHeaderIn(run: RunState, sample: string[][]): string[] {
  const count =
    run.rows_above_header !== undefined
      ? Math.min(run.rows_above_header.length, Math.max(0, sample.length - 1))
      : run.input_has_header_override === false
        ? 0
        : rowsAboveHeader(sample);
  return sample.slice(0, count).map(rowAboveHeaderText);
}

/** How a row left out above the header is shown: its values, blanks around them dropped, apart by a middle dot. */
export const rowAboveHeaderText = (row: readonly string[]): string =>
  row
    .map((cell) => cell.trim())
    .filter((cell) => cell !== '')
    .join(' · ')
    .slice(0, ROW_ABOVE_HEADER_CHARS);

/** What ingestion learned of a source's rows, by either read. */
interface SourceRows {
  table: Pick<OpenedTable, 'format' | 'delimiter' | 'encoding' | 'sheets' | 'sheet'>;
  firstRow: string[] | null;
  sample: string[][];
  rows: number;
  /** How many rows have each number of cells, and each number up to their last value. */
  widths: RowWidthCounts;
  index: RowIndex | null;
  /** A workbook sheet's merges over rows (OpenedTable.mergedCells). */
  mergedCells?: readonly string[];
  /** A workbook sheet's hidden rows (OpenedTable.hiddenRows). */
  hiddenRows?: readonly number[];
  /** How many rows a workbook sheet hides in all (OpenedTable.hiddenRowsTotal). */
  hiddenRowsTotal?: number;
  /** All of them as spans, or null past their limit (OpenedTable.hiddenRowSpans). */
  hiddenRowSpans?: ReadonlyArray<readonly [number, number]> | null;
}

const failedBy = (err: unknown): { failed: RunError } =>
  err instanceof SourceProblem
    ? { failed: runError(err.kind, STAGES.ingestion, { message: err.message }) }
    : { failed: runError('unreadableFile', STAGES.ingestion, { context: [(err as Error).message] }) };

/** A delimited file's scan (delimited-scan.ts); null when its quoting needs papaparse's own rules. */
async function scanned(
  blobs: BlobStore,
  run: RunState,
  delimiter: string | null,
  limits: TableLimits,
  onProgress: (rows: number) => void,
  encoding: string | undefined,
): Promise<SourceRows | { failed: RunError } | null> {
  const input = await blobs.openRead(run.source_key);
  try {
    return sourceRowsOf(
      await scanDelimited(input, delimiter, { limits, headRows: HEADER_SAMPLE_ROWS, onProgress, ...(encoding ? { encoding } : {}) }),
    );
  } catch (err) {
    if (err instanceof NotPlainDelimited) return null;
    // A storage error is not the file's fault: thrown, as the read of the whole file throws it.
    if (err instanceof SourceProblem) return failedBy(err);
    throw err;
  } finally {
    input.destroy();
  }
}

/** Every row read and looked at (workbooks, and delimited files the scan leaves to papaparse). */
async function readWhole(
  blobs: BlobStore,
  run: RunState,
  format: { format: SourceFormat; delimiter: string | null },
  limits: TableLimits,
  onProgress: (rows: number) => void,
  { sheet, encoding }: SourceChoice,
): Promise<SourceRows | { failed: RunError }> {
  let table: OpenedTable;
  try {
    table = await openTable(await blobs.openRead(run.source_key), format.format, format.delimiter, {
      limits,
      ...(encoding ? { encoding } : {}),
      ...(sheet === undefined ? { sheet: { choose: true } } : { sheet, alreadyIngested: true }),
    });
  } catch (err) {
    if (err instanceof SourceProblem) return failedBy(err);
    throw err;
  }
  let rows = 0;
  let firstRow: string[] | null = null;
  const sample: string[][] = [];
  const widths = new RowWidths();
  try {
    for await (const batch of table.batches) {
      for (const row of batch) {
        if (!firstRow) firstRow = row;
        if (sample.length < HEADER_SAMPLE_ROWS) sample.push(row);
        // Tallied up to one past the column limit, as the scan tallies them (row-scanner.ts).
        widths.note(Math.min(row.length, limits.maxColumns + 1), filledWidth(row), rows + 1);
        rows++;
      }
      onProgress(rows);
    }
  } catch (err) {
    return failedBy(err);
  }
  return {
    table,
    firstRow,
    sample,
    rows,
    widths: widths.counted(),
    index: table.rowIndex(),
    mergedCells: table.mergedCells?.(),
    hiddenRows: table.hiddenRows?.(),
    hiddenRowsTotal: table.hiddenRowsTotal?.(),
    hiddenRowSpans: table.hiddenRowSpans?.(),
  };
}
