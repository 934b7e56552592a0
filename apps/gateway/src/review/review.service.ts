import { Inject, Injectable } from '@nestjs/common';
import {
  allowedValueLabel,
  allowedValuesOf,
  CHOOSABLE_ENCODINGS,
  datePatternChecked,
  decimalMarkOf,
  effectiveReviewState,
  fixesKey,
  hiddenDataRowsOf,
  hiddenDataRowsTotalOf,
  isChoosableEncoding,
  isReviewWindowOver,
  hiddenRowsPutBack,
  rowDecisions,
  rowsLeftOutOneByOne,
  type RunCommand,
  type RunState,
} from '@app/domain';
import type { FieldDefinition } from '@app/contracts';
import { ProjectionWaiter } from '@app/read-model';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { ApiError } from '../http/api-error';
import { RunLinks } from '@app/run-links';
import { supportedLocale } from './review-web';
import { rowsOutOfLine, type RowsOutOfLine } from './rows-out-of-line';

/** The rows left out as the review state says them (ReviewState.rows_left_out and the hidden rows'). */
function rowsLeftOutState(
  run: RunState,
): Pick<ReviewView, 'rows_left_out' | 'hidden_rows_left_out' | 'hidden_rows_put_back' | 'hidden_rows_known'> {
  const decisions = rowDecisions(run);
  return {
    rows_left_out: rowsLeftOutOneByOne(decisions),
    hidden_rows_left_out: decisions.hiddenLeftOut && decisions.hidden.length > 0,
    hidden_rows_put_back: hiddenRowsPutBack(decisions),
    // rowDecisions' spans are empty both when the sheet hides nothing and when its hidden rows are not all known.
    hidden_rows_known: decisions.hidden.length > 0,
  };
}

export type ReviewPhase = 'preparing' | 'active' | 'approved' | 'canceled' | 'expired' | 'failed';

/** What the page's `state` call (and every action) answers. */
export interface ReviewView {
  run_id: string;
  phase: ReviewPhase;
  locale: string;
  appearance: RunState['appearance'];
  filename: string | null;
  encoding: string | null;
  /** The encodings the reviewer may read the text file in instead (CHOOSABLE_ENCODINGS); empty when there is no such choice. */
  encodings: string[];
  fields: {
    name: string;
    label: string;
    /** In the review's language when the schema gives it (descriptions), else the default. */
    description: string;
    data_type: string;
    is_required: boolean;
    /** A picklist's allowed values (data_type enum); absent for other fields. */
    allowed_values?: { value: string; label: string }[];
    /** The decimal mark of a number field's number_format: the "normalise numbers" fix writes and reads with it. */
    decimal_mark?: string;
    /** A date or datetime field's pattern its values are checked in (besides yyyy-MM-dd and ISO 8601), for its problem's words. */
    date_pattern?: string;
    /** The field's validators, for the words of its problems (each only when the schema sets it). */
    pattern?: string;
    min?: number | string;
    max?: number | string;
    min_length?: number;
    max_length?: number;
    unique?: boolean;
    /** The sets of unique_with this field belongs to, each as its fields' labels. */
    unique_with?: string[][];
  }[];
  source_headers: string[];
  /** Whether the first row is taken as the column names; null before the file was read. */
  input_has_header: boolean | null;
  /** The reviewer may say whether the first row holds the column names (uploaded tables only). */
  header_choice: boolean;
  /** The rows above the header every read leaves out (a title), each as its values, from the file's first row. */
  rows_above_header: string[];
  /** The rows above the header the file's read found: the page offers to leave them out again once read. */
  rows_above_header_found: string[];
  /** An uploaded workbook's worksheets in tab order (name, `visible`/`hidden`/`veryHidden`, has data); empty for other sources. */
  sheets: NonNullable<RunState['sheets']>;
  /** The worksheet the headers and rows are read from; null for other sources (and workbooks read before sheets were listed). */
  sheet: string | null;
  /** Rows whose cells do not line up with the first row's (rows-out-of-line.ts); null when all do. */
  rows_out_of_line: RowsOutOfLine | null;
  /** The data rows a workbook's sheet hides (hiddenDataRowsOf, at most 1,000): records like the others unless left out. */
  hidden_rows: number[];
  /**
   * How many data rows the sheet hides in all, under the header row in force (hiddenDataRowsTotalOf): `hidden_rows`'s
   * length, or more when the read listed only the first 1,000; the others are delivered like any row. 0 for other files.
   */
  hidden_rows_total: number;
  mapping_rule: RunState['mapping_rule'];
  mapping_version: number;
  /** The reviewer's fixes in force, oldest first (the last one is what undo takes back). */
  value_fixes: NonNullable<RunState['value_fixes']>;
  /** Names those fixes: the page sends it back with its approval (a fix made elsewhere meanwhile refuses it). */
  fixes_key: string;
  /**
   * The data rows the reviewer left out one by one, in order, under the rows' numbering now (rowDecisions): not
   * delivered. The hidden rows left out together (`hidden_rows_left_out`) are not listed, nor a hidden row left out again
   * on its own while they are (rowsLeftOutOneByOne).
   */
  rows_left_out: number[];
  /**
   * Whether every row the sheet hides is left out (a `leave_out_hidden` fix in force), save those in
   * `hidden_rows_put_back`.
   */
  hidden_rows_left_out: boolean;
  /** The hidden rows put back one by one since the hidden rows were left out: delivered. Empty otherwise. */
  hidden_rows_put_back: number[];
  /**
   * Whether all the rows the sheet hides are known (hiddenDataRowSpansOf), so that `leave_out_hidden` can leave them out
   * at once: false for a sheet hiding rows in more than 10,000 places, and when it hides none.
   */
  hidden_rows_known: boolean;
  total_rows: number | null;
  processed_rows: number;
  /** No file has arrived yet (the page says so instead of "being read"). */
  waiting_for_upload: boolean;
  /** What the approval chose for rows that still had a problem; null until approved. */
  problem_rows_choice: 'deliver' | 'exclude' | null;
  /** Rows with a problem left out of the output; null until the output is written. */
  rows_excluded: number | null;
  /** The approved run's output is written (the page says it is ready instead of "being produced"). */
  output_ready: boolean;
  review_expires_at: string | null;
  review_approved_at: string | null;
  review_canceled_at: string | null;
  success_callback: string | null;
  cancel_callback: string | null;
  error: { code: string | null; message: string | null } | null;
  notices: RunState['review_notices'];
}

