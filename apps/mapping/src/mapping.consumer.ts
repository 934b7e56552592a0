import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { suggestMapping } from '@app/domain';
import { CheckpointedConsumer, contextFromEvent } from '@app/processing';
import { RunCommandHandler } from '@app/runs';

/** Prepares the review once the source is parsed: a suggested mapping and the review deadline. */
@Injectable()
export class MappingConsumer extends CheckpointedConsumer {
  readonly group = 'mapping';

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commands: RunCommandHandler,
  ) {
    super(checkpoints);
  }

  protected async process(event: StoredEvent): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    if (!runId || event.type !== 'SourceParsed') return;
    const { state } = await this.commands.load(runId);
    if (!state || state.review_state !== null || state.status !== 'processing' || state.total_rows === null) return;
    const now = new Date();
    await this.commands.execute(runId, {
      type: 'PrepareReview',
      mapping_rule: suggestMapping(state.schema.fields, state.source_headers),
      review_expires_at: new Date(now.getTime() + this.config.reviewTtlSeconds * 1000).toISOString(),
      at: now.toISOString(),
    }, contextFromEvent(event, 'review-prepared'));
  }
}
