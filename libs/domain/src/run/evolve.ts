import type { MappingRule, RunEvent } from '@app/contracts';
import { MAPPING_REMEMBERED_NOTICE } from '../mapping/remembered-mapping';
import type { RunFold, RunState, SheetColumns, WebhookDelivery } from './run-state';

/**
 * A sheet's mapping kept as places in its headers (RunState.sheet_columns): a field whose column the headers do not
 * name (none should) is left out, to be placed on return as on a sheet never worked on.
 */
function columnsByPlace(rule: MappingRule | null, headers: readonly string[] | undefined): SheetColumns {
  const places = new Map((headers ?? []).map((name, place) => [name, place] as const));
  const columns: SheetColumns = {};
  for (const [field, column] of Object.entries(rule ?? {})) {
    if (column === null) columns[field] = null;
    else if (places.has(column)) columns[field] = places.get(column)!;
  }
  return columns;
}

function withWebhooks(run: RunState, webhooks: RunState['webhooks'], notification: RunState['notification_status']): RunState {
  const due =
    Object.values(webhooks)
      .map((w) => w?.next_attempt_at)
      .filter((t): t is string => !!t)
      .sort()[0] ?? null;
  return { ...run, webhooks, webhook_due_at: due, notification_status: notification };
}

/**
 * The file read again by a reviewer's choice (the header row, a sheet, an encoding): its headers, rows
 * and the mapping kept for them; a new mapping version, so a save made on the former one is refused.
 */
function readAgain(
  state: RunState,
  read: {
    input_has_header: boolean;
    source_headers: string[];
    total_rows: number;
    mapping_rule: MappingRule;
    rows_above_header?: string[];
  },
): Pick<
  RunState,
  'input_has_header' | 'rows_above_header' | 'source_headers' | 'total_rows' | 'processed_rows' | 'mapping_rule' | 'mapping_version'
> {
  return {
    input_has_header: read.input_has_header,
    rows_above_header: read.rows_above_header ?? [],
    source_headers: read.source_headers,
    total_rows: read.total_rows,
    processed_rows: read.total_rows,
    mapping_rule: read.mapping_rule,
    mapping_version: state.mapping_version + 1,
  };
}

/** The review's notices, saying (or no longer saying) that the columns are those approved last time. */
function noticesFor(state: RunState, remembered: boolean): RunState['review_notices'] {
  const others = (state.review_notices ?? []).filter((n) => n.code !== MAPPING_REMEMBERED_NOTICE.code);
  return remembered ? [...others, MAPPING_REMEMBERED_NOTICE] : others;
}

/**
 * Folds one event into the run's state. Pure; the decider, the projector and the
 * read-your-writes fallback all use this one function, so they cannot disagree.
 */