/** What the hosted review page shows and does; every call is authorized by the link's signature. */
@Injectable()
export class ReviewService {
  constructor(
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly waiter: ProjectionWaiter,
    private readonly links: RunLinks,
  ) {}

  async authorize(runId: string, signature: unknown): Promise<RunState> {
    if (!this.links.isValidReviewSignature(runId, signature)) throw ApiError.forbidden('invalid_signature', 'This review link is invalid.');
    const run = (await this.readModel.getRun(runId)) ?? (await this.queryBus.execute(new LoadRunQuery(runId))).state;
    if (!run) throw ApiError.forbidden('invalid_signature', 'This review link is invalid.');
    return run;
  }

  /**
   * For the calls that read or change the run's data (mapping, preview, problems, approve,
   * cancel): after `review_expires_at` the link opens nothing but the expired state.
   */
  async authorizeOpen(runId: string, signature: unknown, now = new Date()): Promise<RunState> {
    const run = await this.authorize(runId, signature);
    if (isReviewWindowOver(run, now)) throw reviewExpired();
    return run;
  }

  view(run: RunState, now = new Date()): ReviewView {
    if (isReviewWindowOver(run, now)) return this.expiredView(run);
    const reviewState = effectiveReviewState(run, now);
    const phase: ReviewPhase = run.status === 'failed' ? 'failed' : reviewState === null ? 'preparing' : reviewState;
    return {
      run_id: run.id,
      phase,
      locale: supportedLocale(run.locale),
      appearance: run.appearance,
      filename: run.filename,
      // The encoding the uploaded text file was read in (not for workbooks or extracted records).
      encoding: run.rows_origin === 'file' && run.source_format === 'delimited' ? run.encoding : null,
      encodings:
        run.rows_origin === 'file' && run.source_format === 'delimited' && isChoosableEncoding(run.encoding)
          ? [...CHOOSABLE_ENCODINGS]
          : [],
      fields: Object.entries(run.schema.fields).map(([name, f]) => ({
        name,
        label: fieldLabel(run, name),
        description: f.descriptions?.[supportedLocale(run.locale)] ?? f.description,
        data_type: f.data_type,
        is_required: f.is_required,
        ...(f.data_type === 'enum'
          ? {
              allowed_values: allowedValuesOf(f).map((a) => ({ value: a.value, label: allowedValueLabel(a, supportedLocale(run.locale)) })),
            }
          : {}),
        ...(f.number_format ? { decimal_mark: decimalMarkOf(f.number_format) } : {}),
        ...datePatternShown(f),
        ...validatorsShown(f, name, run),
      })),
      source_headers: run.source_headers,
      input_has_header: run.input_has_header,
      header_choice: run.rows_origin === 'file' && run.source_format !== null,
      rows_above_header: run.rows_above_header ?? [],
      rows_above_header_found: run.rows_above_header_found ?? [],
      sheets: run.sheets ?? [],
      sheet: run.sheet ?? null,
      rows_out_of_line: rowsOutOfLine(run),
      hidden_rows: hiddenDataRowsOf(run),
      hidden_rows_total: hiddenDataRowsTotalOf(run),
      mapping_rule: run.mapping_rule,
      mapping_version: run.mapping_version,
      value_fixes: run.value_fixes ?? [],
      fixes_key: fixesKey(run.value_fixes ?? []),
      ...rowsLeftOutState(run),
      total_rows: run.total_rows,
      processed_rows: run.processed_rows,
      waiting_for_upload: run.status === 'awaiting_upload',
      output_ready: run.stage === 'final' && run.status === 'completed',
      problem_rows_choice: run.review_state === 'approved' ? (run.problem_rows_choice ?? 'deliver') : null,
      rows_excluded: run.stage === 'final' && run.status === 'completed' ? (run.rows_excluded ?? 0) : null,
      review_expires_at: run.review_expires_at,
      review_approved_at: run.review_approved_at,
      review_canceled_at: run.review_canceled_at,
      success_callback: run.success_callback,
      cancel_callback: run.cancel_callback,
      error: run.error ? { code: run.error.code, message: run.error.message } : null,
      notices: run.review_notices ?? [],
    };
  }

