import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { runStreamId, type StoredEvent, type WebhookAttempted, type WebhookEventName, type WebhookScheduled } from '@app/contracts';
import { CommandRefused, type RunFold } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import { ProjectionWaiter } from '@app/read-model';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import {
  DELIVERY_LOG,
  type DeliveryAttemptEntry,
  type DeliveryLog,
  type DeliveryOutcome,
  deliveryAttemptEntry,
} from '@app/read-model/delivery-log.port';
import { ApplyRunCommand, foldRun } from '@app/run-commands';
import { type TestEventResult, WebhookTestEvents, hideWebhookSecrets } from '@app/webhook-sending';
import { ApiError } from '../http/api-error';
import { choiceParam, paramsSentAsLists } from '../http/one-value-params';
import { type PageRequest, pageRequest, paginate } from '../http/pagination';
import { callbackUrlProblem } from '../http/validate-body';

/** Deliveries are paged 20 at a time by default, 100 at most. */
export const DELIVERY_PAGES = { defaultPerPage: 20, maxPerPage: 100 };
export const WEBHOOK_EVENTS: readonly WebhookEventName[] = [
  'transformation.finished',
  'transformation.review.canceled',
  'transformation.failed',
];
export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['delivered', 'failed'];

/** One attempt as the API shows it (`GET /v1/transformations/{id}/deliveries`). */
export interface DeliveryAttemptView {
  /** `<delivery_id>:<attempt>`. */
  id: string;
  delivery_id: string;
  event: WebhookEventName;
  url: string | null;
  attempt: number;
  outcome: DeliveryOutcome;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  response_excerpt: string | null;
  sent_at: string;
}

/** In the organization's log, each attempt also names its run. */
export interface OrganizationDeliveryView extends DeliveryAttemptView {
  run_id: string;
}

export interface DeliveryListQuery {
  event?: unknown;
  outcome?: unknown;
  page?: unknown;
  per_page?: unknown;
}

/** What a re-send request answers: the delivery, pending again, and when its attempt is due. */
export interface ResendAccepted {
  delivery_id: string;
  event: WebhookEventName;
  run_id: string;
  status: 'pending';
  next_attempt_at: string;
}

const view = (e: DeliveryAttemptEntry): DeliveryAttemptView => ({
  id: e.id,
  delivery_id: e.delivery_id,
  event: e.event,
  url: e.url,
  attempt: e.attempt,
  outcome: e.outcome,
  status_code: e.status_code,
  error: e.error,
  duration_ms: e.duration_ms,
  // Excerpts stored before secrets were hidden as they arrived (webhook-sender.ts) are hidden as they are read.
  response_excerpt: e.response_excerpt === null ? null : hideWebhookSecrets(e.response_excerpt),
  sent_at: e.sent_at,
});

/**
 * Webhook deliveries for the public API and the console: a run's attempts (read from its
 * stream), the organization's delivery log (a projection), sending a delivery again, and
 * test events. Another organization's runs and deliveries are 404, like unknown ones.
 */
