import type { Readable } from 'node:stream';
import { DEFAULT_TABLE_LIMITS, SourceProblem, checkRow, type TableLimits } from './source-problem';
import { RowBatcher } from './row-batcher';
import type { OpenedTable, SheetInfo } from './table-reader';
import type { CellContext } from './xlsx-cell-text';
import type { XlsxPackage } from './xlsx-package';
import { checkXlsxPackage } from './xlsx-package-check';
import { readSharedStrings } from './xlsx-shared-strings';
import type { MergedCellsFill } from './xlsx-merged-cells';
import { SheetRows, type RowSpans } from './xlsx-sheet-rows';
import { releasedUnstarted } from './released-unstarted';
import { openPackageFile } from './xlsx-source-file';
import { StallWatch, stalled as damaged } from './xlsx-stall-watch';
import { readCellStyles } from './xlsx-styles';
import { readWorkbookLayout, type WorksheetEntry } from './xlsx-workbook';
import { parseXmlPart, xmlSliceChars } from './xlsx-xml';

/** How long the workbook reader may go without reading a byte of the package (or of its source, while copying it). */
export const XLSX_STALL_MS = 3000;

/**
 * The most characters the XML parser may collect without a tag: no cell may be longer than
 * a row, and no other text in a workbook comes near that.
 */
const maxNodeChars = (limits: TableLimits) => Math.max(limits.maxRowChars, 64 * 1024);

/**
 * The merges over rows of a read's sheet: those to fill in (`fill`, as a file's first read found them), and those the
 * sheet lists (`found`, once the read reached its end); and the rows it hides (`hiddenRows`, SheetRows.hiddenRows, how
 * many in all, `hiddenRowsTotal`, and all of them as spans, `hiddenRowSpans`).
 */
interface SheetMerges {
  fill: MergedCellsFill | null;
  found: string[];
  hiddenRows: number[];
  hiddenRowsTotal: number;
  hiddenRowSpans: RowSpans | null;
}

/** One worksheet's rows, checked and batched; returns whether it had any. */
async function* sheetBatches(
  pkg: XlsxPackage,
  sheet: string,
  ctx: CellContext,
  watch: StallWatch,
  limits: TableLimits,
  merges: SheetMerges,
): AsyncGenerator<string[][], boolean> {
  const rows = new SheetRows(ctx, limits, merges.fill);
  let count = 0;
  const batcher = new RowBatcher();
  const parts = parseXmlPart(pkg, sheet, rows.handlers, watch, maxNodeChars(limits), xmlSliceChars(ctx.longestSharedString ?? 0));
  try {
    // One more round after the part ends: closing the parser can complete rows too.
    for (let done = false; !done;) {
      done = (await parts.next()).done === true;
      for (const row of rows.take()) {
        checkRow(row, ++count, limits);
        const full = batcher.add(row);
        if (full) yield full;
      }
    }
  } finally {
    await parts.return(undefined); // stopped early or failed: the part's stream is destroyed
  }
  merges.found = rows.merges.refs;
  merges.hiddenRows = rows.hiddenRows;
  merges.hiddenRowsTotal = rows.hiddenRowsTotal;
  merges.hiddenRowSpans = rows.hiddenRowSpans;
  const last = batcher.take();
  if (last.length > 0) yield last;
  return count > 0;
}

/** What a worksheet's cells refer to, read once per package: the sheets in tab order, shared strings, date formats. */
interface Workbook {
  sheets: WorksheetEntry[];
  ctx: CellContext;
}

async function readWorkbook(pkg: XlsxPackage, watch: StallWatch, limits: TableLimits): Promise<Workbook> {
  const nodeLimit = maxNodeChars(limits);
  const layout = await readWorkbookLayout(pkg, watch, nodeLimit);
  const sharedStrings = await readSharedStrings(pkg, layout.sharedStrings, limits, watch, nodeLimit);
  const ctx: CellContext = {
    sharedString: (index) => sharedStrings.get(index),
    longestSharedString: sharedStrings.longest,
    styles: await readCellStyles(pkg, layout.styles, watch, nodeLimit),
    date1904: layout.date1904,
  };
  return { sheets: layout.sheets, ctx };
}