  /** The expired state and nothing else: no file name, columns, mapping, rows or callbacks. */
  private expiredView(run: RunState): ReviewView {
    return {
      run_id: run.id,
      phase: 'expired',
      locale: supportedLocale(run.locale),
      appearance: run.appearance,
      filename: null,
      encoding: null,
      encodings: [],
      fields: [],
      source_headers: [],
      input_has_header: null,
      header_choice: false,
      rows_above_header: [],
      rows_above_header_found: [],
      sheets: [],
      sheet: null,
      rows_out_of_line: null,
      hidden_rows: [],
      hidden_rows_total: 0,
      mapping_rule: null,
      mapping_version: 0,
      value_fixes: [],
      fixes_key: fixesKey([]),
      rows_left_out: [],
      hidden_rows_left_out: false,
      hidden_rows_put_back: [],
      hidden_rows_known: false,
      total_rows: null,
      processed_rows: 0,
      waiting_for_upload: false,
      output_ready: false,
      problem_rows_choice: null,
      rows_excluded: null,
      review_expires_at: run.review_expires_at,
      review_approved_at: null,
      review_canceled_at: null,
      success_callback: null,
      cancel_callback: null,
      error: null,
      notices: [],
    };
  }

  async act(run: RunState, command: RunCommand, requestId: string) {
    const result = await this.commandBus.execute(
      new ApplyRunCommand(run.id, command, {
        organizationId: run.organization_id,
        correlationId: requestId,
        causationId: requestId,
      }),
    );
    await this.waiter.waitFor(run.id, result.revision);
    return this.view(result.state);
  }
}

/** Every data call after the review's deadline (the page then shows its expired state). */
export const reviewExpired = (): ApiError => ApiError.forbidden('review_expired', 'The review has expired.');

/** A date or datetime field's pattern its values are checked in, for the words of a date written otherwise. */
function datePatternShown(f: FieldDefinition): { date_pattern?: string } {
  if (f.data_type !== 'date' && f.data_type !== 'datetime') return {};
  const pattern = datePatternChecked(f);
  return pattern === null ? {} : { date_pattern: pattern };
}

/** The validators of a field the review words its problems with (docs/review-page.md): only those the schema sets. */
function validatorsShown(f: FieldDefinition, name: string, run: RunState) {
  const sets = (run.schema.unique_with ?? []).filter((set) => set.includes(name)).map((set) => set.map((n) => fieldLabel(run, n)));
  return {
    ...(typeof f.pattern === 'string' ? { pattern: f.pattern } : {}),
    ...(f.min !== undefined && f.min !== null ? { min: f.min } : {}),
    ...(f.max !== undefined && f.max !== null ? { max: f.max } : {}),
    ...(typeof f.min_length === 'number' ? { min_length: f.min_length } : {}),
    ...(typeof f.max_length === 'number' ? { max_length: f.max_length } : {}),
    ...(f.unique === true ? { unique: true } : {}),
    ...(sets.length > 0 ? { unique_with: sets } : {}),
  };
}

/**
 * A field's label as the review shows it: the run's column label, else the schema's, else its name. A
 * blank column label (a string, as the spec allows) is taken as none: a column must have a title.
 */
const fieldLabel = (run: RunState, name: string): string => {
  const given = run.column_labels && Object.hasOwn(run.column_labels, name) ? run.column_labels[name] : null;
  return (given?.trim() ? given : null) ?? run.schema.fields[name]?.label ?? name;
};
