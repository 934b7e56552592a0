import type { WebhookEventName } from '@app/contracts';
import { effectiveReviewState, type RunState } from '@app/domain';
import type { RunLinks } from '@app/run-links';

/** The spec's webhook payload: the event name and the run's state at the time of sending. */
export async function webhookPayload(run: RunState, event: WebhookEventName, links: RunLinks, now = new Date()) {
  const finished = run.stage === 'final' && run.status === 'completed';
  return {
    event,
    id: run.id,
    status: run.status,
    stage: run.stage,
    schema_id: run.schema.id,
    metadata: run.metadata ?? {},
    review_url: links.reviewUrl(run.id),
    review_state: effectiveReviewState(run, now),
    review_canceled_at: run.review_canceled_at,
    review_approved_at: run.review_approved_at,
    review_expires_at: run.review_expires_at,
    mapping_rule: run.mapping_rule,
    source_headers: run.source_headers,
    completed_at: run.completed_at,
    failed_at: run.failed_at,
    error: run.error,
    // A fresh pre-signed URL per attempt; only a finished run has one.
    download_url: finished ? await links.download(run, now) : null,
    // An addition to the spec's payload (docs/api.md): rows with a problem the reviewer chose to leave out.
    rows_excluded: finished ? (run.rows_excluded ?? 0) : null,
  };
}
