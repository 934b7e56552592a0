/**
 * The run's event vocabulary: past-tense facts, one stream per run (`run-<uuid>`).
 * These types are the contract with downstream teams (see docs/events.md);
 * a change to a payload's shape bumps RUN_EVENT_SCHEMA_VERSION[type].
 */
export type InputSource = 'upload' | 'raw' | 'image';
export type OutputFormat = 'json' | 'csv';
export type Appearance = 'light' | 'dark';
export type MappingRule = Record<string, string | null>;

export interface FieldTransformation {
  enabled: boolean;
  [option: string]: unknown;
}

export interface FieldDefinition {
  description: string;
  data_type: string;
  is_required: boolean;
  label?: string | null;
  format?: string | null;
  transformations?: Record<string, FieldTransformation>;
  /** For data_type `enum` (a picklist): the allowed values, each with the label reviewers see (docs/api.md). */
  allowed_values?: AllowedValue[];
  /** The description in other review languages, by locale (`de`, `fr`, ...); `description` is the default. */
  descriptions?: Record<string, string>;
  /** For data_type `number`/`integer`: how its values are written (locale or separators, currency, percent; docs/api.md). */
  number_format?: NumberFormat;
  /** For data_type `phone`: the region (ISO 3166 alpha-2, e.g. "DE") of numbers written without their country code. */
  default_region?: string;
  /** For data_type `country`: what the output writes (alpha2 when absent). */
  country_format?: CountryFormat;
  /** A regular expression (RE2 syntax, linear time) a non-empty value must match somewhere in it; `^...$` for the whole value. */
  pattern?: string;
  /** The smallest and largest value allowed: numbers for number/integer fields, ISO 8601 dates or date-times for date/datetime fields. */
  min?: number | string;
  max?: number | string;
  /** The fewest and most characters (Unicode code points) a non-empty value may have. */
  min_length?: number;
  max_length?: number;
  /** No value may appear twice in the file (every occurrence of a repeated value is a problem). */
  unique?: boolean;
}
export interface NumberFormat {
  /** A BCP 47 locale whose separators and digits the values use, e.g. "de-DE". */
  locale?: string;
  decimal?: string;
  group?: string;
  /** Currency symbols or ISO codes before or after the number are allowed. */
  currency?: boolean;
  /** The values are percentages: "12 %" (and "12") is 0.12. */
  percent?: boolean;
}
export type CountryFormat = 'alpha2' | 'alpha3' | 'name';
export interface AllowedValue {
  value: string;
  label?: string | null;
  /** The label in other review languages, by locale (`de`, `fr`, ...); `label` is the default. */
  labels?: Record<string, string>;
}

export interface SchemaSnapshot {
  id: string;
  name: string;
  fields: Record<string, FieldDefinition>;
  /** The customer's validation hook the review calls (docs/validation-hook.md); absent or null: none. */
  validation_url?: string | null;
  /** Sets of fields whose values must be unique together in the file (absent when none). */
  unique_with?: string[][];
}

export interface RunError {
  code: string | null;
  message: string | null;
  type: string | null;
  stage: string | null;
  retryable: boolean;
  context: string[] | null;
}

export interface RunCreated {
  run_id: string;
  organization_id: string;
  input_source: InputSource;
  /** The schema as it was when the run was created: later edits do not change a run. */
  schema: SchemaSnapshot;
  provider_id: string | null;
  dry_run: boolean;
  filename: string | null;
  /** The caller's override; null lets ingestion detect it. */
  input_has_header: boolean | null;
  output_format: OutputFormat;
  notify_url: string | null;
  success_callback: string | null;
  cancel_callback: string | null;
  locale: string;
  appearance: Appearance | null;
  metadata: Record<string, unknown> | null;
  column_labels: Record<string, string | null> | null;
  /** Blob key of the source (the upload target, or the stored raw content). */
  source_key: string;
  upload_expires_at: string | null;
  created_at: string;
}

