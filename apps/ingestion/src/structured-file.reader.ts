import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { STAGES, detectHeader, headerNames, runError, type RunState } from '@app/domain';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { SourceProblem, openTable, tableFormatOf, type OpenedTable } from '@app/tabular';
import type { IngestionOutcome } from './ingestion-outcome';

const HEADER_SAMPLE_ROWS = 20;

/** Reads an uploaded CSV/TSV/TXT/XLSX as a stream: its headers and row count, reporting progress. */
@Injectable()
export class StructuredFileReader {
  private readonly logger = new Logger(StructuredFileReader.name);

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async read(run: RunState, onProgress: (rows: number) => Promise<void>): Promise<IngestionOutcome> {
    const format = tableFormatOf(run.filename ?? '');
    if (!format) return { failed: runError('unreadableFile', STAGES.ingestion, { message: 'The file type is not a structured file.' }) };
    let table: OpenedTable;
    try {
      table = await openTable(await this.blobs.openRead(run.source_key), format.format, format.delimiter, {
        limits: this.config.tableLimits,
      });
    } catch (err) {
      if (err instanceof SourceProblem) return { failed: runError(err.kind, STAGES.ingestion, { message: err.message }) };
      this.logger.error(`Run ${run.id}: the stored source could not be opened: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
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
        await onProgress(rows);
      }
    } catch (err) {
      if (err instanceof SourceProblem) return { failed: runError(err.kind, STAGES.ingestion, { message: err.message }) };
      return { failed: runError('unreadableFile', STAGES.ingestion, { context: [(err as Error).message] }) };
    }
    if (!firstRow) return { failed: runError('emptyFile', STAGES.ingestion) };
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
      },
    };
  }
}
