import { Injectable, Logger } from '@nestjs/common';
import { CpuWork } from '@app/cpu-work';
import { requireSheetChoice, type RunState } from '@app/domain';
import { ApiError } from '../http/api-error';
import { ReviewService, type ReviewView } from './review.service';
import { sourceReadFailure } from './source-read-failure';

/**
 * The reviewer's choice of another worksheet of an uploaded workbook. The choice is
 * checked before anything is read (an unknown sheet or a closed review answers at once),
 * the sheet is read whole in a worker thread, as at ingestion, for its headers and row
 * count, and the decider records SheetChosen with them.
 */
@Injectable()
export class ReviewSheetsService {
  private readonly logger = new Logger(ReviewSheetsService.name);

  constructor(
    private readonly cpu: CpuWork,
    private readonly review: ReviewService,
  ) {}

  async choose(run: RunState, sheet: unknown, requestId: string): Promise<ReviewView> {
    if (typeof sheet !== 'string' || sheet === '')
      throw ApiError.validation({ sheet: ["The sheet must be the name of one of the workbook's sheets."] });
    requireSheetChoice(run, sheet, new Date().toISOString());
    // Already read: nothing to record (the page may send it twice).
    if (sheet === run.sheet) return this.review.view(run);
    const read = await this.read(run, sheet);
    return this.review.act(run, { type: 'ChooseSheet', sheet, read, at: new Date().toISOString() }, requestId);
  }

  private async read(run: RunState, sheet: string) {
    let outcome;
    try {
      outcome = await this.cpu.run('inspectStructuredFile', { run, sheet });
    } catch (err) {
      throw sourceReadFailure(this.logger, run, 'the sheet could not be read', err);
    }
    if ('failed' in outcome) {
      // The sheet itself cannot be used (a limit, or no rows after all): the review stays on its sheet.
      throw new ApiError(
        422,
        'sheet_unreadable',
        'validation',
        `The sheet "${sheet}" cannot be read: ${outcome.failed.message ?? outcome.failed.code}`,
      );
    }
    const { source_headers, input_has_header, total_rows } = outcome.parsed;
    return { source_headers, input_has_header, total_rows };
  }
}
