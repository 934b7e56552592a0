import type { WebhookAttempted, WebhookEventName } from '@app/contracts';

/**
 * Every webhook attempt of every run, by organization: the console's delivery log. A
 * projection of WebhookAttempted written by the projector; each attempt is one entry keyed
 * by `<delivery_id>:<attempt>`, so replaying events writes nothing new.
 */
export interface DeliveryAttemptEntry {
  /** `<delivery_id>:<attempt>`: unique per attempt. */
  id: string;
  organization_id: string;
  run_id: string;
  delivery_id: string;
  event: WebhookEventName;
  /** Where the attempt went; null for attempts recorded before the URL was (and no scheduled URL known). */
  url: string | null;
  attempt: number;
  outcome: 'delivered' | 'failed';
  status_code: number | null;
  error: string | null;
  /** null for attempts recorded before durations were measured. */
  duration_ms: number | null;
  response_excerpt: string | null;
  sent_at: string;
}

export type DeliveryOutcome = DeliveryAttemptEntry['outcome'];

export interface DeliveryLogQuery {
  event?: WebhookEventName;
  outcome?: DeliveryOutcome;
  offset: number;
  limit: number;
}

export interface DeliveryLog {
  /** Adds an attempt; an entry with the same id already there is kept as it is (replays, two projectors). */
  record(entry: DeliveryAttemptEntry): Promise<void>;
  /** The organization's attempts, newest first (`sent_at`, then id), filtered, one page, with the filtered total. */
  list(organizationId: string, query: DeliveryLogQuery): Promise<{ items: DeliveryAttemptEntry[]; total: number }>;
  close(): Promise<void>;
}

export const DELIVERY_LOG = Symbol('DELIVERY_LOG');

export const deliveryAttemptId = (deliveryId: string, attempt: number): string => `${deliveryId}:${attempt}`;

/** The log entry of a WebhookAttempted event; `scheduledUrl` stands in for older events that lack their URL. */
export function deliveryAttemptEntry(
  runId: string,
  organizationId: string,
  attempt: WebhookAttempted,
  scheduledUrl: string | null = null,
): DeliveryAttemptEntry {
  return {
    id: deliveryAttemptId(attempt.delivery_id, attempt.attempt),
    organization_id: organizationId,
    run_id: runId,
    delivery_id: attempt.delivery_id,
    event: attempt.event,
    url: attempt.url ?? scheduledUrl,
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    status_code: attempt.status_code,
    error: attempt.error,
    duration_ms: attempt.duration_ms ?? null,
    response_excerpt: attempt.response_excerpt ?? null,
    // Older attempts carry only their end.
    sent_at: attempt.sent_at ?? attempt.attempted_at,
  };
}