/** A read's failure as the reader reports it: what yauzl, zlib or saxes could not read is a cut or corrupted part. */
const asSourceProblem = (err: unknown): SourceProblem => (err instanceof SourceProblem ? err : damaged());

/** A cover sheet's most rows: a report's title, its date, who made it, a note or two, each one value. */
const COVER_MOST_ROWS = 6;

/** A value a cover's lines do not hold alone: an e-mail address, or a number or date and nothing else. */
const DATA_CELL = /@|^[+-]?[\d.,:/ -]+$/;

/**
 * How a worksheet starts: how many rows with text it has, counted up to `most`, and whether any of them holds two
 * values or more (a table's row; a cover's rows hold one each), reading the part only up to that row. A row the
 * limits refuse (too many columns, a vast value) counts as two rows of data but not as a table's: that sheet fails
 * only if it is the one read, so another sheet with a table is preferred to it.
 */
async function sheetStart(
  pkg: XlsxPackage,
  sheet: string,
  ctx: CellContext,
  watch: StallWatch,
  limits: TableLimits,
  most: number,
): Promise<{ rows: number; wide: boolean }> {
  const rows = new SheetRows(ctx, limits);
  const parts = parseXmlPart(pkg, sheet, rows.handlers, watch, maxNodeChars(limits), xmlSliceChars(ctx.longestSharedString ?? 0));
  let found = 0;
  let wide = false;
  try {
    for (let done = false; !done && found < most;) {
      done = (await parts.next()).done === true;
      for (const row of rows.take().slice(0, most - found)) {
        found++;
        // Two values, or (under the first row) a value that is data (an address, a number, a date): a table's row. A
        // one-column list of a few e-mail addresses under "Email" is no cover.
        wide ||= row.filter((cell) => cell.trim() !== '').length >= 2 || (found > 1 && row.some((cell) => DATA_CELL.test(cell.trim())));
      }
    }
    return { rows: found, wide };
  } catch (err) {
    if (err instanceof SourceProblem && (err.kind === 'tooManyColumns' || err.kind === 'fieldTooLarge')) return { rows: 2, wide: false };
    throw err;
  } finally {
    await parts.return(undefined);
  }
}

/**
 * A worksheet as listed, with how many rows it has up to one past a cover's, and whether it reads as a cover: at most
 * COVER_MOST_ROWS rows, each of one value.
 */
type ListedSheet = SheetInfo & { rows: number; cover: boolean };

/**
 * The sheet a workbook opens on: the first visible one with a row under its first (a header and data) that is not a
 * cover; else the first visible one with such a row; else the first visible one with a row at all; else the same
 * among hidden ones; else the first. A sheet of one row, or a cover before the table ("Order report Q1" over
 * "Confidential"), was opened and showed no table.
 */
function openingSheet(sheets: ListedSheet[]): SheetInfo | undefined {
  const visible = sheets.filter((s) => s.state === 'visible');
  const withRows = (among: ListedSheet[], rows: number) => among.find((s) => s.rows >= rows);
  const tables = visible.filter((s) => !s.cover);
  return withRows(tables, 2) ?? withRows(visible, 2) ?? withRows(visible, 1) ?? withRows(sheets, 2) ?? withRows(sheets, 1) ?? sheets[0];
}

/**
 * Streams worksheets in turn until one has rows: that one is the table, later ones are not
 * opened. `candidates` names them once the workbook is read. The package is closed however
 * the read ends (finished, failed, or the consumer stopped iterating).
 */
async function* tableOf(
  pkg: XlsxPackage,
  watch: StallWatch,
  limits: TableLimits,
  workbook: Workbook | null,
  candidates: (sheets: WorksheetEntry[]) => WorksheetEntry[],
  merges: SheetMerges,
): AsyncGenerator<string[][]> {
  try {
    const { sheets, ctx } = workbook ?? (await readWorkbook(pkg, watch, limits));
    for (const sheet of candidates(sheets)) {
      if (yield* sheetBatches(pkg, sheet.part, ctx, watch, limits, merges)) return;
    }
  } catch (err) {
    throw asSourceProblem(err);
  } finally {
    // Not awaited: the handle closes once reads in flight are done, which a stalled read may never be.
    pkg.close().catch(() => undefined);
  }
}

