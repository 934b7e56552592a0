import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import type { RunEventType } from '@app/contracts';
import { WEBHOOK_FOR_EVENT, webhookTarget } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import { deterministicId } from '@app/run-commands';
import type { RunEventContext, StepCommand } from '@app/run-event-transport';

const NOTIFIER = { consumer: 'notifier' };

/**
 * Records that a webhook is owed (WebhookScheduled) when a run finishes, its review is
 * canceled, or it fails; the delivery scheduler then makes the attempts. Runs with no
 * notify_url and no organization default owe nothing (notification_status stays null).
 */
@Controller()
export class NotifierHandlers {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  @EventPattern('OutputProduced', NOTIFIER)
  onOutputProduced(@Ctx() ctx: RunEventContext): Promise<StepCommand | undefined> {
    return this.scheduleWebhook(ctx);
  }

  @EventPattern('ReviewCanceled', NOTIFIER)
  onReviewCanceled(@Ctx() ctx: RunEventContext): Promise<StepCommand | undefined> {
    return this.scheduleWebhook(ctx);
  }

  @EventPattern('RunFailed', NOTIFIER)
  onRunFailed(@Ctx() ctx: RunEventContext): Promise<StepCommand | undefined> {
    return this.scheduleWebhook(ctx);
  }

  private async scheduleWebhook({ step }: RunEventContext): Promise<StepCommand | undefined> {
    const webhook = WEBHOOK_FOR_EVENT[step.event.type as RunEventType]!;
    const run = await step.run();
    if (!run || run.webhooks?.[webhook]) return;
    const org = await this.directory.getOrganization(run.organization_id);
    const url = webhookTarget(run.notify_url, org?.webhook_url ?? null);
    if (!url) return;
    return {
      command: {
        type: 'ScheduleWebhook',
        delivery: { delivery_id: deterministicId(`${run.id}/${webhook}`), event: webhook, url, due_at: new Date().toISOString() },
      },
      step: 'webhook-scheduled',
    };
  }
}
