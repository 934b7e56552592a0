import type { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import {
  compileRowsLeftOut,
  mapRow,
  planFields,
  rowsBeforeDataOf,
  type DuplicateRows,
  type FieldPlan,
  type LeftOutCheck,
  type MappedRow,
  type RunState,
} from '@app/domain';
import { NotPlainDelimited, filledWidth, openTable, releasedUnstarted, scannedRows } from '@app/tabular';
import { readLimitsOf } from './read-limits';
import { shortenedText } from './shortened-text';
import { resumePoint } from './stored-row-index';

/** Rows to skip below which a read starts at the top rather than at a row index entry. */
const RESUME_AFTER_ROWS = 2000;

/** The encoding the rows were read in first (delimited files), so every later read decodes them the same way. */
const encodingOf = (run: RunState): string | null => (run.source_format === 'xlsx' ? null : run.encoding);

export interface PlannedRows {
  plan: FieldPlan[];
  /** Data rows (the header row skipped) as read, in batches, streamed from the stored source. */
  batches: AsyncGenerator<string[][]>;
  /** The number of the first row `batches` yields (data rows from 1). */
  firstRow: number;
  /**
   * Whether a row is one the reviewer left out (rows-left-out.ts in libs/domain); null when none is. Every reader of
   * records asks it: a row left out has no problems, repeats no value and is not delivered, but the rows keep their numbers.
   */
  leftOut: LeftOutCheck;
}

/** A mapped row, and whether the reviewer left it out (it is then not delivered, and its problems count nowhere). */
export type SourceRow = MappedRow & { left_out?: true };

export interface MappedSource {
  plan: FieldPlan[];
  /** Data rows (the header row skipped) in target shape, in batches, streamed from the stored source. */
  batches: AsyncGenerator<SourceRow[]>;
}

/** What a read of a run's rows may leave out. */
export interface PlannedRowsOptions {
  /**
   * The fields whose columns the reader reads: the other cells of a delimited file read by the row scanner are given
   * as empty text (a workbook's rows, and rows papaparse reads, come whole). For a reader that looks at these fields
   * only (the duplicates pass's keys): a wide file's other cells are never made.
   */
  fieldsRead?: readonly string[];
}

/**
 * A run's stored data rows with the plan of a mapping (columns resolved, transformations,
 * the reviewer's fixes and checks compiled once), for a reader that maps them itself and
 * counts the rows (cellOf needs each row's number, from 1). `duplicates` is the duplicates
 * pass's answer for the same run, mapping and fixes, when the schema asks for unique values.
 * `fromRow` (a data row's number) starts the read there: from the nearest row index entry
 * before it when the file has an index, else from the top, skipping. Stopping the iteration
 * early closes the underlying blob stream.
 */
export async function readPlannedRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  duplicates: DuplicateRows | null = null,
  fromRow = 1,
  options: PlannedRowsOptions = {},
): Promise<PlannedRows> {
  const plan = planFields(run.schema.fields, mapping, run.source_headers, run.value_fixes ?? [], duplicates, {
    workbookNumbers: run.source_format === 'xlsx',
  });
  const key = run.rows_key ?? run.source_key;
  // Rows as the reader yields them, from 0: the rows above the header (a title) and the header row are among them.
  const target = fromRow - 1 + rowsBeforeDataOf(run);
  // Near the top a read from the top is as quick as loading the index.
  const resume = target > RESUME_AFTER_ROWS ? await resumePoint(blobs, run, key, target) : null;
  const open = () => blobs.openRead(key, { start: resume?.byte ?? 0 });
  let input = await open();
  const papaparseRows = async (from: Readable): Promise<AsyncIterable<string[][]>> =>
    (
      await openTable(from, run.source_format ?? 'delimited', run.delimiter, {
        encoding: encodingOf(run),
        alreadyIngested: true,
        limits: readLimitsOf(run),
        sheet: run.sheet,
        resumeWithLinebreak: resume?.linebreak,
        // Given from the first data row down: a title's or a header's merge is none of the records' values.
        ...(run.merged_cells?.length ? { mergedCells: { refs: run.merged_cells, firstDataRow: rowsBeforeDataOf(run) + 1 } } : {}),
      })
    ).batches;
  const scanned = scannedRowsOf(run, key, input, resume?.linebreak, columnsRead(plan, options.fieldsRead));
  let rows: AsyncIterable<string[][]> = scanned ?? (await papaparseRows(input));

  async function* batches(): AsyncGenerator<string[][]> {
    const skip = target - (resume?.rows ?? 0);
    const given = { rows: 0 }; // rows of the read passed over or handed out so far
    try {
      try {
        yield* past(rows, skip, given);
      } catch (err) {
        if (!(err instanceof NotPlainDelimited) || rows !== scanned) throw err;
        // The scanner stopped where papaparse reads by rules of its own: papaparse reads the file again from the same
        // start, past the rows already given (they are the same rows: scanned-rows.property.spec.ts in libs/tabular).
        notPlainSources.add(key);
        input.destroy();
        input = await open();
        rows = await papaparseRows(input);
        yield* past(rows, Math.max(skip, given.rows), { rows: 0 });
      }
    } finally {
      input.destroy();
    }
  }
  // Let go unread, the stream has no reader to hear an error it still meets (a read under way): a listener keeps it from
  // the process. A workbook's reader has let the stream go already and opened its package by the file's path: its rows,
  // given up too, close that.
  const release = async () => {
    input.once('error', () => undefined).destroy();
    await rows[Symbol.asyncIterator]().return?.(undefined);
  };
  const leftOut = compileRowsLeftOut(run);
  return { plan, batches: releasedUnstarted(batches(), release), firstRow: fromRow, leftOut };
}

