import { Inject, Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { BLOB_KEYS, BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { STAGES, runError, type MappedRow, type RunState } from '@app/domain';
import { CheckpointedConsumer, contextFromEvent, failRunBecauseOf, throttle } from '@app/processing';
import { RunCommandHandler } from '@app/runs';
import { readMappedSource } from '@app/run-source';
import { csvChunks, jsonArrayChunks, type OutputRecord } from '@app/tabular';

/**
 * After approval: streams the source again through the approved mapping, the field
 * transformations and the type checks, and writes the json/csv artifact. The blob is
 * written atomically, so a crash mid-write leaves no partial output; the redelivered
 * approval then produces it again from the start.
 */
@Injectable()
export class OutputConsumer extends CheckpointedConsumer {
  readonly group = 'output';
  private readonly logger = new Logger(OutputConsumer.name);

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commands: RunCommandHandler,
  ) {
    super(checkpoints);
  }

  protected async process(event: StoredEvent): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    if (!runId || event.type !== 'ReviewApproved') return;
    let { state } = await this.commands.load(runId);
    if (!state || state.stage !== 'final') return;
    if (state.status === 'queued') {
      ({ state } = await this.commands.execute(
        runId,
        { type: 'StartOutput', at: new Date().toISOString() },
        contextFromEvent(event, 'output-started'),
      ));
    }
    // 'processing' here means an earlier attempt died mid-way: produce the output again.
    if (state.status !== 'processing') return;
    await this.produce(event, runId, state);
  }

  private async produce(event: StoredEvent, runId: string, run: RunState): Promise<void> {
    const key = BLOB_KEYS.output(runId, run.output_format);
    const progress = throttle(1000);
    let rows = 0;
    let rowsWithProblems = 0;
    const commands = this.commands;
    const typed = run.output_format === 'json';

    async function* records(batches: AsyncIterable<MappedRow[]>): AsyncGenerator<OutputRecord[]> {
      for await (const batch of batches) {
        const out: OutputRecord[] = [];
        for (const mapped of batch) {
          if (mapped.problems.length > 0) rowsWithProblems++;
          out.push(mapped.record);
        }
        rows += out.length;
        yield out;
        await progress(() =>
          commands.execute(runId, { type: 'RecordOutputProgress', processed_rows: rows }, contextFromEvent(event, `progress/${rows}`)),
        );
      }
    }

    try {
      const source = await readMappedSource(this.blobs, run, run.mapping_rule ?? {}, { typed });
      const chunks = typed
        ? jsonArrayChunks(records(source.batches))
        : csvChunks(
            source.plan.map((p) => p.name),
            records(source.batches),
          );
      await this.blobs.put(key, Readable.from(chunks), { contentType: typed ? 'application/json' : 'text/csv' });
    } catch (err) {
      this.logger.error(`Run ${runId}: output failed: ${(err as Error).message}`);
      return this.fail(event, runId, runError('storageFailed', STAGES.finalProcessing));
    }
    const now = new Date();
    await this.commands.execute(
      runId,
      {
        type: 'CompleteOutput',
        output: {
          output_key: key,
          output_format: run.output_format,
          rows_written: rows,
          rows_with_problems: rowsWithProblems,
          file_retention_until: new Date(now.getTime() + this.config.outputRetentionSeconds * 1000).toISOString(),
          completed_at: now.toISOString(),
        },
      },
      contextFromEvent(event, 'output-produced'),
    );
  }

  private async fail(event: StoredEvent, runId: string, error: ReturnType<typeof runError>): Promise<void> {
    await failRunBecauseOf(this.commands, event, runId, error);
  }
}
