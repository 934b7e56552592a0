import { Injectable, Logger } from '@nestjs/common';
import { SourceInspector } from '@app/cpu-work';
import { isChoosableEncoding, requireEncodingChoice, requireSheetChoice, type RunState } from '@app/domain';
import type { SourceChoice } from '@app/run-source';
import { ApiError } from '../http/api-error';
import { ReviewService, type ReviewView } from './review.service';
import { sourceReadFailure } from './source-read-failure';

/**
 * The reviewer's choice of how the uploaded file is read: another worksheet of a workbook, or
 * another encoding of a text file. The choice is checked before anything is read (an unknown
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
  ) {}

  async chooseSheet(run: RunState, sheet: unknown, requestId: string): Promise<ReviewView> {
    if (typeof sheet !== 'string' || sheet === '')
      throw ApiError.validation({ sheet: ["The sheet must be the name of one of the workbook's sheets."] });
    requireSheetChoice(run, sheet, new Date().toISOString());
    // Already read: nothing to record (the page may send it twice).
    if (sheet === run.sheet) return this.review.view(run);
    const read = await this.read(run, { sheet }, 'sheet_unreadable', `The sheet "${sheet}" cannot be read`);
    return this.review.act(run, { type: 'ChooseSheet', sheet, read, at: new Date().toISOString() }, requestId);
  }

  async chooseEncoding(run: RunState, encoding: unknown, requestId: string): Promise<ReviewView> {
    if (!isChoosableEncoding(encoding))
      throw ApiError.validation({ encoding: ['The encoding must be one of those the review offers (the state\'s "encodings").'] });
    requireEncodingChoice(run, encoding, new Date().toISOString());
    if (encoding === run.encoding) return this.review.view(run);
    // The reviewer's answer about the header row stands: the same rows, read in another encoding.
    const asChosen: RunState = { ...run, input_has_header_override: run.input_has_header ?? run.input_has_header_override };
    const read = await this.read(asChosen, { encoding }, 'encoding_unreadable', `The file cannot be read as ${encoding}`);
    return this.review.act(run, { type: 'ChooseEncoding', encoding, read, at: new Date().toISOString() }, requestId);
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
    const { source_headers, input_has_header, total_rows, row_shape } = outcome.parsed;
    return { source_headers, input_has_header, total_rows, ...(row_shape ? { row_shape } : {}) };
  }
}
