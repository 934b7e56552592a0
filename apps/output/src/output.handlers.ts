import { Controller, Inject, Logger } from '@nestjs/common';
import { stepTimer } from '@app/metrics';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { BLOB_KEYS, BlobTooLargeError } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { STAGES, runError, runPhase, uniquenessGroups, type RunState } from '@app/domain';
import { DuplicateRowsFinder, isThreadOutOfMemory } from '@app/cpu-work';
import { type RunEventContext, type RunStep, isTransient, throttle } from '@app/run-event-transport';
import type { OutputWritten } from '@app/run-source';
import { OutputWriter } from './output-writer';

/** What the run's error and the review page say: the limit in words, and what causes it (docs/decisions.md). */
const outputTooLargeMessage = (maxBytes: number): string =>
  `The output would be larger than the ${maxBytes.toLocaleString('en-US')} bytes allowed for this file; nothing of it was kept. ` +
  'Fixes that make many values much longer cause this: start a new run with fewer of them.';

/**
 * After approval: streams the source again through the approved mapping, the field
 * transformations and the type checks, and writes the json/csv artifact, in worker
 * threads (OutputWriter: a big file's halves at once). The blob is written atomically, so a crash
 * mid-write leaves no partial output; the redelivered approval then produces it again
 * from the start.
 */
@Controller()
export class OutputHandlers {
  private readonly logger = new Logger(OutputHandlers.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly duplicatesFinder: DuplicateRowsFinder,
    private readonly writer: OutputWriter,
  ) {}

  // Writing a big output takes long: a claimed step, outside the bus's handler.
  @EventPattern('ReviewApproved', { consumer: 'output', claimStep: true })
  async onReviewApproved(@Ctx() { step }: RunEventContext): Promise<void> {
    let run = await step.run();
    if (!run || runPhase(run) !== 'producing_output') return;
    if (run.status === 'queued')
      run = await step.apply({ command: { type: 'StartOutput', at: new Date().toISOString() }, step: 'output-started' });
    // Already 'processing' here means an earlier attempt died mid-way: produce the output again.
    await this.produce(step, run);
  }

  private async produce(step: RunStep, run: RunState): Promise<void> {
    const key = BLOB_KEYS.output(run.id, run.output_format);
    const progress = throttle(1000);
    // CpuWork records progress in order and settles after the last, so none lands after the outcome.
    // Progress is informational: a store that cannot record it now does not stop the output.
    const record = (rows: number) =>
      progress(() => step.apply({ command: { type: 'RecordOutputProgress', processed_rows: rows }, step: `progress/${rows}` })).catch(
        (err: Error) => this.logger.warn(`Run ${run.id}: progress not recorded: ${err.message}`),
      );
    let written: OutputWritten;
    const done = stepTimer('output');
    try {
      // Values that must be unique: the whole-file duplicates pass first, its answer checks each row written.
      const duplicates = uniquenessGroups(run.schema).length > 0 ? await this.duplicatesFinder.find(run, run.mapping_rule ?? {}) : null;
      written = await this.writer.write(run, key, record, duplicates);
    } catch (err) {
      // An outage (the blob store unreachable, a full disk) is retried by the transport; anything else fails the run.
      if (isTransient(err)) throw err;
      if (err instanceof BlobTooLargeError) {
        this.logger.warn(`Run ${run.id}: the output passed its limit of ${err.maxBytes} bytes; nothing was kept`);
        await step.fail(
          runError('outputTooLarge', STAGES.finalProcessing, {
            message: outputTooLargeMessage(err.maxBytes),
            context: [`max ${err.maxBytes} bytes`],
          }),
        );
        return;
      }
      if (isThreadOutOfMemory(err)) {
        this.logger.error(`Run ${run.id}: output failed: its file-work thread reached its heap's limit (CPU_WORKER_HEAP_MB)`);
        await step.fail(runError('outOfMemory', STAGES.finalProcessing));
        return;
      }
      this.logger.error(`Run ${run.id}: output failed: ${(err as Error).message}`);
      await step.fail(runError('storageFailed', STAGES.finalProcessing));
      return;
    }
    const now = new Date();
    await step.apply({
      command: {
        type: 'CompleteOutput',
        output: {
          output_key: key,
          output_format: run.output_format,
          rows_written: written.rows,
          rows_with_problems: written.rowsWithProblems,
          rows_excluded: written.rowsExcluded,
          file_retention_until: new Date(now.getTime() + this.config.outputRetentionSeconds * 1000).toISOString(),
          completed_at: now.toISOString(),
        },
      },
      step: 'output-produced',
    });
    done(written.rows + written.rowsExcluded);
  }
}