export interface SourceUploaded {
  size_bytes: number;
  uploaded_at: string;
}
/** A raw-text run's extraction began (image and file runs start processing at upload). */
export interface ExtractionStarted {
  started_at: string;
}
export interface IngestionProgressed {
  processed_rows: number;
}
export interface SourceParsed {
  source_headers: string[];
  input_has_header: boolean;
  total_rows: number;
  source_format: 'delimited' | 'xlsx';
  /** Delimiter of a delimited file; null for XLSX. */
  delimiter: string | null;
  encoding: string;
  /**
   * Where the rows are read from when they are not the uploaded file itself: records an
   * AI provider extracted, or synthetic records of a dry run, stored as CSV. Absent: source_key.
   */
  rows_key?: string;
  /** How the rows came to be: parsed from the file, extracted by the provider, or synthetic (dry run). */
  rows_origin?: 'file' | 'extracted' | 'synthetic';
  /**
   * A workbook's worksheets in tab order (XLSX only). Absent in events recorded before sheets
   * were listed: such a run reads the first sheet with rows, as it always did.
   */
  sheets?: SourceSheet[];
  /** The worksheet the headers and rows are read from: the first visible one with data (XLSX only; absent as `sheets`). */
  sheet?: string;
  /** Rows whose cells do not line up with the first row's (absent: every row does, or the run was read before they were counted). */
  row_shape?: RowShape;
  /**
   * The rows above the header that are not read, each as its values (a title has one) in file order: a title, a date line
   * (docs/decisions.md, "A title above the table"). Absent: none, or the file was read before titles were found.
   */
  rows_above_header?: string[];
  /**
   * A workbook sheet's merges over rows, as Excel names them ("A5:A9"; at most 10,000): every later read gives the rows
   * they cover the value of their top cell, in their first column (docs/decisions.md, "Merged cells"). Absent: none,
   * or the file was read before merges were.
   */
  merged_cells?: string[];
  /**
   * A workbook sheet's rows that Excel does not show (hidden by hand, by a filter or in a collapsed group), by their
   * number as the file's rows are read from 1 (rows above the header and the header counted; empty rows not), at most
   * 1,000. They are records like the others; the review names them so the reviewer may leave them out. Absent: none,
   * or the file was read before hidden rows were.
   */
  hidden_rows?: number[];
  /**
   * How many rows the sheet hides in all (counted as `hidden_rows` numbers them: non-empty rows, the header and rows
   * above it too), present only when that is more than `hidden_rows` lists (past its 1,000): the rows past the list
   * are delivered like any row, unnamed. Absent: `hidden_rows` lists them all, or the file was read before they were
   * counted (since 2026-12-05).
   */
  hidden_rows_total?: number;
  /**
   * Every row the sheet hides, as spans of consecutive numbers ([first, last], numbered as `hidden_rows`), present only
   * with `hidden_rows_total` (the list was cut) and when they make at most 10,000 spans: a filter hides rows in runs.
   * What lets the reviewer leave them all out at once (`leave_out_hidden`). Absent with `hidden_rows_total`: the sheet
   * hides its rows in too many places, or the file was read before spans were kept (since 2026-12-06).
   */
  hidden_row_spans?: Array<[number, number]>;
  /**
   * The hostile-file limits the file was read under, when the service's configuration (MAX_COLUMNS, MAX_FIELD_CHARS,
   * MAX_ROW_CHARS, MAX_ROWS, MAX_XLSX_UNPACKED_BYTES, MAX_XLSX_COMPRESSION_RATIO) differs from the defaults: every later
   * read of its rows (the preview, the counts, the output) applies these, so it reads the rows this read accepted,
   * however the configuration changes meanwhile (docs/decisions.md, "The limits a file was read under"). A workbook's
   * reads check its columns and values again; a text file's find its first row's line end within MAX_ROW_CHARS.
   * Absent: the defaults.
   */
  read_limits?: SourceReadLimits;
}
/** Hostile-file limits as a read applied them (SourceParsed.read_limits), named as libs/tabular's TableLimits, in snake case. */
export interface SourceReadLimits {
  max_row_chars: number;
  max_field_chars: number;
  max_columns: number;
  max_rows: number;
  max_unpacked_bytes: number;
  max_compression_ratio: number;
}
/**
 * Rows of an uploaded table with a value past its first row's cells (in columns the first row does not
 * have) or, in a delimited file, lacking a cell up to the first row's last value. Empty cells at a row's
 * end do not make it longer (a delimiter that ends every data line). Row numbers count the file's rows
 * with a value, 1 being its first row (the header, when it has one).
 */
