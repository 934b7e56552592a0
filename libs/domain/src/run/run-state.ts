import type {
  Appearance,
  ReviewNotice,
  WebhookEventName,
  InputSource,
  MappingRule,
  OutputFormat,
  RunError,
  SchemaSnapshot,
} from '@app/contracts';

export type RunStatus = 'awaiting_upload' | 'queued' | 'processing' | 'completed' | 'failed';
export type RunStage = 'review' | 'final';
/** What is stored; `expired` is derived from `review_expires_at` when the run is read. */
export type StoredReviewState = 'active' | 'canceled' | 'approved' | null;

/** Everything known about a run, folded from its stream. Also the read model's document. */
export interface RunState {
  id: string;
  organization_id: string;
  revision: number;
  input_source: InputSource;
  schema: SchemaSnapshot;
  provider_id: string | null;
  dry_run: boolean;
  filename: string | null;
  input_has_header_override: boolean | null;
  output_format: OutputFormat;
  notify_url: string | null;
  success_callback: string | null;
  cancel_callback: string | null;
  locale: string;
  appearance: Appearance | null;
  metadata: Record<string, unknown> | null;
  column_labels: Record<string, string | null> | null;
  source_key: string;
  /** Where the tabular rows are read from: the source itself, or extracted/synthetic records (SourceParsed.rows_key). */
  rows_key: string;
  rows_origin: 'file' | 'extracted' | 'synthetic' | null;
  review_notices: ReviewNotice[];
  upload_expires_at: string | null;

  status: RunStatus;
  stage: RunStage;
  review_state: StoredReviewState;
  review_canceled_at: string | null;
  review_approved_at: string | null;
  review_expires_at: string | null;
  mapping_rule: MappingRule | null;
  /**
   * Counts the mappings the review has had: 1 when prepared, +1 per edit. A reviewer's
   * save names the version it was made on, so a stale tab cannot overwrite a newer edit.
   */
  mapping_version: number;
  source_headers: string[];
  input_has_header: boolean | null;
  total_rows: number | null;
  processed_rows: number;
  source_uploaded: boolean;
  source_format: 'delimited' | 'xlsx' | null;
  delimiter: string | null;
  encoding: string | null;
  error: RunError | null;
  /** Latest outcome of the transformation.finished webhook (the spec's field); null when none is owed. */
  notification_status: 'pending' | 'delivered' | 'failed' | null;
  /** Every webhook owed for this run, by event name. */
  webhooks: Partial<Record<WebhookEventName, WebhookDelivery>>;
  /** The earliest pending attempt's due time, for the notifier's schedule; null when nothing is pending. */
  webhook_due_at: string | null;
  output_key: string | null;
  rows_with_problems: number | null;
  file_retention_until: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
}

export interface WebhookDelivery {
  delivery_id: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
}

/** The state of a run that does not exist yet. */
export type RunFold = RunState | null;

export const isReviewExpired = (run: RunState, now: Date): boolean =>
  run.review_state === 'active' && run.review_expires_at !== null && Date.parse(run.review_expires_at) <= now.getTime();

/** `review_state` as the API shows it: `expired` once an active review's deadline passed. */
export const effectiveReviewState = (run: RunState, now: Date): 'active' | 'canceled' | 'approved' | 'expired' | null =>
  isReviewExpired(run, now) ? 'expired' : run.review_state;

/** Terminal: failed, final output done, review canceled, or review expired (docs/decisions.md). */
export const isTerminal = (run: RunState, now: Date): boolean =>
  run.status === 'failed' ||
  (run.stage === 'final' && run.status === 'completed') ||
  run.review_state === 'canceled' ||
  isReviewExpired(run, now);
