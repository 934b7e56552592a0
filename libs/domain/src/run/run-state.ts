import { uniquenessGroups } from '../fields/field-validators';
import type { AppliedFix } from '../fields/value-fixes';
import type {
  Appearance,
  RowShape,
  FilesPurgeReason,
  ReviewNotice,
  WebhookEventName,
  InputSource,
  MappingRule,
  OutputFormat,
  ProblemRowsChoice,
  RunError,
  SchemaSnapshot,
  SourceReadLimits,
  SourceSheet,
} from '@app/contracts';

export type RunStatus = 'awaiting_upload' | 'queued' | 'processing' | 'completed' | 'failed';
export type RunStage = 'review' | 'final';
/** What is stored; `expired` is derived from `review_expires_at` when the run is read. */
export type StoredReviewState = 'active' | 'canceled' | 'approved' | null;

/** A worksheet's mapping as the reviewer left it: each field's column by its place in the sheet's headers, or null. */
export type SheetColumns = Record<string, number | null>;

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
  /**
   * The reviewer's fixes of values still in force, in the order made (ValuesFixed less
   * ValueFixUndone). Documents folded before fixes existed lack it: read it as `?? []`.
   */
  value_fixes?: AppliedFix[];
  /** The approval's choice for rows that still have a problem; null before approval (older documents: absent). */
  problem_rows_choice?: ProblemRowsChoice | null;
  source_headers: string[];
  /** The headers as the ingestion read them (before any header choice): what remembered mappings are keyed by. Older documents: absent. */
  parsed_headers?: string[];
  input_has_header: boolean | null;
  /**
   * The rows above the header left out of every read (a title: SourceParsed.rows_above_header), each as its one value;
   * absent or empty: the table is read from its first row.
   */
  rows_above_header?: string[];
  /** Those the last read of the file found (the reviewer may read them again, then leave them out again). */
  rows_above_header_found?: string[];
  /**
   * How many rows above the header the last read of the file left out: `row_shape` was counted under the header then
   * (absent: none). Under another header row its numbers say nothing.
   */
  row_shape_rows_above?: number;
  total_rows: number | null;
  processed_rows: number;
  source_uploaded: boolean;
  source_format: 'delimited' | 'xlsx' | null;
  /** A workbook's worksheets (SourceParsed.sheets); empty or absent for other sources and runs parsed before sheets were listed. */
  sheets?: SourceSheet[];
  /**
   * The worksheet the rows are read from (SourceParsed.sheet, then SheetChosen); null or absent:
   * the first sheet with rows (not a workbook, or parsed before sheets were listed).
   */
  sheet?: string | null;
  /**
   * The mapping each worksheet had when the reviewer chose another (SheetChosen), each field's column by its place in
   * that sheet's headers then (null: the reviewer left the field without a column): taken back when they return to it,
   * so looking at another sheet loses no work. By place, not name, because the sheet may be read again under another
   * header choice ("E-mail" then, column_1 now; the columns are the same), and because a place is a number where a
   * header row may be a megabyte of names: the run's document stays small however many sheets are visited. Absent
   * until a sheet is chosen.
   */
  sheet_columns?: Record<string, SheetColumns>;
  /** Rows that do not line up with the first row, in the file as read now (SourceParsed, SheetChosen, EncodingChosen); null or absent: none, or not counted. */
  row_shape?: RowShape | null;
  /** The merges over rows of the workbook sheet read (SourceParsed, SheetChosen), which its reads fill in; absent: none. */
  merged_cells?: string[];
  /**
   * The hostile-file limits the file was read under (SourceParsed.read_limits, then SheetChosen's or EncodingChosen's),
   * which every later read of its rows applies; null or absent: the defaults.
   */
  read_limits?: SourceReadLimits | null;
  /** A workbook sheet's hidden rows (SourceParsed.hidden_rows): numbers as the file's rows are read, from 1. */
  hidden_rows?: number[];
  /** How many rows the sheet hides in all, when more than `hidden_rows` lists (SourceParsed.hidden_rows_total); null or absent: it lists them all. */
  hidden_rows_total?: number | null;
  /** Every row the sheet hides as spans, when `hidden_rows` does not list them all (SourceParsed.hidden_row_spans); null or absent: none kept. */
  hidden_row_spans?: Array<[number, number]> | null;
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
  /** Rows left out of the output at the reviewer's choice (OutputProduced.rows_excluded); null before the output. */
  rows_excluded?: number | null;
  file_retention_until: string | null;
  /**
   * When the sweeper deleted the run's files (FilesPurged); null while they are kept.
   * Documents folded before this field existed lack it: read it as `?? null`.
   */
  files_purged_at?: string | null;
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
  /**
   * Set when the delivery was sent again on request (WebhookResendRequested): from then on each
   * attempt is a single one, not retried. Absent on deliveries never re-sent.
   */
  resent_at?: string | null;
}

