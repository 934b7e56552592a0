import type { RunCreated, RunEvent, RunFailed } from '@app/contracts';
import { evolve } from '../run/evolve';
import type { RunFold } from '../run/run-state';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/** Events of one run (r1) at each point of its life, for the decider's and the handlers' specs. */
export const T0 = '2026-01-01T00:00:00.000Z';
export const LATER = '2026-01-02T00:00:00.000Z';
export const AFTER_EXPIRY = '2026-02-01T00:00:00.000Z';

export const created = (over: Partial<RunCreated> = {}): RunEvent => ({
  type: 'RunCreated',
  data: {
    run_id: 'r1',
    organization_id: 'o1',
    input_source: 'upload',
    schema: {
      id: 's1',
      name: 'People',
      fields: {
        email: { description: 'Email', data_type: 'email', is_required: true },
        name: { description: 'Name', data_type: 'string', is_required: false },
      },
    },
    provider_id: null,
    dry_run: false,
    filename: 'a.csv',
    input_has_header: null,
    output_format: 'json',
    notify_url: null,
    success_callback: null,
    cancel_callback: null,
    locale: 'en',
    appearance: null,
    metadata: null,
    column_labels: null,
    source_key: 'runs/r1/source',
    upload_expires_at: LATER,
    created_at: T0,
    ...over,
  },
});
export const uploaded: EventOf<'SourceUploaded'> = { type: 'SourceUploaded', data: { size_bytes: 10, uploaded_at: T0 } };
export const parsed: EventOf<'SourceParsed'> = {
  type: 'SourceParsed',
  data: {
    source_headers: ['E-mail', 'Full name'],
    input_has_header: true,
    total_rows: 2,
    source_format: 'delimited',
    delimiter: ',',
    encoding: 'utf-8',
  },
};
export const mapping = { email: 'E-mail', name: null };
export const prepared: EventOf<'ReviewPrepared'> = {
  type: 'ReviewPrepared',
  data: { mapping_rule: mapping, mapping_origin: 'heuristic', review_expires_at: '2026-01-08T00:00:00.000Z', prepared_at: T0 },
};
export const edited: EventOf<'MappingEdited'> = {
  type: 'MappingEdited',
  data: { mapping_rule: { email: 'Full name', name: null }, edited_at: T0 },
};
export const scheduled: EventOf<'WebhookScheduled'> = {
  type: 'WebhookScheduled',
  data: { delivery_id: 'd1', event: 'transformation.finished', url: 'https://h', due_at: T0 },
};
export const attempt = (n: number, outcome: 'delivered' | 'failed', next: string | null) => ({
  delivery_id: 'd1',
  event: 'transformation.finished' as const,
  attempt: n,
  outcome,
  status_code: outcome === 'delivered' ? 200 : 500,
  error: outcome === 'delivered' ? null : 'HTTP 500',
  attempted_at: T0,
  next_attempt_at: next,
});
export const attempted = (n: number, outcome: 'delivered' | 'failed', next: string | null): RunEvent => ({
  type: 'WebhookAttempted',
  data: attempt(n, outcome, next),
});
export const approved: EventOf<'ReviewApproved'> = { type: 'ReviewApproved', data: { mapping_rule: mapping, approved_at: T0 } };
export const canceled: EventOf<'ReviewCanceled'> = { type: 'ReviewCanceled', data: { canceled_at: T0 } };
export const outputStarted: EventOf<'OutputStarted'> = { type: 'OutputStarted', data: { started_at: T0 } };
export const produced: EventOf<'OutputProduced'> = {
  type: 'OutputProduced',
  data: { output_key: 'k', output_format: 'json', rows_written: 2, rows_with_problems: 0, file_retention_until: LATER, completed_at: T0 },
};
export const failed: EventOf<'RunFailed'> = {
  type: 'RunFailed',
  data: { error: { code: 'x', message: 'x', type: 'x', stage: 'ingestion', retryable: false, context: [] }, failed_at: T0 },
};

export const DAY = 24 * 3600;
export const purged = (reason: 'output_retention' | 'review_canceled' | 'review_expired' | 'run_failed', keys: string[]): RunEvent => ({
  type: 'FilesPurged',
  data: { keys, reason, purged_at: AFTER_EXPIRY },
});
export const rawParsed: EventOf<'SourceParsed'> = {
  type: 'SourceParsed',
  data: { ...(parsed.data as object), rows_key: 'runs/r1/rows.csv', rows_origin: 'extracted' } as never,
};

export const fold = (events: RunEvent[]): RunFold => events.reduce<RunFold>((s, e, i) => evolve(s, e, i, T0), null);

/** Histories of run r1, by where it stands. */
export const HISTORY = {
  nothing: [] as RunEvent[],
  awaitingUpload: [created()],
  rawQueued: [created({ input_source: 'raw', filename: null })],
  processing: [created(), uploaded],
  parsed: [created(), uploaded, parsed],
  reviewActive: [created(), uploaded, parsed, prepared],
  approved: [created(), uploaded, parsed, prepared, approved],
  outputRunning: [created(), uploaded, parsed, prepared, approved, outputStarted],
  completedFinal: [created(), uploaded, parsed, prepared, approved, outputStarted, produced],
  canceled: [created(), uploaded, parsed, prepared, canceled],
  failed: [created(), uploaded, failed],
  uploadExpired: [
    created(),
    { type: 'RunFailed', data: { error: { ...(failed as { data: RunFailed }).data.error, code: 'upload_expired' }, failed_at: LATER } },
  ] as RunEvent[],
  rawCanceled: [
    created({ input_source: 'raw', filename: null }),
    { type: 'ExtractionStarted', data: { started_at: T0 } },
    rawParsed,
    prepared,
    canceled,
  ] as RunEvent[],
};