export interface RowShape {
  /** Cells in the file's first row. */
  first_row_cells: number;
  longer_rows: number;
  /** The first row with a value past the first row's cells; null when none has. */
  first_longer_row: number | null;
  shorter_rows: number;
  first_shorter_row: number | null;
  /**
   * When the first row ends with empty cells and some row has a value past its last value: those rows, as they read
   * under the first row taken as the header (it names no column past its last value).
   */
  past_header_values?: { first_row_values: number; longer_rows: number; first_longer_row: number | null };
  /**
   * Cells up to the farthest value in any row: the longer rows' values are in the columns up to it, and the
   * columns past it are empty in every row (since 2026-12-03; absent in runs read before).
   */
  values_width?: number;
}
/** A workbook's worksheet as ingestion found it. */
export interface SourceSheet {
  name: string;
  /** Whether its tab shows: `hidden` sheets can be unhidden in Excel, `veryHidden` ones only by code. */
  state: 'visible' | 'hidden' | 'veryHidden';
  /** At least one cell with more than whitespace. */
  has_data: boolean;
}
/** Something the reviewer should know that does not stop the review (e.g. a failed AI suggestion). */
export interface ReviewNotice {
  code: string;
  message: string;
}
export interface ReviewPrepared {
  mapping_rule: MappingRule;
  /**
   * `ai`: the provider's suggestion (heuristic filled the gaps); `heuristic`: ours alone;
   * `remembered`: the mapping last approved for the same organization, schema and headers.
   */
  mapping_origin: 'heuristic' | 'ai' | 'remembered';
  /** With a remembered mapping: its picklist value mappings, by field, in force from the start (undoable fixes). */
  picklists?: Record<string, Record<string, string>>;
  /** With a remembered mapping whose header choice differs from the ingestion's guess: the headers, as HeaderRowChosen gives them. */
  header?: { input_has_header: boolean; source_headers: string[]; total_rows: number; rows_above_header?: string[] };
  review_expires_at: string;
  prepared_at: string;
  notices?: ReviewNotice[];
}
export interface MappingEdited {
  mapping_rule: MappingRule;
  edited_at: string;
}
/**
 * What a reviewer does to a field's values, after the field's transformations and before
 * its type check (docs/review-page.md, "Fixing values"):
 * - `cell`: one value of one data row (from 1, the header row not counted), replaced only
 *   while it still reads `before` (a later mapping that feeds the field another column
 *   leaves the edit unused, rather than writing it over another value);
 * - `replace`: find and replace, in every value of the field (`whole_value`: only values
 *   equal to `find`);
 * - `normalise`: one of the normalisers in every value of the field; values it cannot
 *   read are left as they are;
 * - `leave_out` (a fix of a whole row: `field` is ""): data row `row` is left out of the
 *   records while the rows are numbered as when it was made (`numbering`, rowNumberingOf in
 *   libs/domain: the sheet, whether the first row is the header, the rows above it; under
 *   another header row or sheet that number names another row, which stays in);
 * - `put_back` (of a whole row too): the row left out under that numbering is delivered again;
 * - `leave_out_hidden` (of whole rows, no `row`): every data row the workbook's sheet hides is left out, under that
 *   numbering, past the 1,000 the review lists too; `put_back_hidden` delivers them again. Of a row's own fixes and
 *   these, the latest decides: a row put back after `leave_out_hidden` is delivered.
 */
export type ValueFix =
  | { kind: 'cell'; row: number; before: string; after: string }
  | { kind: 'replace'; find: string; replace: string; whole_value: boolean }
  | { kind: 'normalise'; normaliser: Normaliser; decimal_separator?: ',' | '.'; date_pattern?: string }
  /**
   * A picklist's value mapping: each value the field has (before any picklist mapping) to an
   * allowed value; values not named are kept. The latest one of a field replaces the earlier ones.
   */
  | { kind: 'picklist'; values: Record<string, string> }
  | RowFix;
/** A reviewer's fix of whole rows (ValuesFixed with `field` ""): one row, or every row the sheet hides. */
export type RowFix = OneRowFix | HiddenRowsFix;
/** A reviewer's fix of one row. */
export type OneRowFix = { kind: 'leave_out' | 'put_back'; row: number; numbering: string };
/** A reviewer's fix of every row a workbook's sheet hides. */
export type HiddenRowsFix = { kind: 'leave_out_hidden' | 'put_back_hidden'; numbering: string };
export type Normaliser = 'trim' | 'boolean' | 'amount' | 'url' | 'date';
export interface ValuesFixed {
  fix_id: string;
  /** The field whose values are fixed; "" for a fix of a whole row (RowFix). */
  field: string;
  fix: ValueFix;
  /** Who: the hosted review has no accounts, so the holder of the run's review link (`review_link`). */
  fixed_by: string;
  fixed_at: string;
}
/**
 * The reviewer said whether the file's first row holds the column names (the ingestion's
 * guess was wrong): the headers and row count that follow, and the mapping suggested for them.
 */
