import { Inject, Injectable, Logger } from '@nestjs/common';
import { SourceInspector } from '@app/cpu-work';
import type { MappingRule } from '@app/contracts';
import { DIRECTORY, type Directory } from '@app/directory';
import {
  MAX_ROWS_ABOVE_HEADER,
  headerNames,
  headersKey,
  isChoosableEncoding,
  requireEncodingChoice,
  requireHeaderChoice,
  requireSheetChoice,
  rowsAboveHeaderOf,
  rowsBeforeDataOf,
  type RunState,
} from '@app/domain';
import { rowAboveHeaderText, type SourceChoice } from '@app/run-source';
import { ApiError } from '../http/api-error';
import { ReviewPreviewService } from './review-preview.service';
import { ReviewService, type ReviewView } from './review.service';
import { sourceReadFailure } from './source-read-failure';

/**
 * The reviewer's choice of how the uploaded file is read: the row that holds the column names (or none), another
 * worksheet of a workbook, or another encoding of a text file. A header row is chosen from the file's first rows
 * alone. For a sheet or an encoding, the choice is checked before anything is read (an unknown
 * sheet or encoding, or a closed review, answers at once), the file is read whole in worker
 * threads, as at ingestion (a big delimited file in two parts at once), for its headers and row count, and the decider records SheetChosen
 * or EncodingChosen with them.
 */
@Injectable()
export class ReviewSourceChoiceService {
  private readonly logger = new Logger(ReviewSourceChoiceService.name);

  constructor(
    private readonly inspector: SourceInspector,
    private readonly review: ReviewService,
    private readonly previews: ReviewPreviewService,
    @Inject(DIRECTORY) private readonly directory: Directory,
  ) {}

  /**
   * Whether the file has a header row, and how many rows above it are left out (a title: `rows_above_header`, 0 to
   * MAX_ROWS_ABOVE_HEADER). Without `rows_above_header`, a header kept keeps the rows left out above it, and a header
   * chosen anew is the file's first row. Without a header, every row is data.
   */
  async chooseHeaderRow(run: RunState, body: { input_has_header?: unknown; rows_above_header?: unknown }, requestId: string) {
    if (typeof body.input_has_header !== 'boolean')
      throw ApiError.validation({ input_has_header: ['input_has_header must be true or false.'] });
    const wanted = body.rows_above_header;
    if (wanted !== undefined && (!Number.isInteger(wanted) || (wanted as number) < 0 || (wanted as number) > MAX_ROWS_ABOVE_HEADER))
      throw ApiError.validation({ rows_above_header: [`rows_above_header must be a whole number from 0 to ${MAX_ROWS_ABOVE_HEADER}.`] });
    if (wanted !== undefined && wanted !== 0 && !body.input_has_header)
      throw ApiError.validation({
        rows_above_header: ['Rows are left out above a header row only: every row of a file without one is data.'],
      });
    const above = !body.input_has_header ? 0 : ((wanted as number | undefined) ?? (run.input_has_header ? rowsAboveHeaderOf(run) : 0));
    // Already so: nothing to record (the page may send it twice).
    if (body.input_has_header === run.input_has_header && above === rowsAboveHeaderOf(run)) return this.review.view(run);
    // Refused before the rows are read: a run whose file is not uploaded yet has none (409, not the 410 of a file gone).
    requireHeaderChoice(run, new Date().toISOString());
    const top = await this.previews.topRows(run, above + 1);
    // The header needs its row, and a row under it to be a header of anything.
    if (top.length <= above || (above > 0 && (run.total_rows ?? 0) + rowsBeforeDataOf(run) < above + 2))
      throw ApiError.validation({
        rows_above_header: [`The file has no row ${above + 1} with rows under it to hold the column names.`],
      });
    return this.review.act(
      run,
      {
        type: 'ChooseHeaderRow',
        input_has_header: body.input_has_header,
        first_row: top[above],
        ...(above > 0 ? { rows_above_header: top.slice(0, above).map(rowAboveHeaderText) } : {}),
        ...(await this.rememberedFor(run, top[above], body.input_has_header)),
        sheet: run.sheet ?? null,
        encoding: run.encoding,
        at: new Date().toISOString(),
      },
      requestId,
    );
  }

  /**
   * The mapping the organization approved last for this schema and the columns the chosen row names, if any, and made
   * under the same answer about the header: a file whose header row is picked by hand each time (a report with a title
   * block the read does not find) gets its columns matched as the last time, not by place.
   */
  private async rememberedFor(run: RunState, firstRow: string[], hasHeader: boolean): Promise<{ remembered_mapping?: MappingRule }> {
    const headers = headerNames(firstRow, hasHeader, run.source_headers.length);
    const found = await this.directory.findRememberedMapping(run.organization_id, run.schema.id, headersKey(headers));
    if (!found || (found.input_has_header !== undefined && found.input_has_header !== hasHeader)) return {};
    return { remembered_mapping: found.mapping_rule };
  }