/** The state of a run that does not exist yet. */
export type RunFold = RunState | null;

export const isReviewExpired = (run: RunState, now: Date): boolean =>
  run.review_state === 'active' && run.review_expires_at !== null && Date.parse(run.review_expires_at) <= now.getTime();

/** `review_state` as the API shows it: `expired` once an active review's deadline passed. */
export const effectiveReviewState = (run: RunState, now: Date): 'active' | 'canceled' | 'approved' | 'expired' | null =>
  isReviewExpired(run, now) ? 'expired' : run.review_state;

/**
 * The review link shows nothing but the expired state once `review_expires_at` passed,
 * whatever the reviewer did before (docs/security.md): the link is a bearer secret and the
 * window is its lifetime. (`review_state` reads `expired` only for a review left active.)
 */
export const isReviewWindowOver = (run: RunState, now: Date): boolean =>
  run.review_expires_at !== null && Date.parse(run.review_expires_at) <= now.getTime();

/** The upload window ended and no file was recorded: the sweeper fails the run (upload_expired). */
export const isUploadOverdue = (run: RunState, now: Date): boolean =>
  run.input_source !== 'raw' &&
  run.status === 'awaiting_upload' &&
  !run.source_uploaded &&
  run.upload_expires_at !== null &&
  Date.parse(run.upload_expires_at) <= now.getTime();

/**
 * How long a run's files are kept, before applying the retention setting:
 * - `until`: a produced output's `file_retention_until` (recorded when it was produced);
 * - `closed`: when the run closed without output (failed, review canceled, review expired);
 *   its files are kept OUTPUT_RETENTION_SECONDS after that.
 * null while the run still needs its files (or may: an approved run being output), and
 * once they were purged.
 */
export type FileRetention = { kind: 'until' | 'closed'; at: string; reason: FilesPurgeReason };

export function fileRetention(run: RunState): FileRetention | null {
  if (run.files_purged_at) return null;
  if (run.status === 'failed' && run.failed_at) return { kind: 'closed', at: run.failed_at, reason: 'run_failed' };
  if (run.stage === 'final' && run.status === 'completed' && run.file_retention_until)
    return { kind: 'until', at: run.file_retention_until, reason: 'output_retention' };
  if (run.review_state === 'canceled' && run.review_canceled_at)
    return { kind: 'closed', at: run.review_canceled_at, reason: 'review_canceled' };
  // An active review closes at its deadline (approving first moves the run on to its output).
  if (run.review_state === 'active' && run.review_expires_at)
    return { kind: 'closed', at: run.review_expires_at, reason: 'review_expired' };
  return null;
}

/**
 * Whether a run's output can no longer be downloaded at `now`: it was deleted, or its retention ended (the purge may not
 * have run yet). A `transformation.finished` webhook carries a download link (the spec): it is not sent once this holds.
 */
export const isOutputGone = (run: RunState, now: Date): boolean =>
  !!run.files_purged_at || (run.file_retention_until !== null && Date.parse(run.file_retention_until) <= now.getTime());

/** When the run's files are to be deleted, and why; null when no deletion is planned (see fileRetention). */
export function filesPurgeDue(run: RunState, retentionSeconds: number): { due_at: string; reason: FilesPurgeReason } | null {
  const r = fileRetention(run);
  if (!r) return null;
  const due = r.kind === 'until' ? r.at : new Date(Date.parse(r.at) + retentionSeconds * 1000).toISOString();
  return { due_at: due, reason: r.reason };
}

/** Where the row index of a run's rows is kept (written beside them by ingestion's first read; docs/files.md, "Row index"). */
export const rowIndexKeyOf = (rowsKey: string): string => `${rowsKey}.row-index`;

/** Where the latest answer of a run's duplicates pass is kept (run-source's stored-duplicates). */
export const duplicatesKeyOf = (rowsKey: string): string => `${rowsKey}.duplicates`;

/** Where a run's answers from its schema's validation hook are kept (the gateway's validation-hook/, docs/validation-hook.md). */
export const hookAnswersKeyOf = (rowsKey: string): string => `${rowsKey}.hook-answers`;

/** A delimited file's row index, kept beside it; null for the runs that have none (workbooks, text, images). */
const rowIndexKeyOfRun = (run: RunState): string | null =>
  run.source_key && run.source_format === 'delimited' && run.rows_key === run.source_key ? rowIndexKeyOf(run.source_key) : null;