export interface HeaderRowChosen {
  input_has_header: boolean;
  source_headers: string[];
  total_rows: number;
  mapping_rule: MappingRule;
  chosen_at: string;
  /** The rows above the header left out under this choice, as SourceParsed's (absent: none; the file is read from its first row). */
  rows_above_header?: string[];
  /**
   * `remembered`: the columns as approved last for this schema and the columns the chosen row gives; `suggested`: each
   * field kept the column it had by place, the others suggested from the names. Absent in events recorded before it
   * existed (either).
   */
  mapping_origin?: 'remembered' | 'suggested';
}
/**
 * The reviewer chose another worksheet of the workbook: the headers and row count read from
 * it (the first row taken as the header as at ingestion: the caller's `input_has_header`, or
 * detected), and the mapping kept for the fields whose column the new sheet also has (the
 * others unmapped). The preview, counts and output read this sheet from then on.
 */
export interface SheetChosen {
  sheet: string;
  source_headers: string[];
  input_has_header: boolean;
  total_rows: number;
  mapping_rule: MappingRule;
  chosen_at: string;
  /** As SourceParsed's, for the file read so. */
  row_shape?: RowShape;
  /** As SourceParsed's, for the file read so. */
  rows_above_header?: string[];
  /** As SourceParsed's, for this sheet. */
  merged_cells?: string[];
  /** As SourceParsed's, for this sheet. */
  hidden_rows?: number[];
  /** As SourceParsed's, for this sheet: present only when the sheet hides more rows than `hidden_rows` lists. */
  hidden_rows_total?: number;
  /** As SourceParsed's, for this sheet. */
  hidden_row_spans?: Array<[number, number]>;
  /** As SourceParsed's: the limits this sheet was read under (absent: the defaults). */
  read_limits?: SourceReadLimits;
}
/**
 * The reviewer chose to read the uploaded text file in another encoding (the detected one read its
 * letters wrong): the headers and row count read in it (the first row taken as the header as before),
 * and the mapping kept column by column (the columns are the same, their names may read otherwise).
 * The preview, counts and output decode the file in this encoding from then on.
 */
export interface EncodingChosen {
  encoding: string;
  source_headers: string[];
  input_has_header: boolean;
  total_rows: number;
  mapping_rule: MappingRule;
  chosen_at: string;
  /** As SourceParsed's, for the file read so. */
  row_shape?: RowShape;
  /** As SourceParsed's, for the file read so. */
  rows_above_header?: string[];
  /**
   * The rows the first read found above the header, as this encoding reads them, while the reviewer reads them as
   * rows (`rows_above_header` is then absent): what the review offers to leave out again. Absent in older events.
   */
  rows_above_header_found?: string[];
  /** As SourceParsed's: the limits the file was read under in this encoding (absent: the defaults). */
  read_limits?: SourceReadLimits;
}
/** The latest fix still in force was taken back. */
export interface ValueFixUndone {
  fix_id: string;
  undone_at: string;
}
/** At approval, what happens to the rows that still have a problem: delivered as they are, or left out. */
export type ProblemRowsChoice = 'deliver' | 'exclude';
export interface ReviewApproved {
  mapping_rule: MappingRule;
  /** Absent in events recorded before the choice existed: `deliver`. */
  rows_with_problems?: ProblemRowsChoice;
  approved_at: string;
}
export interface ReviewCanceled {
  canceled_at: string;
}
export interface OutputStarted {
  started_at: string;
}
export interface OutputProgressed {
  processed_rows: number;
}
export interface OutputProduced {
  output_key: string;
  output_format: OutputFormat;
  rows_written: number;
  /** Rows with at least one value that failed its field's data_type or is_required. */
  rows_with_problems: number;
  /**
   * Rows left out of the output at the reviewer's choice: rows left out one by one (not among rows_with_problems), and
   * with `exclude` chosen at approval those with a problem; absent in older events: 0.
   */
  rows_excluded?: number;
  file_retention_until: string;
  completed_at: string;
}
export interface RunFailed {
  error: RunError;
  failed_at: string;
}

/** Why a run's files were no longer kept: what closed the run (docs/security.md, "Expiry and retention"). */
export type FilesPurgeReason = 'output_retention' | 'review_canceled' | 'review_expired' | 'run_failed';
/**
 * The run's stored files were deleted because their retention ended: the source (upload or
 * raw text), the extracted/synthetic rows and the output, whichever the run had. Recorded by
 * the sweeper after the deletions, once per run.
 */
