import { Inject, Injectable } from '@nestjs/common';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { STAGES, runError, type RunState } from '@app/domain';
import { CheckpointedConsumer, contextFromEvent, failRunBecauseOf, throttle } from '@app/processing';
import { DIRECTORY, type Directory } from '@app/read-model';
import { RunCommandHandler } from '@app/runs';
import type { IngestionOutcome } from '@app/run-source';
import { RecordSource } from './record-source';
import { StructuredFileReader } from './structured-file.reader';

/**
 * Turns a run's source into rows (SourceParsed): a structured upload is parsed as a
 * stream; raw text and images go to the organization's AI provider; dry runs get
 * synthetic records. Non-dry file runs take their review-preparation quota unit here,
 * when preparation starts (docs/ai-providers.md).
 */
@Injectable()
export class IngestionConsumer extends CheckpointedConsumer {
  readonly group = 'ingestion';

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly commands: RunCommandHandler,
    private readonly files: StructuredFileReader,
    private readonly records: RecordSource,
  ) {
    super(checkpoints);
  }

  protected async process(event: StoredEvent): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    if (!runId || (event.type !== 'SourceUploaded' && event.type !== 'RunCreated')) return;
    let { state } = await this.commands.load(runId);
    // Only a run still waiting for its ingestion is touched: a redelivered event finds it done.
    if (!state || state.stage !== 'review' || state.status === 'failed' || state.total_rows !== null) return;

    if (state.input_source === 'raw') {
      if (state.status === 'queued') {
        ({ state } = await this.commands.execute(
          runId,
          { type: 'StartExtraction', at: new Date().toISOString() },
          contextFromEvent(event, 'extraction-started'),
        ));
      }
      return this.finish(event, runId, await (state.dry_run ? this.records.synthetic(state) : this.records.extractFromText(state)));
    }
    // Uploads and images start when the file is there.
    if (event.type !== 'SourceUploaded' || state.status !== 'processing') return;
    if (!state.dry_run && !(await this.takeQuota(event, state))) return;
    if (state.input_source === 'image') {
      return this.finish(event, runId, await (state.dry_run ? this.records.synthetic(state) : this.records.extractFromImage(state)));
    }
    if (state.dry_run) return this.finish(event, runId, await this.records.synthetic(state));
    const progress = throttle(1000);
    const outcome = await this.files.read(state, (rows) =>
      progress(() =>
        this.commands.execute(
          runId,
          { type: 'RecordIngestionProgress', processed_rows: rows },
          contextFromEvent(event, `progress/${rows}`),
        ),
      ),
    );
    return this.finish(event, runId, outcome);
  }

  /** One unit per run, taken once even when the event is handled again. */
  private async takeQuota(event: StoredEvent, run: RunState): Promise<boolean> {
    const taken = await this.directory.consumeReviewPreparation(run.organization_id, run.id);
    if (taken === 'consumed' || taken === 'already') return true;
    await failRunBecauseOf(this.commands, event, run.id, runError('quotaExceeded', STAGES.reviewPreparation));
    return false;
  }

  private async finish(event: StoredEvent, runId: string, outcome: IngestionOutcome): Promise<void> {
    if ('failed' in outcome) {
      await failRunBecauseOf(this.commands, event, runId, outcome.failed);
      return;
    }
    await this.commands.execute(runId, { type: 'RecordParse', parse: outcome.parsed }, contextFromEvent(event, 'parsed'));
  }
}
