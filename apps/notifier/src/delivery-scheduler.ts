import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { withLogContext } from '@app/logging';
import { webhookAttempts } from '@app/metrics';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { WebhookEventName } from '@app/contracts';
import { CommandRefused, isOutputGone, nextAttemptAt, type RunState, type WebhookDelivery } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { RunLinks } from '@app/run-links';
import { inRunTrace } from '@app/tracing';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Poller } from '@app/polling';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { LEASE_STORE, type LeaseStore, leaseHolder } from '@app/leases';
import { webhookPayload } from './webhook-payload';
import { type AttemptResult, WebhookSender } from '@app/webhook-sending';

const DUE_BATCH = 20;
/** Pages of the schedule one look reads at most, past runs in flight or held by other replicas. */
const MAX_PAGES = 5;

/**
 * Makes webhook attempts when they are due. The schedule lives in the run streams
 * (WebhookScheduled / WebhookAttempted, projected as webhook_due_at), so a restart
 * loses nothing: the next poll finds what is due. Each attempt is recorded as an event
 * before the next one can be planned; a delivered webhook is never sent again.
 */
@Injectable()
export class DeliveryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryScheduler.name);
  private readonly inFlight = new Map<string, Promise<void>>();
  /** This replica's name on the leases it takes. */
  private readonly holder = leaseHolder('notifier');
  private readonly poller: Poller;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly links: RunLinks,
    private readonly sender: WebhookSender,
    @Inject(LEASE_STORE) private readonly leases: LeaseStore,
  ) {
    this.poller = new Poller(DeliveryScheduler.name, config.webhooks.pollMs, () => this.tick());
  }

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * One look at the schedule: start attempts for due runs not already being worked on, here
   * or by another notifier replica (a lease per run). The look reaches past the runs in
   * flight and the ones other replicas hold (a few pages at most), so deliveries to slow
   * endpoints never hide the rest and no replica starves behind another's.
   */
  async tick(now = new Date()): Promise<void> {
    const room = this.config.webhooks.concurrency - this.inFlight.size;
    if (room <= 0 || this.poller.stopped) return;
    const wanted = Math.min(room, DUE_BATCH);
    const looked = new Set<string>();
    let started = 0;
    for (let page = 0, limit = this.inFlight.size + wanted; page < MAX_PAGES && started < wanted; page++, limit += DUE_BATCH) {
      let due: string[];
      try {
        due = await this.readModel.listDueWebhooks(now.toISOString(), limit);
      } catch (err) {
        this.logger.error(`Could not read the webhook schedule: ${(err as Error).message}`);
        return;
      }
      for (const runId of due) {
        if (looked.has(runId) || this.inFlight.has(runId) || this.poller.stopped || started >= wanted) continue;
        looked.add(runId);
        if (!(await this.claim(runId))) continue;
        started++;
        this.start(runId);
      }
      if (due.length < limit) return; // the whole schedule was seen
    }
  }

  private start(runId: string): void {
    const work = this.attemptDue(runId)
      .catch((err) => this.logger.error(`Run ${runId}: webhook attempt failed: ${(err as Error).message}`))
      .finally(() => {
        this.inFlight.delete(runId);
        void this.leases.release(`webhook:${runId}`, this.holder).catch(() => undefined);
      });
    this.inFlight.set(runId, work);
  }

  /** The run's deliveries are this replica's until the attempt is recorded (or the lease runs out, if it dies). */
  private async claim(runId: string): Promise<boolean> {
    try {
      // Long enough for every attempt due now to time out and be recorded.
      return await this.leases.acquire(`webhook:${runId}`, this.holder, this.config.webhooks.timeoutMs * 3 + 10_000);
    } catch (err) {
      this.logger.warn(`Run ${runId}: could not claim its webhook delivery: ${(err as Error).message}`);
      return false;
    }
  }

  private async attemptDue(runId: string): Promise<void> {
    // The stream, not the projection, says what is still owed.
    const { state, trace } = await this.queryBus.execute(new LoadRunQuery(runId));
    if (!state) return;
    for (const [event, delivery] of Object.entries(state.webhooks ?? {}) as [WebhookEventName, WebhookDelivery][]) {
      if (delivery.status !== 'pending' || !delivery.next_attempt_at || Date.parse(delivery.next_attempt_at) > Date.now()) continue;
      // The attempt's log lines say whose it is: operators look for one tenant's failing webhooks by these fields.
      const fields = { run_id: state.id, organization_id: state.organization_id, webhook_event: event, delivery_id: delivery.delivery_id };
      // Tracing on: the attempt (its HTTP call, the event recording it) is a span of the run's trace.
      const span = { 'run.id': state.id, 'webhook.event': event, 'webhook.delivery_id': delivery.delivery_id };
      await withLogContext(fields, () =>
        inRunTrace(trace, `notifier webhook ${event}`, span, () => this.attempt(state, event, delivery, delivery.attempts + 1)),
      );
    }
  }

  private async attempt(run: RunState, event: WebhookEventName, delivery: WebhookDelivery, attempt: number): Promise<void> {
    const { delivery_id: deliveryId, url } = delivery;
    const org = await this.directory.getOrganization(run.organization_id);
    const body = JSON.stringify(await webhookPayload(run, event, this.links));
    // Recorded beside its end (attempted_at, from which the next attempt is planned): the deliveries list shows when it was sent.
    const sentAt = new Date();
    // The spec's transformation.finished carries a download link: once the output is deleted (an attempt later than the
    // retention, after a long outage or under a retention shorter than the retries) there is none to give, and the
    // event is not sent with `download_url: null`; the delivery is given up and says why.
    const unsendable = !org
      ? 'the organization no longer exists'
      : event === 'transformation.finished' && isOutputGone(run, sentAt)
        ? `the output was deleted when its retention ended (${run.file_retention_until}): there is no download link to send`
        : null;
    const result: AttemptResult =
      org && !unsendable
        ? await this.sender.send(url, { deliveryId, event, runId: run.id, secret: org.webhook_secret, body })
        : { delivered: false, statusCode: null, error: unsendable, retryAfterMs: null, durationMs: 0, responseExcerpt: null };
    webhookAttempts.inc({ event, outcome: result.delivered ? 'delivered' : 'failed' });
    const at = new Date();
    const next = result.delivered
      ? null
      : nextAttemptAt(
          attempt,
          {
            // A delivery sent again on request gets one attempt per request, not a new round of retries; one that cannot be sent, none more.
            maxAttempts: !unsendable && !delivery.resent_at ? this.config.webhooks.maxAttempts : attempt,
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
              sent_at: sentAt.toISOString(),
              next_attempt_at: next?.toISOString() ?? null,
              url,
              duration_ms: result.durationMs,
              response_excerpt: result.responseExcerpt,
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