/** The duplicates pass's stored answer: only for schemas that ask for unique values. */
const duplicatesKeyOfRun = (run: RunState): string | null =>
  run.rows_key && run.schema && uniquenessGroups(run.schema).length > 0 ? duplicatesKeyOf(run.rows_key) : null;

/** The validation hook's kept answers: only for schemas that name a hook. */
const hookAnswersKeyOfRun = (run: RunState): string | null =>
  run.rows_key && run.schema?.validation_url ? hookAnswersKeyOf(run.rows_key) : null;

/** Every blob a run may have stored: the source, its row index, the extracted/synthetic rows, derived answers, the output. */
export const runFileKeys = (run: RunState): string[] => [
  ...new Set(
    [run.source_key, rowIndexKeyOfRun(run), run.rows_key, duplicatesKeyOfRun(run), hookAnswersKeyOfRun(run), run.output_key].filter(
      (k): k is string => !!k,
    ),
  ),
];

/** Terminal: failed, final output done, review canceled, or review expired (docs/decisions.md). */
/**
 * How the run's rows are read now: the sheet, the encoding and whether the first row is the header. Whatever
 * is remembered of what the rows hold (counts, samples, duplicates, the customer's checks) is keyed by it, so a
 * reviewer's choice of another sheet, encoding or header row is never answered from what the former one read.
 */
export const sourceReadingKey = (run: RunState): string =>
  JSON.stringify([run.sheet ?? null, run.encoding ?? null, run.input_has_header, rowsAboveHeaderOf(run)]);

/** How many rows at the top of the table every read skips before the header (or the first data row). */
export const rowsAboveHeaderOf = (run: Pick<RunState, 'rows_above_header'>): number => run.rows_above_header?.length ?? 0;

/** How many rows at the top of the table every read skips before the first data row: those above the header, and the header. */
export const rowsBeforeDataOf = (run: Pick<RunState, 'rows_above_header' | 'input_has_header'>): number =>
  rowsAboveHeaderOf(run) + (run.input_has_header === true ? 1 : 0);

/** The data rows (numbered as the review numbers them, from 1) a workbook's sheet hides, under the header row in force. */
export const hiddenDataRowsOf = (run: Pick<RunState, 'hidden_rows' | 'rows_above_header' | 'input_has_header'>): number[] => {
  const before = rowsBeforeDataOf(run);
  return (run.hidden_rows ?? []).map((n) => n - before).filter((n) => n >= 1);
};

/**
 * How many data rows (under the header row in force) a workbook's sheet hides in all: those hiddenDataRowsOf lists, and
 * those past the read's list (SourceParsed.hidden_rows_total). The rows past it are all data rows: they come after the
 * 1,000th hidden row listed, far below any header row the review offers (within the first rows read).
 */
export const hiddenDataRowsTotalOf = (
  run: Pick<RunState, 'hidden_rows' | 'hidden_rows_total' | 'rows_above_header' | 'input_has_header'>,
): number => {
  const listed = hiddenDataRowsOf(run).length;
  const total = run.hidden_rows_total ?? 0;
  const listedAll = run.hidden_rows?.length ?? 0;
  return total > listedAll ? listed + (total - listedAll) : listed;
};

/**
 * Every data row (numbered as the review numbers them) a workbook's sheet hides, under the header row in force, as
 * spans ([first, last], in order): from `hidden_row_spans` when the list was cut, else from the list itself. Null when
 * they are not all known (a sheet hiding its rows in more than 10,000 places, or read before spans were kept).
 */
export function hiddenDataRowSpansOf(
  run: Pick<RunState, 'hidden_rows' | 'hidden_rows_total' | 'hidden_row_spans' | 'rows_above_header' | 'input_has_header'>,
): Array<[number, number]> | null {
  const cut = (run.hidden_rows_total ?? 0) > (run.hidden_rows?.length ?? 0);
  if (cut && !run.hidden_row_spans) return null;
  const before = rowsBeforeDataOf(run);
  const spans: Array<[number, number]> = [];
  const add = (first: number, last: number) => {
    const [from, to] = [Math.max(first - before, 1), last - before];
    if (to < from) return;
    const prior = spans.at(-1);
    if (prior && prior[1] === from - 1) prior[1] = to;
    else spans.push([from, to]);
  };
  if (cut) for (const [first, last] of run.hidden_row_spans!) add(first, last);
  else for (const n of run.hidden_rows ?? []) add(n, n);
  return spans;
}

export const isTerminal = (run: RunState, now: Date): boolean =>
  run.status === 'failed' ||
  (run.stage === 'final' && run.status === 'completed') ||
  run.review_state === 'canceled' ||
  isReviewExpired(run, now);
