import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { RunError, SourceParsed } from '@app/contracts';
import { STAGES, detectHeader, headerNames, rowIndexKeyOf, runError, type RunState } from '@app/domain';
import { SourceProblem, openTable, tableFormatOf, type OpenedTable, type TableLimits } from '@app/tabular';

/** What reading a run's source ended with: the parsed source, or why the run fails. */
export type IngestionOutcome = { parsed: SourceParsed } | { failed: RunError };

const HEADER_SAMPLE_ROWS = 20;

/**
 * Reads an uploaded CSV/TSV/TXT/XLSX once, as a stream: its headers, row count, format,
 * delimiter and encoding; every hostile-file limit is checked on the way. A workbook's
 * sheets are listed and the first visible one with data is read, unless `sheet` names the
 * one to read (a reviewer's choice: the package was checked at ingestion). Where the rows of a delimited
 * file start is stored beside it (a row index). `onProgress`
 * hears the rows read so far after each batch. Storage errors throw (they are not the
 * file's fault); problems of the file itself are returned as the run's failure.
 */
export async function inspectStructuredFile(
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
  sheet?: string,
): Promise<IngestionOutcome> {
  const format = tableFormatOf(run.filename ?? '');
  if (!format) return { failed: runError('unreadableFile', STAGES.ingestion, { message: 'The file type is not a structured file.' }) };
  let table: OpenedTable;
  try {
    table = await openTable(await blobs.openRead(run.source_key), format.format, format.delimiter, {
      limits,
      ...(sheet === undefined ? { sheet: { choose: true } } : { sheet, alreadyIngested: true }),
    });
  } catch (err) {
    if (err instanceof SourceProblem) return { failed: runError(err.kind, STAGES.ingestion, { message: err.message }) };
    throw err;
  }
  let rows = 0;
  let width = 0;
  let firstRow: string[] | null = null;
  const sample: string[][] = [];
  try {
    for await (const batch of table.batches) {
      for (const row of batch) {
        if (!firstRow) firstRow = row;
        if (sample.length < HEADER_SAMPLE_ROWS) sample.push(row);
        if (row.length > width) width = row.length;
      }
      rows += batch.length;
      onProgress(rows);
    }
  } catch (err) {
    if (err instanceof SourceProblem) return { failed: runError(err.kind, STAGES.ingestion, { message: err.message }) };
    return { failed: runError('unreadableFile', STAGES.ingestion, { context: [(err as Error).message] }) };
  }
  if (!firstRow) return { failed: runError('emptyFile', STAGES.ingestion) };
  // Kept beside the file, so the review's pages and the output's halves can start reading anywhere in it.
  const index = table.rowIndex();
  if (index && index.entries.length > 0)
    await blobs.put(rowIndexKeyOf(run.source_key), Readable.from([JSON.stringify(index)]), { contentType: 'application/json' });
  const hasHeader = run.input_has_header_override ?? detectHeader(sample);
  return {
    parsed: {
      source_headers: headerNames(firstRow, hasHeader, width),
      input_has_header: hasHeader,
      total_rows: rows - (hasHeader ? 1 : 0),
      source_format: table.format,
      delimiter: table.delimiter,
      encoding: table.encoding,
      rows_origin: 'file',
      ...(table.sheets ? { sheets: table.sheets } : {}),
      ...(table.sheet !== undefined ? { sheet: table.sheet } : {}),
    },
  };
}
