import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_KEYS } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { STAGES, runError, type RunState } from '@app/domain';
import { CpuWork } from '@app/infrastructure';
import { CheckpointedConsumer, contextFromEvent, failRunBecauseOf, throttle } from '@app/processing';
import { RunCommandHandler } from '@app/runs';
import type { OutputWritten } from '@app/run-source';

/**
 * After approval: streams the source again through the approved mapping, the field
 * transformations and the type checks, and writes the json/csv artifact, in a worker
 * thread (run-source's writeRunOutput). The blob is
 * written atomically, so a crash mid-write leaves no partial output; the redelivered
 * approval then produces it again from the start.
 */
@Injectable()
export class OutputConsumer extends CheckpointedConsumer {
  readonly group = 'output';
  private readonly logger = new Logger(OutputConsumer.name);

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commands: RunCommandHandler,
    private readonly cpu: CpuWork,
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
    // CpuWork records progress in order and settles after the last, so none lands after the outcome.
    const record = (rows: number) =>
      progress(() =>
        this.commands.execute(runId, { type: 'RecordOutputProgress', processed_rows: rows }, contextFromEvent(event, `progress/${rows}`)),
      );
    let written: OutputWritten;
    try {
      written = await this.cpu.run('writeRunOutput', { run, key }, { onProgress: record });
    } catch (err) {
      this.logger.error(`Run ${runId}: output failed: ${(err as Error).message}`);
      return this.fail(event, runId, runError('storageFailed', STAGES.finalProcessing));
    }
    const rows = written.rows;
    const rowsWithProblems = written.rowsWithProblems;
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