  /**
   * The file's first rows (as many as a header may be under: MAX_ROWS_ABOVE_HEADER + 1), each as its values, for the
   * reviewer to say which holds the column names: the rows above the header the file's read found are not all there
   * is (a report's two-value lines, "Account: DE12…", are no title it finds).
   */
  async topRows(run: RunState): Promise<{ rows: string[] }> {
    requireHeaderChoice(run, new Date().toISOString());
    const rows = await this.previews.topRows(run, MAX_ROWS_ABOVE_HEADER + 1);
    return { rows: rows.map(rowAboveHeaderText) };
  }

  async chooseSheet(run: RunState, sheet: unknown, requestId: string): Promise<ReviewView> {
    if (typeof sheet !== 'string' || sheet === '')
      throw ApiError.validation({ sheet: ["The sheet must be the name of one of the workbook's sheets."] });
    requireSheetChoice(run, sheet, new Date().toISOString());
    // Already read: nothing to record (the page may send it twice).
    if (sheet === run.sheet) return this.review.view(run);
    // Another sheet's rows above its header are its own: found anew.
    const read = await this.read(
      { ...run, rows_above_header: undefined },
      { sheet },
      'sheet_unreadable',
      `The sheet "${sheet}" cannot be read`,
    );
    return this.review.act(run, { type: 'ChooseSheet', sheet, read, at: new Date().toISOString() }, requestId);
  }

  async chooseEncoding(run: RunState, encoding: unknown, requestId: string): Promise<ReviewView> {
    if (!isChoosableEncoding(encoding))
      throw ApiError.validation({ encoding: ['The encoding must be one of those the review offers (the state\'s "encodings").'] });
    requireEncodingChoice(run, encoding, new Date().toISOString());
    if (encoding === run.encoding) return this.review.view(run);
    // The reviewer's answer about the header row, and the rows above it, stands: the same rows, read in another encoding.
    const asChosen: RunState = { ...run, input_has_header_override: run.input_has_header ?? run.input_has_header_override };
    const read = await this.read(asChosen, { encoding }, 'encoding_unreadable', `The file cannot be read as ${encoding}`);
    // A title the reviewer reads as rows is still offered to leave out again: in the letters it now reads in.
    const found = run.rows_above_header_found ?? [];
    const readAsRows = found.length > 0 && rowsAboveHeaderOf(run) === 0;
    const foundRead = readAsRows ? await this.previews.topRows({ ...run, encoding }, found.length) : [];
    return this.review.act(
      run,
      {
        type: 'ChooseEncoding',
        encoding,
        read: { ...read, ...(readAsRows ? { rows_above_header_found: foundRead.map(rowAboveHeaderText) } : {}) },
        at: new Date().toISOString(),
      },
      requestId,
    );
  }

  private async read(run: RunState, choice: SourceChoice, unreadable: string, cannot: string) {
    let outcome;
    try {
      outcome = await this.inspector.readAgain(run, choice);
    } catch (err) {
      throw sourceReadFailure(this.logger, run, `the file could not be read again (${JSON.stringify(choice)})`, err);
    }
    // A title or cover sheet: its one row is read as the column names and nothing is under them. Listed as having
    // data (it has a row), it is refused once read, before the review shows no rows and offers to approve them.
    const sheetEmpty = 'failed' in outcome ? outcome.failed.code === 'source_file_empty' : outcome.parsed.total_rows === 0;
    if (sheetEmpty && choice.sheet !== undefined)
      throw new ApiError(
        422,
        'sheet_empty',
        'validation',
        `The sheet "${choice.sheet}" has no rows under its first row: nothing to import.`,
      );
    // The file cannot be read so (a limit, a byte the encoding does not have): the review stays as it was. Read in
    // another encoding, only bytes it lacks are `encoding_unreadable`; anything else (a quote left open, a row too
    // long) answers with its own code, so the page does not say the encoding lacks characters when it does not.
    if ('failed' in outcome) {
      const { code, message } = outcome.failed;
      const own = choice.encoding !== undefined && code !== 'source_file_encoding_invalid';
      throw new ApiError(422, own && code ? code : unreadable, 'validation', `${cannot}: ${message ?? code}`);
    }
    const {
      source_headers,
      input_has_header,
      total_rows,
      row_shape,
      rows_above_header,
      merged_cells,
      hidden_rows,
      hidden_rows_total,
      hidden_row_spans,
      read_limits,
    } = outcome.parsed;
    return {
      source_headers,
      input_has_header,
      total_rows,
      ...(row_shape ? { row_shape } : {}),
      ...(rows_above_header ? { rows_above_header } : {}),
      ...(merged_cells ? { merged_cells } : {}),
      ...(hidden_rows ? { hidden_rows } : {}),
      ...(hidden_rows_total !== undefined ? { hidden_rows_total } : {}),
      ...(hidden_row_spans ? { hidden_row_spans } : {}),
      ...(read_limits ? { read_limits } : {}),
    };
  }
}
