import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { STAGES, detectHeader, headerNames, runError, type RunState } from '@app/domain';
import { CheckpointedConsumer, contextFromEvent, failRunBecauseOf, throttle } from '@app/processing';
import { RunCommandHandler } from '@app/runs';
import { openTable, tableFormatOf, type OpenedTable } from '@app/tabular';

const HEADER_SAMPLE_ROWS = 20;

/**
 * Turns an uploaded structured file into headers and a row count (SourceParsed), reading
 * it as a stream. Raw-text and image runs need an AI provider, which this service does
 * not have yet: they fail with `extraction_not_available`.
 */
@Injectable()
export class IngestionConsumer extends CheckpointedConsumer {
  readonly group = 'ingestion';
  private readonly logger = new Logger(IngestionConsumer.name);

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly commands: RunCommandHandler,
  ) {
    super(checkpoints);
  }

  protected async process(event: StoredEvent): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    if (!runId || (event.type !== 'SourceUploaded' && event.type !== 'RunCreated')) return;
    const { state } = await this.commands.load(runId);
    // Only a run still waiting for its ingestion is touched: a redelivered event finds it done.
    if (!state || state.stage !== 'review' || state.status === 'failed' || state.total_rows !== null) return;

    if (state.input_source !== 'upload') {
      if (event.type === 'RunCreated' && state.input_source === 'image') return; // waits for its upload
      await this.fail(event, runId, runError('extractionNotAvailable', STAGES.ingestion));
      return;
    }
    if (event.type !== 'SourceUploaded' || state.status !== 'processing') return;
    await this.parse(event, runId, state);
  }

  private async parse(event: StoredEvent, runId: string, run: RunState): Promise<void> {
    const format = tableFormatOf(run.filename ?? '');
    if (!format) return this.fail(event, runId, runError('unreadableFile', STAGES.ingestion, { message: 'The file type is not a structured file.' }));
    let table: OpenedTable;
    try {
      table = await openTable(await this.blobs.openRead(run.source_key), format.format, format.delimiter);
    } catch (err) {
      this.logger.error(`Run ${runId}: the stored source could not be opened: ${(err as Error).message}`);
      return this.fail(event, runId, runError('storageFailed', STAGES.ingestion));
    }
    const progress = throttle(1000);
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
        await progress(() => this.commands.execute(runId, { type: 'RecordIngestionProgress', processed_rows: rows }, contextFromEvent(event, `progress/${rows}`)));
      }
    } catch (err) {
      return this.fail(event, runId, runError('unreadableFile', STAGES.ingestion, { context: [(err as Error).message] }));
    }
    if (!firstRow) return this.fail(event, runId, runError('emptyFile', STAGES.ingestion));
    const hasHeader = run.input_has_header_override ?? detectHeader(sample);
    await this.commands.execute(runId, {
      type: 'RecordParse',
      parse: {
        source_headers: headerNames(firstRow, hasHeader, width),
        input_has_header: hasHeader,
        total_rows: rows - (hasHeader ? 1 : 0),
        source_format: table.format,
        delimiter: table.delimiter,
        encoding: table.encoding,
      },
    }, contextFromEvent(event, 'parsed'));
  }

  private async fail(event: StoredEvent, runId: string, error: ReturnType<typeof runError>): Promise<void> {
    await failRunBecauseOf(this.commands, event, runId, error);
  }
}
