import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { WebhookEventName } from '@app/contracts';
import { CommandRefused, nextAttemptAt, type RunState } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { RunLinks } from '@app/run-links';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { webhookPayload } from './webhook-payload';
import { WebhookSender } from './webhook-sender';

const DUE_BATCH = 20;

/**
 * Makes webhook attempts when they are due. The schedule lives in the run streams
 * (WebhookScheduled / WebhookAttempted, projected as webhook_due_at), so a restart
 * loses nothing: the next poll finds what is due. Each attempt is recorded as an event
 * before the next one can be planned; a delivered webhook is never sent again.
 */
@Injectable()
export class DeliveryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryScheduler.name);
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly links: RunLinks,
    private readonly sender: WebhookSender,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled(this.inFlight.values());
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick().finally(() => this.schedule()), this.config.webhooks.pollMs);
  }

  /** One look at the schedule: start attempts for due runs not already being worked on. */
  async tick(now = new Date()): Promise<void> {
    let due: string[];
    try {
      due = await this.readModel.listDueWebhooks(now.toISOString(), DUE_BATCH);
    } catch (err) {
      this.logger.error(`Could not read the webhook schedule: ${(err as Error).message}`);
      return;
    }
    for (const runId of due) {
      if (this.inFlight.has(runId) || this.stopped) continue;
      const work = this.attemptDue(runId)
        .catch((err) => this.logger.error(`Run ${runId}: webhook attempt failed: ${(err as Error).message}`))
        .finally(() => this.inFlight.delete(runId));
      this.inFlight.set(runId, work);
    }
  }

  private async attemptDue(runId: string): Promise<void> {
    // The stream, not the projection, says what is still owed.
    const { state } = await this.queryBus.execute(new LoadRunQuery(runId));
    if (!state) return;
    for (const [event, delivery] of Object.entries(state.webhooks ?? {}) as [
      WebhookEventName,
      NonNullable<RunState['webhooks'][WebhookEventName]>,
    ][]) {
      if (delivery.status !== 'pending' || !delivery.next_attempt_at || Date.parse(delivery.next_attempt_at) > Date.now()) continue;
      await this.attempt(state, event, delivery.delivery_id, delivery.url, delivery.attempts + 1);
    }
  }

  private async attempt(run: RunState, event: WebhookEventName, deliveryId: string, url: string, attempt: number): Promise<void> {
    const org = await this.directory.getOrganization(run.organization_id);
    const body = JSON.stringify(await webhookPayload(run, event, this.links));
    const result = org
      ? await this.sender.send(url, { deliveryId, event, runId: run.id, secret: org.webhook_secret, body })
      : { delivered: false, statusCode: null, error: 'the organization no longer exists', retryAfterMs: null };
    const at = new Date();
    const next = result.delivered
      ? null
      : nextAttemptAt(
          attempt,
          {
            maxAttempts: org ? this.config.webhooks.maxAttempts : attempt,
            delaysMs: this.config.webhooks.retryDelaysMs,
            maxRetryAfterMs: this.config.webhooks.maxRetryAfterMs,
          },
          at,
          result.retryAfterMs,
        );
    if (!result.delivered)
      this.logger.warn(`Run ${run.id}: ${event} attempt ${attempt} failed: ${result.error}${next ? '' : ' (giving up)'}`);
    try {
      await this.commandBus.execute(
        new ApplyRunCommand(
          run.id,
          {
            type: 'RecordWebhookAttempt',
            attempt: {
              delivery_id: deliveryId,
              event,
              attempt,
              outcome: result.delivered ? 'delivered' : 'failed',
              status_code: result.statusCode,
              error: result.error,
              attempted_at: at.toISOString(),
              next_attempt_at: next?.toISOString() ?? null,
            },
          },
          {
            organizationId: run.organization_id,
            correlationId: run.id,
            causationId: deliveryId,
            idempotencyKey: `${deliveryId}/attempt-${attempt}`,
          },
        ),
      );
    } catch (err) {
      // Another notifier recorded this attempt first: nothing is lost.
      if (!(err instanceof CommandRefused)) throw err;
    }
  }
}