@Injectable()
export class DeliveriesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DELIVERY_LOG) private readonly log: DeliveryLog,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly commandBus: CommandBus,
    private readonly testEvents: WebhookTestEvents,
    private readonly waiter: ProjectionWaiter,
  ) {}

  /** A run's webhook attempts, newest first, in the pagination envelope; 404 for an unknown or another organization's run. */
  async listRunDeliveries(organizationId: string, runId: string, query: DeliveryListQuery = {}, path?: string) {
    const page = pageRequest(query as Record<string, unknown>, DELIVERY_PAGES);
    const events = await this.runStream(organizationId, runId);
    return this.attemptsPage(organizationId, runId, events, page, path);
  }

  /**
   * The run's attempts as `listRunDeliveries` lists them, each with `delivery_next_attempt_at`:
   * when its delivery's next attempt is planned (a retry, or a re-send not yet made), null once
   * it has settled; and `delivery_newest`: whether it is its delivery's newest attempt, wherever
   * that one is listed (a page cannot tell: the newest may be on an earlier page). All come from
   * one read of the stream, so an attempt is never shown beside a plan older than itself (the
   * projection may not have caught up with the attempt yet), nor beside a newest from another read.
   */
  async listRunDeliveriesWithPlan(organizationId: string, runId: string, query: DeliveryListQuery, path: string) {
    const page = pageRequest(query as Record<string, unknown>, DELIVERY_PAGES);
    const events = await this.runStream(organizationId, runId);
    const planned = plannedAttempts(foldRun(events));
    const newest = newestAttempts(events);
    const list = this.attemptsPage(organizationId, runId, events, page, path);
    return {
      ...list,
      data: list.data.map((a) => ({
        ...a,
        delivery_next_attempt_at: planned.get(a.delivery_id) ?? null,
        delivery_newest: newest.get(a.delivery_id) === a.attempt,
      })),
    };
  }

  private attemptsPage(organizationId: string, runId: string, events: StoredEvent[], page: PageRequest, path?: string) {
    const urls = new Map<string, string>();
    const attempts: DeliveryAttemptEntry[] = [];
    for (const e of events) {
      if (e.type === 'WebhookScheduled') urls.set((e.data as WebhookScheduled).delivery_id, (e.data as WebhookScheduled).url);
      if (e.type === 'WebhookAttempted') {
        const a = e.data as WebhookAttempted;
        attempts.push(deliveryAttemptEntry(runId, organizationId, a, urls.get(a.delivery_id) ?? null));
      }
    }
    // Newest first: the stream's own order, reversed (attempt times can tie).
    attempts.reverse();
    const slice = attempts.slice(page.offset, page.offset + page.perPage).map(view);
    return paginate(slice, attempts.length, page, path ?? `${this.config.publicBaseUrl}/v1/transformations/${runId}/deliveries`);
  }

  /**
   * Every webhook attempt of the organization, newest first, optionally only one `event`
   * and one `outcome` (`delivered`, `failed`), in the pagination envelope; 422 on bad values.
   */
  async listOrganizationDeliveries(organizationId: string, query: DeliveryListQuery = {}, path?: string) {
    const fields: Record<string, string[]> = {};
    const event = choiceParam(query as Record<string, unknown>, 'event', WEBHOOK_EVENTS, fields);
    const outcome = choiceParam(query as Record<string, unknown>, 'outcome', DELIVERY_OUTCOMES, fields);
    let page;
    try {
      page = pageRequest(query as Record<string, unknown>, DELIVERY_PAGES);
    } catch (err) {
      if (err instanceof ApiError && err.fields) Object.assign(fields, err.fields);
      else throw err;
    }
    Object.assign(fields, paramsSentAsLists(query as Record<string, unknown>, ['event', 'outcome']));
    if (Object.keys(fields).length > 0 || !page) throw ApiError.validation(fields);
    const { items, total } = await this.log.list(organizationId, { event, outcome, offset: page.offset, limit: page.perPage });
    const data: OrganizationDeliveryView[] = items.map((e) => ({ ...view(e), run_id: e.run_id }));
    const carried = { ...(event ? { event } : {}), ...(outcome ? { outcome } : {}) };
    return paginate(data, total, page, path ?? `${this.config.publicBaseUrl}/console/api/deliveries`, carried);
  }

  /**
   * Sends a delivered or failed delivery again: one new attempt of the same event (same
   * delivery id and `X-Service-Id`, the attempt number going on), due at once. 404 for an
   * unknown or another organization's run or delivery; 409 `delivery_pending` while the
   * delivery still has an attempt planned (a retry, or an earlier re-send not yet made); 410
   * `files_deleted` for a `transformation.finished` whose output is deleted (it carries its link).
   */
  async resendDelivery(organizationId: string, runId: string, deliveryId: string, requestedBy: string): Promise<ResendAccepted> {
    await this.runStream(organizationId, runId);
    const at = new Date().toISOString();
    try {
      const result = await this.commandBus.execute(
        new ApplyRunCommand(
          runId,
          { type: 'ResendWebhook', delivery_id: deliveryId, requested_by: requestedBy, at },
          { organizationId, correlationId: runId, causationId: `resend:${deliveryId}` },
        ),
      );
      // Read-your-writes: the run resource shows the delivery pending again once this is answered.
      await this.waiter.waitFor(runId, result.revision);
      const event = (Object.entries(result.state.webhooks ?? {}).find(([, d]) => d?.delivery_id === deliveryId)?.[0] ??
        null) as WebhookEventName | null;
      return { delivery_id: deliveryId, event: event!, run_id: runId, status: 'pending', next_attempt_at: at };
    } catch (err) {
      if (err instanceof CommandRefused && err.code === 'webhook_not_scheduled') throw ApiError.notFound('delivery');
      if (err instanceof CommandRefused && err.code === 'delivery_pending') throw ApiError.conflict('delivery_pending', err.message);
      if (err instanceof CommandRefused && err.code === 'files_deleted') throw new ApiError(410, 'files_deleted', 'not_found', err.message);
      throw err;
    }
  }

  /**
   * One signed test event (docs/webhooks.md, "Test events") to `url`, or to the
   * organization's default webhook URL when none is given: 422 when there is neither.
   * Nothing is recorded or retried.
   */
  async sendTestEvent(organizationId: string, url?: string | null): Promise<TestEventResult> {
    const org = await this.directory.getOrganization(organizationId);
    if (!org) throw ApiError.notFound('organization');
    const target = url ?? asSent(org.webhook_url);
    if (!target) throw ApiError.validation({ url: ['No webhook URL is set: save one in the webhook settings first.'] });
    const problem = callbackUrlProblem(target, this.config.production, this.config.webhooks.allowedAddresses);
    if (problem) throw ApiError.validation({ url: [`The url field ${problem}`] });
    return this.testEvents.send(organizationId, target);
  }

  /** The run's stream when it is the organization's; 404 otherwise (unknown and foreign alike). */
  private async runStream(organizationId: string, runId: string): Promise<StoredEvent[]> {
    const events = await this.store.readStream(runStreamId(runId)).catch(() => [] as StoredEvent[]);
    if (events.length === 0 || events[0].metadata.organization_id !== organizationId) throw ApiError.notFound('transformation run');
    return events;
  }
}

/**
 * A saved URL as the sender calls it. URLs saved before blanks and invisible characters were
 * refused (2026-12-01) still get deliveries, the URL parser having encoded or dropped those
 * characters; their test event goes to the same place rather than failing the new rule.
 */
function asSent(saved: string | null): string | null {
  if (!saved || !URL.canParse(saved)) return saved;
  return new URL(saved).href;
}

/** The run's pending deliveries, by delivery id: when each one's next attempt is due. */
function plannedAttempts(run: RunFold): Map<string, string> {
  const planned = new Map<string, string>();
  for (const d of Object.values(run?.webhooks ?? {}))
    if (d?.status === 'pending' && d.next_attempt_at) planned.set(d.delivery_id, d.next_attempt_at);
  return planned;
}

/** Each delivery's newest attempt in the run's stream, by delivery id: its attempt number (they only go up). */
function newestAttempts(events: StoredEvent[]): Map<string, number> {
  const newest = new Map<string, number>();
  for (const e of events) {
    if (e.type !== 'WebhookAttempted') continue;
    const a = e.data as WebhookAttempted;
    if (a.attempt > (newest.get(a.delivery_id) ?? 0)) newest.set(a.delivery_id, a.attempt);
  }
  return newest;
}