export interface FilesPurged {
  /** The blob keys deleted (a key that held nothing is listed too: deleting is idempotent). */
  keys: string[];
  reason: FilesPurgeReason;
  purged_at: string;
}

export type WebhookEventName = 'transformation.finished' | 'transformation.review.canceled' | 'transformation.failed';
/** A webhook is owed: where it goes and when its first attempt is due. */
export interface WebhookScheduled {
  delivery_id: string;
  event: WebhookEventName;
  url: string;
  due_at: string;
}
/** One delivery attempt and its outcome; `next_attempt_at` null means no further attempt. */
export interface WebhookAttempted {
  delivery_id: string;
  event: WebhookEventName;
  attempt: number;
  outcome: 'delivered' | 'failed';
  /** The receiver's HTTP status, when it answered. */
  status_code: number | null;
  /** Why the attempt failed (timeout, refused address, redirect, status); null when delivered. */
  error: string | null;
  /** When the attempt ended (its answer or its failure): the next one is planned from it. */
  attempted_at: string;
  /** When its request was sent (attempted_at less about duration_ms). Absent in events recorded before it was added. */
  sent_at?: string;
  next_attempt_at: string | null;
  /** Where the attempt went (the delivery's URL). Absent in events recorded before it was added. */
  url?: string;
  /** From sending the request to the answer's status line, or to the failure, in ms. Absent in older events. */
  duration_ms?: number;
  /** The first 512 characters of the receiver's response body; null when there was no answer or it was empty. Absent in older events. */
  response_excerpt?: string | null;
}
/**
 * A member asked for a delivered or given-up webhook to be sent again: the delivery is
 * pending once more, its next attempt due at `requested_at` (the attempt number goes on,
 * the delivery id and `X-Service-Id` stay the same). A re-send is one attempt, not retried.
 */
export interface WebhookResendRequested {
  delivery_id: string;
  event: WebhookEventName;
  requested_at: string;
  /** Who asked: a console member's id (or another caller's name). */
  requested_by: string;
}

export interface RunEventMap {
  RunCreated: RunCreated;
  SourceUploaded: SourceUploaded;
  ExtractionStarted: ExtractionStarted;
  IngestionProgressed: IngestionProgressed;
  SourceParsed: SourceParsed;
  ReviewPrepared: ReviewPrepared;
  MappingEdited: MappingEdited;
  HeaderRowChosen: HeaderRowChosen;
  SheetChosen: SheetChosen;
  EncodingChosen: EncodingChosen;
  ValuesFixed: ValuesFixed;
  ValueFixUndone: ValueFixUndone;
  ReviewApproved: ReviewApproved;
  ReviewCanceled: ReviewCanceled;
  OutputStarted: OutputStarted;
  OutputProgressed: OutputProgressed;
  OutputProduced: OutputProduced;
  RunFailed: RunFailed;
  WebhookScheduled: WebhookScheduled;
  WebhookAttempted: WebhookAttempted;
  WebhookResendRequested: WebhookResendRequested;
  FilesPurged: FilesPurged;
}

export type RunEventType = keyof RunEventMap;
export type RunEvent = { [K in RunEventType]: { type: K; data: RunEventMap[K] } }[RunEventType];

export const RUN_EVENT_TYPES = [
  'RunCreated',
  'SourceUploaded',
  'ExtractionStarted',
  'IngestionProgressed',
  'SourceParsed',
  'ReviewPrepared',
  'MappingEdited',
  'HeaderRowChosen',
  'SheetChosen',
  'EncodingChosen',
  'ValuesFixed',
  'ValueFixUndone',
  'ReviewApproved',
  'ReviewCanceled',
  'OutputStarted',
  'OutputProgressed',
  'OutputProduced',
  'RunFailed',
  'WebhookScheduled',
  'WebhookAttempted',
  'WebhookResendRequested',
  'FilesPurged',
] as const satisfies readonly RunEventType[];

export const RUN_EVENT_SCHEMA_VERSION: Record<RunEventType, number> = Object.fromEntries(RUN_EVENT_TYPES.map((t) => [t, 1])) as Record<
  RunEventType,
  number
>;

export const isRunEventType = (type: string): type is RunEventType => (RUN_EVENT_TYPES as readonly string[]).includes(type);
