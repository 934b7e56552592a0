/**
 * Says which rows do not line up with the file's first row (counted at ingestion): a row with more
 * cells puts its extra values in columns no header names, one with fewer lacks values. Either is most
 * often a row broken by a delimiter or line break in an unquoted value, whose values moved to other
 * columns; the reviewer is told where the first one is, so they can check it before approving.
 */
import { isolate, listOf, t } from '../i18n';
import type { ReviewView } from '../types';

/** Column names shown before "…": a file of many ragged columns must not make the notice a wall. */
const NAMES_SHOWN = 3;

export function RowsOutOfLineNotice({ view }: { view: ReviewView }) {
  const shape = view.rows_out_of_line;
  if (!shape) return null;
  const names = shape.extra_columns.slice(0, NAMES_SHOWN).map(isolate);
  const columns = listOf(shape.extra_columns.length > NAMES_SHOWN ? [...names, '…'] : names);
  return (
    <>
      {shape.longer_rows > 0 && shape.first_longer_row !== null && (
        <p class="notice warn" role="note" data-notice="rows_longer">
          {t('rows_longer', { count: shape.longer_rows, first: shape.first_longer_row, columns })}
        </p>
      )}
      {shape.shorter_rows > 0 && shape.first_shorter_row !== null && (
        <p class="notice warn" role="note" data-notice="rows_shorter">
          {t('rows_shorter', { count: shape.shorter_rows, first: shape.first_shorter_row })}
        </p>
      )}
    </>
  );
}
