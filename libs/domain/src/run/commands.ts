import type {
  MappingRule,
  OutputProduced,
  ProblemRowsChoice,
  ReviewNotice,
  RowShape,
  RunCreated,
  RunError,
  SourceParsed,
  SourceReadLimits,
  WebhookAttempted,
  WebhookScheduled,
} from '@app/contracts';

/** What can be asked of a run. Each carries the instant it is asked at (`at`), so decide stays pure. */
export type RunCommand =
  | { type: 'CreateRun'; data: RunCreated }
  | { type: 'CompleteUpload'; size_bytes: number; at: string }
  | { type: 'StartExtraction'; at: string }
  | { type: 'RecordIngestionProgress'; processed_rows: number }
  | { type: 'RecordParse'; parse: SourceParsed }
  | {
      type: 'PrepareReview';
      mapping_rule: MappingRule;
      mapping_origin?: 'heuristic' | 'ai' | 'remembered';
      picklists?: Record<string, Record<string, string>>;
      /** A remembered header choice other than the ingestion's guess, with the file's first row as read. */
      header?: { input_has_header: boolean; first_row: string[]; rows_above_header?: string[] };
      notices?: ReviewNotice[];
      review_expires_at: string;
      at: string;
    }
  | { type: 'EditMapping'; mapping_rule: MappingRule; at: string; expected_mapping_version?: number }
  | {
      type: 'ApproveReview';
      /** The mapping approved; null: the run's mapping as the decision finds it (a body without one approves the latest). */
      mapping_rule: MappingRule | null;
      at: string;
      expected_mapping_version?: number;
      /** What happens to rows that still have a problem; `deliver` when not said. */
      rows_with_problems?: ProblemRowsChoice;
      /** The fixes the page showed (fixesKey); an approval over fixes it did not show is refused. */
      expected_fixes?: string;
    }
  /**
   * A reviewer's fix of a field's values (`fix` as the request gave it: decide reads it); `fix_id` is new.
   * `cell_read`, for a cell edit: the cell as the gateway read it (CellRead); the edit is refused when its
   * `before` does not read so, or when the run changed since.
   */
  /**
   * A fix of one field's values, or with `field` "" of a whole row (leave_out, put_back; refused with
   * `expected_mapping_version` when the page's is not the run's).
   */
  | {
      type: 'FixValues';
      fix_id: string;
      field: string;
      fix: unknown;
      at: string;
      cell_read?: CellRead;
      expected_mapping_version?: number;
    }
  /**
   * The reviewer's answer to "does the file have a row of column names, and which?"; `first_row` is that row as read
   * (the file's first row, or the one under the rows above it left out), from `sheet` (a workbook's sheet the read saw
   * chosen; null: the first). Refused when another sheet or encoding is chosen meanwhile.
   */
  | {
      type: 'ChooseHeaderRow';
      input_has_header: boolean;
      /** The header's row (or the first data row without a header), read after the rows above it left out. */
      first_row: string[];
      /** The rows above the header to leave out (a title the file's read found); absent: none. */
      rows_above_header?: string[];
      /**
       * The mapping approved last for the organization's schema and the columns this choice names (the gateway looks it
       * up): a file whose header row the reviewer picks by hand each time gets its columns matched as last time.
       */
      remembered_mapping?: MappingRule;
      sheet?: string | null;
      encoding?: string | null;
      at: string;
    }
  /**
   * The reviewer's choice of another worksheet; `read` is what the inspection read from it
   * (its headers with the first row taken as at ingestion, and its data rows).
   */
  | { type: 'ChooseSheet'; sheet: string; read: SourceReadAgain; at: string }
  /**
   * The reviewer reads the uploaded text file in another encoding (CHOOSABLE_ENCODINGS), with what the gateway read
   * in it (its headers with the first row taken as before, and its data rows).
   */
  | {
      type: 'ChooseEncoding';
      encoding: string;
      read: SourceReadAgain;
      at: string;
    }
  /**
   * Takes back the latest fix still in force; with `expected_fixes` (fixesKey of the fixes the page shows), only
   * while they are still the fixes in force: another reviewer's later fix is not the one taken back.
   */
  | { type: 'UndoValueFix'; expected_fixes?: string; at: string }
  | { type: 'CancelReview'; at: string }
  | { type: 'StartOutput'; at: string }
  | { type: 'RecordOutputProgress'; processed_rows: number }
  | { type: 'CompleteOutput'; output: OutputProduced }
  | { type: 'FailRun'; error: RunError; at: string }
  /** The sweeper: the upload window ended with no file, so the run fails (upload_expired). */
  | { type: 'ExpireUpload'; at: string }
  /**
   * The sweeper, after deleting the run's files (runFileKeys): records it. `retention_seconds` is
   * OUTPUT_RETENTION_SECONDS, how long files are kept after a run closed without output.
   */
  | { type: 'PurgeFiles'; retention_seconds: number; at: string }
  | { type: 'ScheduleWebhook'; delivery: WebhookScheduled }
  | { type: 'RecordWebhookAttempt'; attempt: WebhookAttempted }
  /** Send a delivered or given-up webhook again (the console): one more attempt, due at once. */
  | { type: 'ResendWebhook'; delivery_id: string; requested_by: string; at: string };

export type RunCommandType = RunCommand['type'];

/**
 * A cell edit's cell as read before the edit is decided: its `value` as the fixes see it (cellOf:
 * after the field's transformations and the fixes in force) and as the review shows it, read under the run's `mapping_version`
 * and the fixes of its cell named `fixes_key` (cellFixesKey). Those two name everything the value depends on (a header
 * or sheet choice is a new mapping version; fixes of other fields and rows do not touch it), so a run still at both reads the cell so.
 */
export interface CellRead {
  value: string;
  /** The value as the review shows it (reviewCells: typed for JSON output; "" when empty): a page's `before` may be this. */
  shown: string;
  mapping_version: number;
  fixes_key: string;
}

/** What a reviewer's choice read of the file: its headers, data rows and rows that do not line up (RowShape). */
export interface SourceReadAgain {
  source_headers: string[];
  input_has_header: boolean;
  total_rows: number;
  row_shape?: RowShape;
  /** The rows above the header the read left out (a title), as SourceParsed's; absent: none. */
  rows_above_header?: string[];
  /** The rows an earlier read found above the header, read so, while the reviewer reads them as rows. */
  rows_above_header_found?: string[];
  /** A workbook sheet's merges over rows, as SourceParsed's; absent: none. */
  merged_cells?: string[];
  /** A workbook sheet's hidden rows, as SourceParsed's; absent: none. */
  hidden_rows?: number[];
  /** How many rows the sheet hides in all, as SourceParsed's; absent: `hidden_rows` lists them all. */
  hidden_rows_total?: number;
  /** All of them as spans, as SourceParsed's. */
  hidden_row_spans?: Array<[number, number]>;
  /** The limits the file was read under so, as SourceParsed's (absent: the defaults). */
  read_limits?: SourceReadLimits;
}
