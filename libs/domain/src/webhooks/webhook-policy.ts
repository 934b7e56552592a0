import type { RunEventType, WebhookEventName } from '@app/contracts';

/** The run events that owe a webhook, and the webhook each owes (spec: Events). Review readiness and edits owe none. */
export const WEBHOOK_FOR_EVENT: Partial<Record<RunEventType, WebhookEventName>> = {
  OutputProduced: 'transformation.finished',
  ReviewCanceled: 'transformation.review.canceled',
  RunFailed: 'transformation.failed',
};

export interface RetryPolicy {
  maxAttempts: number;
  /** Delay before attempt n+1 after attempt n failed: delays[n-1] (the last one repeats). */
  delaysMs: number[];
  /** A receiver's Retry-After (429/503) longer than this is capped to it. */
  maxRetryAfterMs: number;
}

/**
 * When the next attempt is due after attempt `attempt` failed, or null when the budget
 * is spent. A Retry-After from the receiver replaces the configured delay (capped), but
 * never adds attempts. Pure.
 */
export function nextAttemptAt(attempt: number, policy: RetryPolicy, failedAt: Date, retryAfterMs: number | null): Date | null {
  if (attempt >= policy.maxAttempts) return null;
  const configured = policy.delaysMs[Math.min(attempt - 1, policy.delaysMs.length - 1)] ?? 0;
  const delay = retryAfterMs === null ? configured : Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return new Date(failedAt.getTime() + delay);
}

/** Where a run's webhooks go: the run's notify_url, else the organization's default, else nowhere. */
export const webhookTarget = (notifyUrl: string | null, organizationDefault: string | null): string | null =>
  notifyUrl ?? organizationDefault ?? null;
