/** What the review's JSON calls answer (apps/gateway/src/review/review.service.ts and review-preview.service.ts). */
import type { CellProblem } from '../../../../../libs/domain/src/fields/cell-problems';

export type { CellProblem };

export type Phase = 'preparing' | 'active' | 'approved' | 'canceled' | 'expired' | 'failed';
export type Mapping = Record<string, string | null>;

export interface Field {
  name: string;
  label: string;
  description: string;
  data_type: string;
  is_required: boolean;
  allowed_values?: { value: string; label: string }[];
  /** The field's validators (only those the schema sets), for the words of its problems. */
  pattern?: string;
  min?: number | string;
  max?: number | string;
  min_length?: number;
  max_length?: number;
  unique?: boolean;
  /** The sets of fields unique together this field belongs to, as labels. */
  unique_with?: string[][];
  /** A number field's number_format decimal mark (absent without number_format). */
  decimal_mark?: string;
  /** A date or datetime field's pattern its values are checked in (besides yyyy-MM-dd and ISO 8601). */
  date_pattern?: string;
}

export type ValueFix =
  | { kind: 'cell'; row: number; before: string; after: string }
  | { kind: 'replace'; find: string; replace: string; whole_value: boolean }
  | { kind: 'normalise'; normaliser: string; decimal_separator?: string; date_pattern?: string }
  | { kind: 'picklist'; values: Record<string, string> }
  /**
   * A data row (numbered from 1, as the tables show it) left out of the records, or one delivered again; its `field`
   * is ''. Each holds under the rows' numbering it was made in (`numbering`: sheet, header row, rows above it).
   */
  | { kind: 'leave_out' | 'put_back'; row: number; numbering: string }
  /**
   * Every row the workbook's sheet hides left out at once (past the 1,000 the review lists too), or delivered again;
   * `field` '' and no row. Of a row's own fix and these, the latest decides.
   */
  | { kind: 'leave_out_hidden' | 'put_back_hidden'; numbering: string };

export interface AppliedFix {
  fix_id: string;
  field: string;
  fix: ValueFix;
  fixed_at: string;
}

export interface ReviewView {
  run_id: string;
  phase: Phase;
  locale: string;
  filename: string | null;
  encoding: string | null;
  /** The encodings the text file may be read in instead; empty when there is no such choice. */
  encodings: string[];
  fields: Field[];
  source_headers: string[];
  input_has_header: boolean | null;
  header_choice: boolean;
  rows_above_header: string[];
  rows_above_header_found: string[];
  /** A workbook's worksheets in tab order; empty for other files. */
  sheets: { name: string; state: 'visible' | 'hidden' | 'veryHidden'; has_data: boolean }[];
  /** The worksheet read; null for other files. */
  sheet: string | null;
  /** Rows whose cells do not line up with the file's first row (review/rows-out-of-line.ts); null when all do. */
  rows_out_of_line: {
    first_row_cells: number;
    longer_rows: number;
    first_longer_row: number | null;
    extra_columns: string[];
    shorter_rows: number;
    first_shorter_row: number | null;
  } | null;
  /**
   * The data rows a workbook's sheet hides (by hand, a filter, a collapsed group), numbered as the tables number them,
   * at most 1,000; empty for other files. They are delivered like the others unless left out.
   */
  hidden_rows?: number[];
  /**
   * How many data rows the sheet hides in all: `hidden_rows`'s length, or more when only the first 1,000 are listed (the
   * others are delivered like any row, unnamed). Absent from a service older than it: as many as `hidden_rows` lists.
   */
  hidden_rows_total?: number;
  mapping_rule: Mapping | null;
  mapping_version: number;
  value_fixes: AppliedFix[];
  fixes_key: string;
  /**
   * The data rows left out one by one under the rows' numbering now, in order (the server folds the fixes); the hidden
   * rows left out together (`hidden_rows_left_out`) are not listed here, nor one of them left out again on its own.
   */
  rows_left_out: number[];
  /**
   * Whether every row the sheet hides can be left out with one fix (`leave_out_hidden`): it hides rows and all are known
   * (false past 10,000 spans of them, and from a service older than it).
   */
  hidden_rows_known?: boolean;
  /** Whether every row the sheet hides is left out (a `leave_out_hidden` in force), but for `hidden_rows_put_back`. */
  hidden_rows_left_out?: boolean;
  /** The hidden rows put back one by one since they were all left out, in order: delivered. Empty otherwise. */
  hidden_rows_put_back?: number[];
  total_rows: number | null;
  processed_rows: number;
  waiting_for_upload: boolean;
  output_ready: boolean;
  /** What the approval chose for rows that still had a problem; null until approved. */
  problem_rows_choice: 'deliver' | 'exclude' | null;
  /** Rows with a problem left out of the output; null until the output is written. */
  rows_excluded: number | null;
  review_expires_at: string | null;
  review_approved_at: string | null;
  review_canceled_at: string | null;
  success_callback: string | null;
  cancel_callback: string | null;
  error: { code: string | null; message: string | null } | null;
  notices: { code: string; message: string }[];
}

export interface Cell {
  value: string | null;
  problem: CellProblem | null;
  /** `value` is the value's first 2,000 characters only (the output has the whole of it); absent when it is whole. */
  shortened?: true;
  /** What the customer's validation hook said of the cell; `before` is what a cell fix accepting its correction names. */
  customer?: { message: string; corrected_value: string | null; before: string };
}

/** The customer's validation hook on the rows (review/validation-hook/customer-checks.service.ts); absent when the schema has none. */
export interface CustomerChecks {
  status: 'running' | 'ran' | 'failed';
  rows_checked: number;
  total_rows: number | null;
  reason: 'timeout' | 'refused' | 'unreachable' | 'http_error' | 'garbage' | 'error' | null;
  detail: string | null;
  /** The checks of the answer's rows past the first `rows_checked`, sent when asked for; `running`: ask again. */
  page?: { status: 'running' | 'ran' | 'failed' };
}
export type Row = Record<string, Cell>;

export interface Preview {
  rows: Row[];
  /** The numbers of the rows shown that the reviewer left out (still shown, not delivered); absent from an older service. */
  left_out_rows?: number[];
  column_samples: Record<string, string[]>;
  customer_checks?: CustomerChecks;
}

export interface ProblemCount {
  status: 'counted' | 'superseded' | 'counting';
  rows_checked: number;
  rows_with_problems: number;
  problems_by_field: Record<string, number>;
  customer_checks?: CustomerChecks;
}

export interface ProblemRowsPage {
  rows: { row: number; cells: Row }[];
  matching: number;
  rows_checked: number;
  customer_checks?: CustomerChecks;
}

export interface PicklistValues {
  allowed_values: { value: string; label?: string | null }[];
  distinct: number;
  more: boolean;
  values: { value: string; rows: number; mapped_to: string | null; suggestion: string | null }[];
}