export interface XlsxOpenOptions {
  /** The package passed the checks at ingestion: they are not repeated. */
  packageChecked?: boolean;
  /**
   * Which worksheet is the table:
   * - a name (as `sheets` listed it): that one; a name the workbook does not have fails the read;
   * - `choose`: every worksheet is listed (`sheets`) and the first visible one with data under its
   *   first row is read (ingestion; openingSheet says which when none has);
   * - absent: the first worksheet with rows in tab order, hidden or not (how sources ingested
   *   before sheets were listed were read, and still are).
   */
  sheet?: string | { choose: true };
  /** The merges over rows a first read of the file found in the sheet (OpenedTable.mergedCells), filled in. */
  mergedCells?: MergedCellsFill;
}

/**
 * Streams one worksheet of an XLSX file as rows of cell texts (which one: `options.sheet`).
 * The package is read with random access (yauzl on the central directory), so parts are
 * read in the order needed whatever order they are stored in: Excel and exceljs store the
 * shared strings after the sheets, which a streaming unzipper can only handle by
 * buffering the sheet. The package is first checked (zip bombs, hidden parts, DTDs:
 * xlsx-package-check) unless it already was at ingestion (`packageChecked`: a 20-row
 * preview should not unpack the whole workbook again). Empty rows are skipped.
 */
export async function openXlsx(
  source: Readable,
  limits: TableLimits = DEFAULT_TABLE_LIMITS,
  stallMs = XLSX_STALL_MS,
  options: XlsxOpenOptions = {},
): Promise<OpenedTable> {
  const watch = new StallWatch(stallMs);
  const pkg = await openPackageFile(source, watch);
  const merges: SheetMerges = { fill: options.mergedCells ?? null, found: [], hiddenRows: [], hiddenRowsTotal: 0, hiddenRowSpans: [] };
  const table = {
    format: 'xlsx',
    delimiter: null,
    encoding: 'xlsx',
    rowIndex: () => null,
    mergedCells: () => merges.found,
    hiddenRows: () => merges.hiddenRows,
    hiddenRowsTotal: () => merges.hiddenRowsTotal,
    hiddenRowSpans: () => merges.hiddenRowSpans,
  } as const;
  let workbook: Workbook | null = null;
  let listed: ListedSheet[] | undefined;
  if (!options.packageChecked) {
    try {
      await watch.step(checkXlsxPackage(pkg, limits));
    } catch (err) {
      pkg.close().catch(() => undefined);
      throw err;
    }
  }
  try {
    if (typeof options.sheet === 'object') {
      // Listing reads every worksheet up to one row past a cover's: the choice is made before the rows are read.
      workbook = await readWorkbook(pkg, watch, limits);
      listed = [];
      for (const entry of workbook.sheets) {
        const { rows, wide } = await sheetStart(pkg, entry.part, workbook.ctx, watch, limits, COVER_MOST_ROWS + 1);
        listed.push({ name: entry.name, state: entry.state, has_data: rows > 0, rows, cover: rows <= COVER_MOST_ROWS && !wide });
      }
    }
  } catch (err) {
    pkg.close().catch(() => undefined);
    throw asSourceProblem(err);
  }
  const { sheet } = options;
  // Rows given up before their first batch: the package (its file, or the copy of a stored workbook) is closed all the same.
  const closePackage = () => pkg.close().catch(() => undefined);
  if (listed) {
    const opening = openingSheet(listed);
    const sheets: SheetInfo[] = listed.map(({ name, state, has_data }) => ({ name, state, has_data }));
    const batches = tableOf(pkg, watch, limits, workbook, (all) => all.filter((s) => s.name === opening?.name), merges);
    return { ...table, sheet: opening?.name, sheets, batches: releasedUnstarted(batches, closePackage) };
  }
  if (typeof sheet === 'string') {
    const named = (all: WorksheetEntry[]) => {
      const found = all.find((s) => s.name === sheet);
      if (!found) throw new SourceProblem('unreadableFile', `The workbook has no sheet named "${sheet}".`);
      return [found];
    };
    return { ...table, sheet, batches: releasedUnstarted(tableOf(pkg, watch, limits, null, named, merges), closePackage) };
  }
  return {
    ...table,
    batches: releasedUnstarted(
      tableOf(pkg, watch, limits, null, (all) => all, merges),
      closePackage,
    ),
  };
}
