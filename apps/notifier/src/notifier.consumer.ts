import { Inject, Injectable } from '@nestjs/common';
import { runIdOfStream, type RunEventType, type StoredEvent } from '@app/contracts';
import { CHECKPOINT_STORE, type CheckpointStore } from '@app/event-store';
import { WEBHOOK_FOR_EVENT, webhookTarget } from '@app/domain';
import { CheckpointedConsumer, contextFromEvent } from '@app/processing';
import { DIRECTORY, type Directory } from '@app/read-model';
import { RunCommandHandler, deterministicId } from '@app/runs';

/**
 * Records that a webhook is owed (WebhookScheduled) when a run finishes, its review is
 * canceled, or it fails; the delivery scheduler then makes the attempts. Runs with no
 * notify_url and no organization default owe nothing (notification_status stays null).
 */
@Injectable()
export class NotifierConsumer extends CheckpointedConsumer {
  readonly group = 'notifier';

  constructor(
    @Inject(CHECKPOINT_STORE) checkpoints: CheckpointStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly commands: RunCommandHandler,
  ) {
    super(checkpoints);
  }

  protected async process(event: StoredEvent): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    const webhook = WEBHOOK_FOR_EVENT[event.type as RunEventType];
    if (!runId || !webhook) return;
    const { state } = await this.commands.load(runId);
    if (!state || state.webhooks?.[webhook]) return;
    const org = await this.directory.getOrganization(state.organization_id);
    const url = webhookTarget(state.notify_url, org?.webhook_url ?? null);
    if (!url) return;
    await this.commands.execute(
      runId,
      {
        type: 'ScheduleWebhook',
        delivery: { delivery_id: deterministicId(`${runId}/${webhook}`), event: webhook, url, due_at: new Date().toISOString() },
      },
      contextFromEvent(event, 'webhook-scheduled'),
    );
  }
}
