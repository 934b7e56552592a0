import { MAX_ROWS_ABOVE_HEADER } from '@app/domain';
import { TOP_ROWS_APART } from '@app/tabular';

/**
 * The readers keep the first TOP_ROWS_APART rows' widths apart (libs/tabular) so that the rows of a title found above
 * the header (libs/domain) can be left out of the tallies exactly; a title longer than that would make rowWidthsBelow
 * throw in the middle of ingestion.
 */
describe('rows above the header', () => {
  it('are never more than the readers keep apart', () => {
    expect(TOP_ROWS_APART).toBeGreaterThanOrEqual(MAX_ROWS_ABOVE_HEADER);
  });
});
