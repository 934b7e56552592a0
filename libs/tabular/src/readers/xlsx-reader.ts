import type { Readable } from 'node:stream';
import { DEFAULT_TABLE_LIMITS, SourceProblem, checkRow, type TableLimits } from './source-problem';
import { BATCH_ROWS, type OpenedTable } from './table-reader';
import type { CellContext } from './xlsx-cell-text';
import type { XlsxPackage } from './xlsx-package';
import { checkXlsxPackage } from './xlsx-package-check';
import { readSharedStrings } from './xlsx-shared-strings';
import { SheetRows } from './xlsx-sheet-rows';
import { openPackageFile } from './xlsx-source-file';
import { StallWatch, stalled as damaged } from './xlsx-stall-watch';
import { readDateStyles } from './xlsx-styles';
import { readWorkbookLayout } from './xlsx-workbook';
import { parseXmlPart } from './xlsx-xml';

/** How long the workbook reader may go without reading a byte of the package (or of its source, while copying it). */
export const XLSX_STALL_MS = 3000;

/**
 * The most characters the XML parser may collect without a tag: no cell may be longer than
 * a row, and no other text in a workbook comes near that.
 */
const maxNodeChars = (limits: TableLimits) => Math.max(limits.maxRowChars, 64 * 1024);

/** One worksheet's rows, checked and batched; returns whether it had any. */
async function* sheetBatches(
  pkg: XlsxPackage,
  sheet: string,
  ctx: CellContext,
  watch: StallWatch,
  limits: TableLimits,
): AsyncGenerator<string[][], boolean> {
  const rows = new SheetRows(ctx, limits);
  let count = 0;
  let batch: string[][] = [];
  const parts = parseXmlPart(pkg, sheet, rows.handlers, watch, maxNodeChars(limits));
  try {
    // One more round after the part ends: closing the parser can complete rows too.
    for (let done = false; !done;) {
      done = (await parts.next()).done === true;
      for (const row of rows.take()) {
        checkRow(row, ++count, limits);
        batch.push(row);
        if (batch.length >= BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
    }
  } finally {
    await parts.return(undefined); // stopped early or failed: the part's stream is destroyed
  }
  if (batch.length > 0) yield batch;
  return count > 0;
}

/**
 * Reads what the cells refer to (workbook layout, shared strings, date formats), then
 * streams worksheets in tab order until one has rows: the first non-empty worksheet is
 * the table, later ones are not opened. The package is closed however the read ends
 * (finished, failed, or the consumer stopped iterating).
 */
async function* firstNonEmptySheet(pkg: XlsxPackage, watch: StallWatch, limits: TableLimits): AsyncGenerator<string[][]> {
  try {
    const nodeLimit = maxNodeChars(limits);
    const layout = await readWorkbookLayout(pkg, watch, nodeLimit);
    const sharedStrings = await readSharedStrings(pkg, layout.sharedStrings, limits, watch, nodeLimit);
    const ctx: CellContext = {
      sharedString: (index) => sharedStrings.get(index),
      dateStyles: await readDateStyles(pkg, layout.styles, watch, nodeLimit),
      date1904: layout.date1904,
    };
    for (const sheet of layout.sheets) {
      if (yield* sheetBatches(pkg, sheet, ctx, watch, limits)) return;
    }
  } catch (err) {
    if (err instanceof SourceProblem) throw err;
    throw damaged(); // what yauzl, zlib or saxes could not read: a cut or corrupted part
  } finally {
    // Not awaited: the handle closes once reads in flight are done, which a stalled read may never be.
    pkg.close().catch(() => undefined);
  }
}

/**
 * Streams the first non-empty worksheet of an XLSX file as rows of cell texts. The
 * package is read with random access (yauzl on the central directory), so parts are read
 * in the order needed whatever order they are stored in: Excel and exceljs store the
 * shared strings after the sheets, which a streaming unzipper can only handle by
 * buffering the sheet. The package is first checked (zip bombs, hidden parts, DTDs:
 * xlsx-package-check) unless it already was at ingestion (`packageChecked`: a 20-row
 * preview should not unpack the whole workbook again). Empty rows are skipped.
 */
export async function openXlsx(
  source: Readable,
  limits: TableLimits = DEFAULT_TABLE_LIMITS,
  stallMs = XLSX_STALL_MS,
  options: { packageChecked?: boolean } = {},
): Promise<OpenedTable> {
  const watch = new StallWatch(stallMs);
  const pkg = await openPackageFile(source, watch);
  if (!options.packageChecked) {
    try {
      await watch.step(checkXlsxPackage(pkg, limits));
    } catch (err) {
      pkg.close().catch(() => undefined);
      throw err;
    }
  }
  return { format: 'xlsx', delimiter: null, encoding: 'xlsx', batches: firstNonEmptySheet(pkg, watch, limits) };
}
