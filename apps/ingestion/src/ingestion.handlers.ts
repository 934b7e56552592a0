import { Controller, Inject, Logger } from '@nestjs/common';
import { quotaRefusals, stepTimer } from '@app/metrics';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { STAGES, runError, runPhase, type RunState } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import type { IngestionOutcome } from '@app/run-source';
import { type RunEventContext, type RunStep, throttle } from '@app/run-event-transport';
import { RecordSource } from './record-source';
import { StructuredFileReader } from './structured-file.reader';

/** Reading a file or waiting on an AI vendor takes long: the steps run under a claim, outside the bus's handler. */
const INGESTION = { consumer: 'ingestion', claimStep: true };

/**
 * Turns a run's source into rows (SourceParsed): a structured upload is parsed as a
 * stream; raw text and images go to the organization's AI provider; dry runs get
 * synthetic records. Non-dry file runs take their review-preparation quota unit here,
 * when preparation starts (docs/ai-providers.md).
 */
@Controller()
export class IngestionHandlers {
  private readonly logger = new Logger(IngestionHandlers.name);

  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly files: StructuredFileReader,
    private readonly records: RecordSource,
  ) {}

  /** A raw-text run is extracted as soon as it exists (it has no upload). */
  @EventPattern('RunCreated', INGESTION)
  async onRunCreated(@Ctx() { step }: RunEventContext): Promise<void> {
    let run = await step.run();
    // Only a run still waiting for its ingestion is touched: a redelivered event finds it done.
    if (!run || run.input_source !== 'raw' || runPhase(run) !== 'ingesting') return;
    if (run.status === 'queued')
      run = await step.apply({ command: { type: 'StartExtraction', at: new Date().toISOString() }, step: 'extraction-started' });
    const done = stepTimer('ingestion');
    await this.finish(step, await (run.dry_run ? this.records.synthetic(run) : this.records.extractFromText(run)), done);
  }

  /** Uploads and images start when the file is there. */
  @EventPattern('SourceUploaded', INGESTION)
  async onSourceUploaded(@Ctx() { step }: RunEventContext): Promise<void> {
    const run = await step.run();
    if (!run || runPhase(run) !== 'ingesting' || run.status !== 'processing') return;
    if (!run.dry_run && !(await this.takeQuota(step, run))) return;
    const done = stepTimer('ingestion');
    if (run.dry_run) return this.finish(step, await this.records.synthetic(run), done);
    if (run.input_source === 'image') return this.finish(step, await this.records.extractFromImage(run), done);
    const progress = throttle(1000);
    // Progress is informational: a store that cannot record it now does not stop the ingestion.
    const outcome = await this.files.read(run, (rows) =>
      progress(() => step.apply({ command: { type: 'RecordIngestionProgress', processed_rows: rows }, step: `progress/${rows}` })).catch(
        (err: Error) => this.logger.warn(`Run ${run.id}: progress not recorded: ${err.message}`),
      ),
    );
    await this.finish(step, outcome, done);
  }

  /** One unit per run, taken once even when the event is handled again. */
  private async takeQuota(step: RunStep, run: RunState): Promise<boolean> {
    const taken = await this.directory.consumeReviewPreparation(run.organization_id, run.id);
    if (taken === 'consumed' || taken === 'already') return true;
    quotaRefusals.inc({ quota: 'review_preparation' });
    await step.fail(runError('quotaExceeded', STAGES.reviewPreparation));
    return false;
  }

  private async finish(step: RunStep, outcome: IngestionOutcome, done: (rows: number) => void): Promise<void> {
    if ('failed' in outcome) {
      await step.fail(outcome.failed);
      return;
    }
    await step.apply({ command: { type: 'RecordParse', parse: outcome.parsed }, step: 'parsed' });
    done(outcome.parsed.total_rows);
  }
}