/** The batches of `rows` past their first `skip` rows; `given.rows` counts the rows passed over or handed out. */
async function* past(rows: AsyncIterable<string[][]>, skip: number, given: { rows: number }): AsyncGenerator<string[][]> {
  for await (const batch of rows) {
    const from = Math.max(0, skip - given.rows);
    given.rows += batch.length;
    if (from >= batch.length) continue;
    yield from > 0 ? batch.slice(from) : batch;
  }
}

/**
 * Sources (by key) a scan found not plain in this thread: their later reads go to papaparse at once. A few at most are
 * expected (most files are plain); past a thousand the memory starts again.
 */
const notPlainSources = new Set<string>();
const NOT_PLAIN_REMEMBERED = 1_000;

/**
 * The rows of a delimited source read by the row scanner (libs/tabular's scannedRows: faster than papaparse, and only
 * the columns asked for); null for a workbook, a run without its recorded delimiter and encoding, or a source a scan
 * found not plain before.
 */
function scannedRowsOf(
  run: RunState,
  key: string,
  input: Readable,
  resumeWithLinebreak: string | undefined,
  columns: boolean[] | null,
): AsyncGenerator<string[][]> | null {
  if (notPlainSources.size > NOT_PLAIN_REMEMBERED) notPlainSources.clear();
  const encoding = encodingOf(run);
  if (run.source_format === 'xlsx' || !run.delimiter || !encoding || notPlainSources.has(key)) return null;
  return scannedRows(input, { delimiter: run.delimiter, encoding, limits: readLimitsOf(run), resumeWithLinebreak, columns });
}

/** The columns of `fields` (by position), or null for every column. */
function columnsRead(plan: FieldPlan[], fields: readonly string[] | undefined): boolean[] | null {
  if (fields === undefined) return null;
  const columns: boolean[] = [];
  for (const p of plan) if (p.column >= 0 && fields.includes(p.name)) columns[p.column] = true;
  return columns;
}

/**
 * Reads a run's stored source through a mapping: the one way both the review preview
 * and the final output see the data, so what a reviewer is shown is what gets written.
 * Stopping the iteration early closes the underlying blob stream.
 */
export async function readMappedSource(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  options: { typed: boolean; duplicates?: DuplicateRows | null; fromRow?: number },
): Promise<MappedSource> {
  const {
    plan,
    batches: rows,
    firstRow,
    leftOut,
  } = await readPlannedRows(blobs, run, mapping, options.duplicates ?? null, options.fromRow ?? 1);
  const mapped = (row: string[], rowNumber: number): SourceRow => {
    const record = mapRow(row, rowNumber, plan, options.typed);
    return leftOut?.(rowNumber) ? { ...record, problems: [], left_out: true } : record;
  };
  async function* batches(): AsyncGenerator<SourceRow[]> {
    try {
      let rowNumber = firstRow - 1;
      for await (const batch of rows) yield batch.map((row) => mapped(row, ++rowNumber));
    } finally {
      await rows.return(undefined);
    }
  }
  return { plan, batches: releasedUnstarted(batches(), () => rows.return(undefined)) };
}

/**
 * The first `count` data rows of a run's stored rows, as text, without mapping (the header row skipped), each cut to
 * the run's columns: past them a row holds empty cells only, up to a used range's 16,384 (source-problem.ts).
 * `toLastValue`: each cut after its last value instead, for rows that need not be the table's (a title above the
 * header, which may reach past the table's columns). `cellChars`: each value cut to its first so many characters.
 * `enough`: told each row kept, the read stops once it answers true.
 */
export async function readSampleRows(
  blobs: BlobStore,
  run: RunState,
  count: number,
  {
    toLastValue = false,
    cellChars = Infinity,
    enough,
  }: { toLastValue?: boolean; cellChars?: number; enough?: (row: string[]) => boolean } = {},
): Promise<string[][]> {
  const { batches } = await readPlannedRows(blobs, run, {});
  const sample: string[][] = [];
  const columns = run.source_headers.length;
  // Each value cut as it is read, when asked (shortenedText): the sample then holds no whole row of 1,000,000 characters.
  const cut = (row: string[]) => (cellChars === Infinity ? row : row.map((value) => shortenedText(value, cellChars).text));
  try {
    for await (const batch of batches) {
      for (const row of batch) {
        const width = toLastValue ? filledWidth(row) : columns;
        const kept = cut(row.length > width ? row.slice(0, width) : row);
        sample.push(kept);
        if (sample.length >= count || enough?.(kept)) return sample;
      }
    }
    return sample;
  } finally {
    await batches.return(undefined);
  }
}