export function evolve(state: RunFold, event: RunEvent, revision: number, recordedAt: string): RunState {
  if (event.type === 'RunCreated') {
    const d = event.data;
    return {
      id: d.run_id,
      organization_id: d.organization_id,
      revision,
      input_source: d.input_source,
      schema: d.schema,
      provider_id: d.provider_id,
      dry_run: d.dry_run,
      filename: d.filename,
      input_has_header_override: d.input_has_header,
      output_format: d.output_format,
      notify_url: d.notify_url,
      success_callback: d.success_callback,
      cancel_callback: d.cancel_callback,
      locale: d.locale,
      appearance: d.appearance,
      metadata: d.metadata,
      column_labels: d.column_labels,
      source_key: d.source_key,
      rows_key: d.source_key,
      rows_origin: null,
      review_notices: [],
      upload_expires_at: d.upload_expires_at,
      status: d.input_source === 'raw' ? 'queued' : 'awaiting_upload',
      stage: 'review',
      review_state: null,
      review_canceled_at: null,
      review_approved_at: null,
      review_expires_at: null,
      mapping_rule: null,
      mapping_version: 0,
      value_fixes: [],
      problem_rows_choice: null,
      source_headers: [],
      input_has_header: null,
      total_rows: null,
      processed_rows: 0,
      source_uploaded: d.input_source === 'raw',
      source_format: null,
      delimiter: null,
      encoding: null,
      error: null,
      notification_status: null,
      webhooks: {},
      webhook_due_at: null,
      output_key: null,
      rows_with_problems: null,
      rows_excluded: null,
      file_retention_until: null,
      files_purged_at: null,
      created_at: d.created_at,
      updated_at: d.created_at,
      started_at: null,
      completed_at: null,
      failed_at: null,
    };
  }
  if (!state) throw new Error(`Cannot apply ${event.type} to a run that was never created`);
  const next: RunState = { ...state, revision, updated_at: recordedAt };
  switch (event.type) {
    case 'SourceUploaded':
      return { ...next, source_uploaded: true, status: 'processing', started_at: event.data.uploaded_at };
    case 'ExtractionStarted':
      return { ...next, status: 'processing', started_at: event.data.started_at };
    case 'IngestionProgressed':
      return { ...next, processed_rows: event.data.processed_rows };
    case 'SourceParsed':
      return {
        ...next,
        source_headers: event.data.source_headers,
        parsed_headers: event.data.source_headers,
        input_has_header: event.data.input_has_header,
        rows_above_header: event.data.rows_above_header ?? [],
        rows_above_header_found: event.data.rows_above_header ?? [],
        row_shape_rows_above: event.data.rows_above_header?.length ?? 0,
        total_rows: event.data.total_rows,
        processed_rows: event.data.total_rows,
        source_format: event.data.source_format,
        delimiter: event.data.delimiter,
        encoding: event.data.encoding,
        rows_key: event.data.rows_key ?? state.source_key,
        rows_origin: event.data.rows_origin ?? 'file',
        sheets: event.data.sheets ?? [],
        sheet: event.data.sheet ?? null,
        row_shape: event.data.row_shape ?? null,
        merged_cells: event.data.merged_cells ?? [],
        hidden_rows: event.data.hidden_rows ?? [],
        hidden_rows_total: event.data.hidden_rows_total ?? null,
        hidden_row_spans: event.data.hidden_row_spans ?? null,
        read_limits: event.data.read_limits ?? null,
      };
    case 'ReviewPrepared':
      return {
        ...next,
        status: 'completed',
        review_state: 'active',
        mapping_rule: event.data.mapping_rule,
        mapping_version: 1,
        review_notices: event.data.notices ?? [],
        review_expires_at: event.data.review_expires_at,
        ...(event.data.header
          ? {
              input_has_header: event.data.header.input_has_header,
              rows_above_header: event.data.header.rows_above_header ?? [],
              source_headers: event.data.header.source_headers,
              total_rows: event.data.header.total_rows,
              processed_rows: event.data.header.total_rows,
            }
          : {}),
        // Remembered picklist mappings start as fixes in force, which the reviewer can undo like any other.
        value_fixes: Object.entries(event.data.picklists ?? {}).map(([field, values]) => ({
          fix_id: `remembered:${field}`,
          field,
          fix: { kind: 'picklist', values },
          fixed_at: event.data.prepared_at,
        })),
      };
    case 'MappingEdited':
      return { ...next, mapping_rule: event.data.mapping_rule, mapping_version: state.mapping_version + 1 };
    case 'HeaderRowChosen':
      // Whether the columns are the ones approved before is said again for the columns as now read (an event recorded
      // before it said so leaves the notices as they were, as they were folded then).
      return {
        ...next,
        ...readAgain(state, event.data),
        ...(event.data.mapping_origin ? { review_notices: noticesFor(state, event.data.mapping_origin === 'remembered') } : {}),
      };
    case 'SheetChosen':
      // The headers as this sheet reads them: what an approved mapping is remembered by.
      return {
        ...next,
        sheet: event.data.sheet,
        parsed_headers: event.data.source_headers,
        row_shape: event.data.row_shape ?? null,
        merged_cells: event.data.merged_cells ?? [],
        hidden_rows: event.data.hidden_rows ?? [],
        hidden_rows_total: event.data.hidden_rows_total ?? null,
        hidden_row_spans: event.data.hidden_row_spans ?? null,
        // The sheet was read under the configuration of the moment of the choice: its rows are read again so.
        read_limits: event.data.read_limits ?? null,
        row_shape_rows_above: event.data.rows_above_header?.length ?? 0,
        rows_above_header_found: event.data.rows_above_header ?? [],
        ...readAgain(state, event.data),
        // Another sheet's columns are no file approved before.
        review_notices: noticesFor(state, false),
        ...(state.sheet
          ? {
              sheet_columns: { ...state.sheet_columns, [state.sheet]: columnsByPlace(state.mapping_rule, state.source_headers) },
            }
          : {}),
      };
    case 'EncodingChosen':
      // The headers as this encoding reads them: what an approved mapping is remembered by.
      return {
        ...next,
        encoding: event.data.encoding,
        parsed_headers: event.data.source_headers,
        row_shape: event.data.row_shape ?? null,
        row_shape_rows_above: event.data.rows_above_header?.length ?? 0,
        // The same rows: what the first read found stays found, also when the reviewer reads them as rows (then in
        // this encoding's letters when the event has them; older events kept the former encoding's).
        rows_above_header_found: event.data.rows_above_header ?? event.data.rows_above_header_found ?? state.rows_above_header_found ?? [],
        // Read in this encoding under the configuration of the moment of the choice: its rows are read again so.
        read_limits: event.data.read_limits ?? null,
        ...readAgain(state, event.data),
      };
    case 'ValuesFixed': {
      const { fix_id, field, fix, fixed_at } = event.data;
      return { ...next, value_fixes: [...(state.value_fixes ?? []), { fix_id, field, fix, fixed_at }] };
    }
    case 'ValueFixUndone':
      return { ...next, value_fixes: (state.value_fixes ?? []).filter((f) => f.fix_id !== event.data.fix_id) };
    case 'ReviewApproved':
      return {
        ...next,
        stage: 'final',
        status: 'queued',
        review_state: 'approved',
        review_approved_at: event.data.approved_at,
        mapping_rule: event.data.mapping_rule,
        problem_rows_choice: event.data.rows_with_problems ?? 'deliver',
        processed_rows: 0,
      };
    case 'ReviewCanceled':
      return { ...next, review_state: 'canceled', review_canceled_at: event.data.canceled_at };
    case 'OutputStarted':
      return { ...next, status: 'processing', processed_rows: 0 };
    case 'OutputProgressed':
      return { ...next, processed_rows: event.data.processed_rows };
    case 'OutputProduced':
      return {
        ...next,
        status: 'completed',
        output_key: event.data.output_key,
        // Rows processed: written, or left out at the reviewer's choice.
        processed_rows: event.data.rows_written + (event.data.rows_excluded ?? 0),
        rows_with_problems: event.data.rows_with_problems,
        rows_excluded: event.data.rows_excluded ?? 0,
        file_retention_until: event.data.file_retention_until,
        completed_at: event.data.completed_at,
      };
    case 'RunFailed':
      return { ...next, status: 'failed', error: event.data.error, failed_at: event.data.failed_at };
    case 'FilesPurged':
      return { ...next, files_purged_at: event.data.purged_at };
    case 'WebhookScheduled': {
      const d = event.data;
      const webhooks = {
        ...(state.webhooks ?? {}),
        [d.event]: {
          delivery_id: d.delivery_id,
          url: d.url,
          status: 'pending',
          attempts: 0,
          next_attempt_at: d.due_at,
          last_status_code: null,
          last_error: null,
        } satisfies WebhookDelivery,
      };
      return withWebhooks(next, webhooks, d.event === 'transformation.finished' ? 'pending' : next.notification_status);
    }
    case 'WebhookAttempted': {
      const d = event.data;
      const before = state.webhooks?.[d.event];
      if (!before) return next;
      const status: WebhookDelivery['status'] = d.outcome === 'delivered' ? 'delivered' : d.next_attempt_at ? 'pending' : 'failed';
      const webhooks = {
        ...state.webhooks,
        [d.event]: {
          ...before,
          status,
          attempts: d.attempt,
          next_attempt_at: status === 'pending' ? d.next_attempt_at : null,
          last_status_code: d.status_code,
          last_error: d.error,
        },
      };
      return withWebhooks(next, webhooks, d.event === 'transformation.finished' ? status : next.notification_status);
    }
    case 'WebhookResendRequested': {
      const d = event.data;
      const before = state.webhooks?.[d.event];
      if (!before || before.delivery_id !== d.delivery_id) return next;
      const webhooks = {
        ...state.webhooks,
        [d.event]: { ...before, status: 'pending', next_attempt_at: d.requested_at, resent_at: d.requested_at } satisfies WebhookDelivery,
      };
      return withWebhooks(next, webhooks, d.event === 'transformation.finished' ? 'pending' : next.notification_status);
    }
    default:
      // A type this code does not know (written by a newer release): it changes nothing we
      // track, but the run still moves on to its revision (docs/events.md, versioning policy).
      return next;
  }
}
